#include "sched/plugins/time_aware_batch_fit.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr Dim kBatchDims[] = {Dim::kCpu, Dim::kMemory};

// Per dimension, the least room the node keeps over the task's window once the batch already
// there is counted: limit − predicted services − batch requests. Negative when it does not fit.
struct Room {
  float cpu_share = 0;  // room left after the task, as a share of the limit
  float memory_share = 0;
  bool fits = false;
};

// The bins of the task's estimated run: from the one holding now, at least one, at most a day.
struct Window {
  int first = 0;
  int span = 0;
};

Window TaskWindow(const PredictedLoad& load, int64_t now, int64_t duration_estimate_s) {
  const int64_t bin_seconds = kSecondsPerDay / load.bins();
  return {.first = load.BinAt(now),
          .span = static_cast<int>(std::clamp<int64_t>(
              (duration_estimate_s + bin_seconds - 1) / bin_seconds, 1, load.bins()))};
}

// With `shares` false (the filter, which needs only `fits`) it stops at the first dimension that
// does not fit, and tests the batch allocatable, a per-node number, before the predicted window:
// most nodes a task is tried on are full now, and the window scan is the expensive part.
Room RoomFor(const SchedulingContext& ctx, const PodRequest& pod, NodeId node, bool shares) {
  const PredictedLoad& load = *ctx.predicted;
  std::optional<Window> window;  // found when first needed: the filter often fails before
  const Resources& batch = ctx.state.task_requested(node);
  const bool reserving = !pod.serverless && !ctx.serverless_reserve.empty();
  // A serverless task may also take the CPU the node can throttle out of its offline tasks.
  const int64_t borrowable =
      pod.serverless && !ctx.borrowable_cpu.empty() ? ctx.borrowable_cpu[node] : 0;
  Room room{.fits = true};
  for (Dim d : kBatchDims) {
    const float limit = load.limit(node, d);
    const float reserve = reserving ? static_cast<float>(ctx.serverless_reserve[node][d]) : 0.0f;
    const int64_t claimed = batch[d] + pod.requests[d] - (d == Dim::kCpu ? borrowable : 0);
    float left = std::numeric_limits<float>::infinity();
    if (!ctx.batch_allocatable.empty()) {
      left = static_cast<float>(ctx.batch_allocatable[node][d] - claimed) - reserve;
      if (!shares && left < 0) return Room{};
    }
    if (!window) window = TaskWindow(load, ctx.now, pod.duration_estimate_s);
    left = std::min(left, load.MinFree(node, d, window->first, window->span) -
                              static_cast<float>(claimed) - reserve);
    if (left < 0) {
      if (!shares) return Room{};
      room.fits = false;
    }
    const float share = limit > 0 ? left / limit : 0;
    (d == Dim::kCpu ? room.cpu_share : room.memory_share) = share;
  }
  return room;
}

}  // namespace

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
  return RoomFor(ctx, pod, node, /*shares=*/false).fits;
}

int64_t BatchBestFit::Score(const SchedulingContext& ctx, const PodRequest& pod,
                            NodeId node) const {
  if (ctx.predicted == nullptr) return 0;
  Room room = RoomFor(ctx, pod, node, /*shares=*/true);
  if (!room.fits) return 0;
  const float left = std::clamp((room.cpu_share + room.memory_share) / 2, 0.0f, 1.0f);
  return static_cast<int64_t>((1.0f - left) * static_cast<float>(kMaxNodeScore));
}

}  // namespace archimedes
