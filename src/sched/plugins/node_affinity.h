// Filter: the required node affinity of kube-scheduler's NodeAffinity plugin
// (requiredDuringSchedulingIgnoredDuringExecution, model/node_affinity.h); its nodeSelector half is
// the NodeSelector plugin. Every service scheduler has it.
#ifndef ARCHIMEDES_SCHED_PLUGINS_NODE_AFFINITY_H_
#define ARCHIMEDES_SCHED_PLUGINS_NODE_AFFINITY_H_

#include "sched/framework.h"

namespace archimedes {

class NodeAffinity : public FilterPlugin {
 public:
  std::string_view name() const override { return "NodeAffinity"; }
  bool node_local() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override {
    return pod.node_affinity.empty() ||
           MatchesRequiredAffinity(pod.node_affinity, ctx.state.node(node));
  }
  bool AppliesTo(const SchedulingContext&, const PodRequest& pod) const override {
    return !pod.node_affinity.empty();
  }
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_NODE_AFFINITY_H_
