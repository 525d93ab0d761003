// Batch on reclaimed capacity, as a co-location add-on to Kubernetes does it (Koordinator's
// batch-cpu / batch-memory): a task fits a node when its requests plus the batch already there stay
// within the node's batch allocatable (capacity × (1 − buffer) − the services' recent peak usage),
// and nodes are ranked by the batch allocatable they have left (LeastAllocated over it).
#ifndef ARCHIMEDES_SCHED_PLUGINS_RECLAIMED_FIT_H_
#define ARCHIMEDES_SCHED_PLUGINS_RECLAIMED_FIT_H_

#include "sched/framework.h"

namespace archimedes {

class ReclaimedFit : public FilterPlugin {
 public:
  std::string_view name() const override { return "ReclaimedFit"; }
  bool node_local() const override { return true; }
  bool guarantees_batch_room() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

class ReclaimedLeastAllocated : public ScorePlugin {
 public:
  std::string_view name() const override { return "ReclaimedLeastAllocated"; }
  bool node_local() const override { return true; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_RECLAIMED_FIT_H_
