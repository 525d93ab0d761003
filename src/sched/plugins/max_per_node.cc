#include "sched/plugins/max_per_node.h"

namespace archimedes {

bool MaxPerNode::Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const {
  if (pod.max_per_node <= 0) return true;
  int same = 0;
  for (ContainerId id : ctx.state.containers_on(node)) {
    const Container& c = ctx.state.container(id);
    if (c.kind == pod.kind && c.owner == pod.owner && ++same >= pod.max_per_node) return false;
  }
  return true;
}

}  // namespace archimedes
