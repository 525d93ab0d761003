// Filter: kube-scheduler's TaintToleration. A pod goes only to nodes whose NoSchedule and
// NoExecute taints it all tolerates (model/taint.h); PreferNoSchedule taints do not filter. Every
// service scheduler has it.
#ifndef ARCHIMEDES_SCHED_PLUGINS_TAINT_TOLERATION_H_
#define ARCHIMEDES_SCHED_PLUGINS_TAINT_TOLERATION_H_

#include "sched/framework.h"

namespace archimedes {

class TaintToleration : public FilterPlugin {
 public:
  std::string_view name() const override { return "TaintToleration"; }
  bool node_local() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override {
    const Node& n = ctx.state.node(node);
    return n.taints.empty() || FirstUntoleratedTaint(n.taints, pod.tolerations) == nullptr;
  }
  bool AppliesTo(const SchedulingContext& ctx, const PodRequest&) const override {
    return ctx.state.tainted_nodes() > 0;
  }
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_TAINT_TOLERATION_H_
