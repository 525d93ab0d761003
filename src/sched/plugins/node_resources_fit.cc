#include "sched/plugins/node_resources_fit.h"

namespace archimedes {

bool NodeResourcesFit::Filter(const SchedulingContext& ctx, const PodRequest& pod,
                              NodeId node) const {
  const Resources& requested = ctx.state.requested(node);
  const Resources& allocatable = ctx.state.allocatable(node);
  for (Dim d : dims_) {
    if (pod.requests[d] > 0 && requested[d] + pod.requests[d] > allocatable[d]) return false;
  }
  return true;
}

}  // namespace archimedes
