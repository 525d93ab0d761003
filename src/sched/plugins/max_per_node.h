// Filter: at most `max_per_node` replicas of one service on a node (the per-node spread limit the
// Alibaba 2025 trace records; in Kubernetes a topology spread constraint on the hostname key).
#ifndef ARCHIMEDES_SCHED_PLUGINS_MAX_PER_NODE_H_
#define ARCHIMEDES_SCHED_PLUGINS_MAX_PER_NODE_H_

#include "sched/framework.h"

namespace archimedes {

class MaxPerNode : public FilterPlugin {
 public:
  std::string_view name() const override { return "MaxPerNode"; }
  bool node_local() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  bool AppliesTo(const SchedulingContext&, const PodRequest& pod) const override {
    return pod.max_per_node > 0;
  }
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_MAX_PER_NODE_H_
