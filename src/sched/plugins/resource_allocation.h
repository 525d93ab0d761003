// The kube-scheduler scorers that rank nodes by their requested resources, with its formulas
// (pkg/scheduler/framework/plugins/noderesources): LeastAllocated and MostAllocated are the two
// scoring strategies of NodeResourcesFit, BalancedAllocation is NodeResourcesBalancedAllocation.
// All use cpu and memory with weight 1, and count the incoming pod as kube-scheduler does: a pod
// without a cpu or memory request counts as 100m / 200Mi ("non-zero" requests).
#ifndef ARCHIMEDES_SCHED_PLUGINS_RESOURCE_ALLOCATION_H_
#define ARCHIMEDES_SCHED_PLUGINS_RESOURCE_ALLOCATION_H_

#include <cstdint>

#include "sched/framework.h"

namespace archimedes {

// ((allocatable − requested) × 100) / allocatable, averaged over cpu and memory.
class LeastAllocated : public ScorePlugin {
 public:
  std::string_view name() const override { return "LeastAllocated"; }
  bool node_local() const override { return true; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

// (requested × 100) / allocatable, averaged over cpu and memory.
class MostAllocated : public ScorePlugin {
 public:
  std::string_view name() const override { return "MostAllocated"; }
  bool node_local() const override { return true; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

// (1 − standard deviation of the requested fractions of cpu and memory) × 100.
class BalancedAllocation : public ScorePlugin {
 public:
  std::string_view name() const override { return "BalancedAllocation"; }
  bool node_local() const override { return true; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

// kube-scheduler's per-resource formulas (integer division, as in Go). Inline: every score of a
// node scan calls them.
inline int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return ((capacity - requested) * kMaxNodeScore) / capacity;
}
inline int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return (requested * kMaxNodeScore) / capacity;
}

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_RESOURCE_ALLOCATION_H_
