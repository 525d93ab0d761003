#include "sched/plugins/batch_displacement.h"

#include <algorithm>

#include "sched/predicted_load.h"

namespace archimedes {

int64_t BatchDisplacement::Score(const SchedulingContext& ctx, const PodRequest& pod,
                                 NodeId node) const {
  const int64_t batch = ctx.state.task_requested(node).memory();
  if (ctx.predicted == nullptr || batch <= 0) return kMaxNodeScore;
  const PredictedLoad& load = *ctx.predicted;
  const double replica = load.DemandOf(pod).peak[static_cast<int>(Dim::kMemory)];
  if (replica <= 0) return kMaxNodeScore;
  const double excess = static_cast<double>(load.peak(node, Dim::kMemory)) + replica +
                        static_cast<double>(batch) - load.limit(node, Dim::kMemory);
  const double displaced = std::clamp(excess, 0.0, static_cast<double>(batch));
  return static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                              (1.0 - std::min(1.0, displaced / replica)));
}

}  // namespace archimedes
