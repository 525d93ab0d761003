#include "sched/plugins/time_aware_batch_fit.h"

#include <algorithm>

#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr Dim kBatchDims[] = {Dim::kCpu, Dim::kMemory};

// What the task claims in `d` on the node beside the batch already there, and the room it must
// leave: the serverless reserve, unless it is serverless itself (which may instead count the
// CPU it can borrow from offline tasks).
struct Claim {
  int64_t claimed = 0;
  float reserve = 0;
};

Claim ClaimOf(const SchedulingContext& ctx, const PodRequest& pod, NodeId node, Dim d) {
  const bool reserving = !pod.serverless && !ctx.serverless_reserve.empty();
  const int64_t borrowable = pod.serverless && d == Dim::kCpu && !ctx.borrowable_cpu.empty()
                                 ? ctx.borrowable_cpu[node]
                                 : 0;
  return {.claimed = ctx.state.task_requested(node)[d] + pod.requests[d] - borrowable,
          .reserve = reserving ? static_cast<float>(ctx.serverless_reserve[node][d]) : 0.0f};
}

// The room the task leaves in `d` of the node's batch allocatable now.
float AllocatableLeft(const SchedulingContext& ctx, NodeId node, Dim d, const Claim& claim) {
  return static_cast<float>(ctx.batch_allocatable[node][d] - claim.claimed) - claim.reserve;
}

// The least room the task leaves in `d`, now (batch allocatable, where the context has one) and
// over the window: negative when it does not fit.
float RoomLeft(const SchedulingContext& ctx, NodeId node, Dim d, const Claim& claim,
               const TaskWindow& window) {
  // No service replica on the node: nothing bursts there, so its burst buffer is batch's too.
  const PredictedLoad& load = *ctx.predicted;
  const float unbuffered =
      load.residents(node) == 0
          ? static_cast<float>(static_cast<double>(ctx.state.node(node).capacity[d]) *
                               load.buffer())
          : 0.0f;
  const float over_window = load.MinFree(node, d, window.first, window.span) + unbuffered -
                            static_cast<float>(claim.claimed) - claim.reserve;
  if (ctx.batch_allocatable.empty()) return over_window;
  return std::min(AllocatableLeft(ctx, node, d, claim), over_window);
}

}  // namespace

int RunBins(const PredictedLoad& load, int64_t duration_estimate_s) {
  const int64_t bin_seconds = kSecondsPerDay / load.bins();
  return static_cast<int>(
      std::clamp<int64_t>((duration_estimate_s + bin_seconds - 1) / bin_seconds, 1, load.bins()));
}

const TaskWindow& TaskWindowMemo::For(const PredictedLoad& load, int64_t now,
                                      int64_t duration_estimate_s) {
  if (now != now_ || duration_estimate_s != duration_estimate_s_ || load.bins() != bins_) {
    window_ = {.first = load.BinAt(now), .span = RunBins(load, duration_estimate_s)};
    now_ = now;
    duration_estimate_s_ = duration_estimate_s;
    bins_ = load.bins();
  }
  return window_;
}

// The filter needs only the verdict, and most nodes a task is tried on are full now: the batch
// allocatable, a per-node number, is tested before the window scan, and the first dimension that
// does not fit ends it.
bool TimeAwareBatchFit::Filter(const SchedulingContext& ctx, const PodRequest& pod,
                               NodeId node) const {
  if (ctx.predicted == nullptr) return false;
  // GPUs are not reclaimed: a task's GPU request must fit what services and batch leave of the
  // node's batch allocatable GPU.
  if (pod.requests[Dim::kGpu] > 0 &&
      (ctx.batch_allocatable.empty() ||
       ctx.state.task_requested(node)[Dim::kGpu] + pod.requests[Dim::kGpu] >
           ctx.batch_allocatable[node][Dim::kGpu])) {
    return false;
  }
  if (!ctx.batch_allocatable.empty()) {
    for (Dim d : kBatchDims) {
      if (AllocatableLeft(ctx, node, d, ClaimOf(ctx, pod, node, d)) < 0) return false;
    }
  }
  const TaskWindow& window = window_.For(*ctx.predicted, ctx.now, pod.duration_estimate_s);
  for (Dim d : kBatchDims) {
    if (RoomLeft(ctx, node, d, ClaimOf(ctx, pod, node, d), window) < 0) return false;
  }
  return true;
}

// Best fit: the less room the task leaves, as a share of the limit, the higher the score.
int64_t BatchBestFit::Score(const SchedulingContext& ctx, const PodRequest& pod,
                            NodeId node) const {
  if (ctx.predicted == nullptr) return 0;
  const TaskWindow& window = window_.For(*ctx.predicted, ctx.now, pod.duration_estimate_s);
  float share_sum = 0;
  for (Dim d : kBatchDims) {
    const float left = RoomLeft(ctx, node, d, ClaimOf(ctx, pod, node, d), window);
    if (left < 0) return 0;
    const float limit = ctx.predicted->limit(node, d);
    share_sum += limit > 0 ? left / limit : 0;
  }
  const float left = std::clamp(share_sum / 2, 0.0f, 1.0f);
  return static_cast<int64_t>((1.0f - left) * static_cast<float>(kMaxNodeScore));
}

}  // namespace archimedes
