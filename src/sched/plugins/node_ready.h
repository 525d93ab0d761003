// Filter: nothing new is placed on a node that is not Ready (kube-scheduler sees such nodes
// through the node.kubernetes.io/not-ready taint, which ordinary pods do not tolerate).
#ifndef ARCHIMEDES_SCHED_PLUGINS_NODE_READY_H_
#define ARCHIMEDES_SCHED_PLUGINS_NODE_READY_H_

#include "sched/framework.h"

namespace archimedes {

class NodeReady : public FilterPlugin {
 public:
  std::string_view name() const override { return "NodeReady"; }
  bool node_local() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest&, NodeId node) const override {
    return ctx.state.ready(node);
  }
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_NODE_READY_H_
