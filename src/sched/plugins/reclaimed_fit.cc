#include "sched/plugins/reclaimed_fit.h"

#include "sched/plugins/resource_allocation.h"

namespace archimedes {

bool ReclaimedFit::Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const {
  if (ctx.batch_allocatable.empty()) return false;
  const Resources& limit = ctx.batch_allocatable[node];
  const Resources& used = ctx.state.task_requested(node);
  // A node whose batch allocatable is exhausted (services use it all) takes no task, not even
  // one that requests none of that resource.
  for (Dim d : {Dim::kCpu, Dim::kMemory}) {
    if (used[d] + pod.requests[d] > limit[d]) return false;
  }
  if (pod.requests[Dim::kGpu] > 0 && used[Dim::kGpu] + pod.requests[Dim::kGpu] > limit[Dim::kGpu]) {
    return false;
  }
  return true;
}

int64_t ReclaimedLeastAllocated::Score(const SchedulingContext& ctx, const PodRequest& pod,
                                       NodeId node) const {
  if (ctx.batch_allocatable.empty()) return 0;
  const Resources& limit = ctx.batch_allocatable[node];
  const Resources& used = ctx.state.task_requested(node);
  return (LeastRequestedScore(used.cpu() + pod.requests.cpu(), limit.cpu()) +
          LeastRequestedScore(used.memory() + pod.requests.memory(), limit.memory())) /
         2;
}

}  // namespace archimedes
