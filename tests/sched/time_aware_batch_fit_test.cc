// TimeAwareBatchFit: a task fits the services' predicted valleys for its whole run, and the room
// services leave now.
#include "sched/plugins/time_aware_batch_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "model/cluster_state.h"
#include "sched/batch_schedulers.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

// Uniform integers in [lo, hi] from one seeded stream.
class UniformInts {
 public:
  explicit UniformInts(uint64_t seed) : rng_(seed) {}
  int64_t operator()(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

 private:
  std::mt19937_64 rng_;
};

// Services predicted to use, flat over the day, up to `millicores` of CPU and `gib` GiB.
Demand RandomServices(UniformInts& uniform, int64_t millicores, int64_t gib) {
  Demand services;
  services.peak[0] = static_cast<float>(uniform(0, millicores));
  services.peak[1] = static_cast<float>(uniform(0, gib) * kGi);
  return services;
}

// `count` nodes of 16 cores and 64 GiB.
std::vector<Node> Nodes(int count) {
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (int i = 0; i < count; ++i) {
    nodes.push_back({.name = "n" + std::to_string(i),
                     .capacity = Resources::Of(16'000, 64 * kGi),
                     .allocatable = Resources::Of(16'000, 64 * kGi)});
  }
  return nodes;
}

// The profiles predict no service usage on the node (9 cores and 57.6 GiB under the 10 % buffer),
// but its services run above them now: what they leave, the batch allocatable, is 2 cores and
// 8 GiB. A task placed by the prediction alone would be evicted at the next usage tick.
TEST(TimeAwareBatchFitTest, ATaskAlsoFitsWhatServicesLeaveNow) {
  Node node{.name = "n",
            .capacity = Resources::Of(10'000, 64 * kGi),
            .allocatable = Resources::Of(10'000, 64 * kGi)};
  ClusterState state({node}, TaskAccounting::kReclaimed);
  PredictedLoad load({node});
  const std::vector<Resources> batch_allocatable = {Resources::Of(2'000, 8 * kGi)};
  const SchedulingContext now{
      .state = state, .predicted = &load, .batch_allocatable = batch_allocatable};
  const TimeAwareBatchFit fit;
  PodRequest task{.requests = Resources::Of(1'000, 12 * kGi),
                  .kind = OwnerKind::kTask,
                  .duration_estimate_s = 600};
  EXPECT_FALSE(fit.Filter(now, task, 0)) << "12 GiB where services leave 8";
  task.requests = Resources::Of(3'000, kGi);
  EXPECT_FALSE(fit.Filter(now, task, 0)) << "3 cores where services leave 2";
  task.requests = Resources::Of(1'500, 6 * kGi);
  EXPECT_TRUE(fit.Filter(now, task, 0));
  state.Add(Container{.kind = OwnerKind::kTask, .node = 0, .requests = task.requests});
  EXPECT_FALSE(fit.Filter(now, task, 0)) << "the batch already there counts";
  const SchedulingContext predicted_only{.state = state, .predicted = &load};
  EXPECT_TRUE(fit.Filter(predicted_only, task, 0));
}

// The filter's verdict, whichever check it makes first and wherever it stops, is the rule: in cpu
// and memory, what the task claims (the batch there plus the task, less the CPU a serverless task
// may borrow) plus the serverless reserve it must leave (offline tasks) stays within both the batch
// allocatable and the least predicted room over its run.
TEST(TimeAwareBatchFitTest, TheVerdictIsTheRuleOnRandomNodes) {
  UniformInts uniform(5);
  const std::vector<Node> nodes = Nodes(60);
  ClusterState state(nodes, TaskAccounting::kReclaimed);
  PredictedLoad load(nodes);
  std::vector<Resources> batch_allocatable, reserve;
  std::vector<int64_t> borrowable;
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    load.Add(n, RandomServices(uniform, 12'000, 48));
    state.Add(Container{.kind = OwnerKind::kTask,
                        .node = n,
                        .requests = Resources::Of(uniform(0, 8'000), uniform(0, 24) * kGi)});
    batch_allocatable.push_back(Resources::Of(uniform(-2'000, 14'000), uniform(-4, 56) * kGi));
    reserve.push_back(Resources::Of(uniform(0, 2'000), uniform(0, 4) * kGi));
    borrowable.push_back(uniform(0, 3'000));
  }
  const TimeAwareBatchFit fit;
  const BatchBestFit best;
  int fits = 0;
  for (int trial = 0; trial < 2'000; ++trial) {
    const SchedulingContext ctx{.state = state,
                                .predicted = &load,
                                .batch_allocatable = batch_allocatable,
                                .serverless_reserve = reserve,
                                .borrowable_cpu = borrowable,
                                .now = uniform(0, kSecondsPerDay)};
    const PodRequest pod{.requests = Resources::Of(uniform(1, 6'000), uniform(0, 16) * kGi),
                         .kind = OwnerKind::kTask,
                         .duration_estimate_s = uniform(1, int64_t{6} * 3600),
                         .serverless = uniform(0, 1) == 1};
    const int64_t bin_seconds = kSecondsPerDay / load.bins();
    const int first = load.BinAt(ctx.now);
    const int span = static_cast<int>(std::clamp<int64_t>(
        (pod.duration_estimate_s + bin_seconds - 1) / bin_seconds, 1, load.bins()));
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      bool rule = true;
      for (Dim d : {Dim::kCpu, Dim::kMemory}) {
        const int64_t claimed = state.task_requested(n)[d] + pod.requests[d] -
                                (pod.serverless && d == Dim::kCpu ? borrowable[n] : 0);
        const float kept = pod.serverless ? 0.0f : static_cast<float>(reserve[n][d]);
        rule = rule && static_cast<float>(batch_allocatable[n][d] - claimed) - kept >= 0 &&
               load.MinFree(n, d, first, span) - static_cast<float>(claimed) - kept >= 0;
      }
      ASSERT_EQ(fit.Filter(ctx, pod, n), rule) << "trial " << trial << " node " << n;
      if (!rule) {
        EXPECT_EQ(best.Score(ctx, pod, n), 0);
      }
      fits += rule;
    }
  }
  EXPECT_GT(fits, 5'000) << "both verdicts are exercised";
  EXPECT_LT(fits, 100'000);
}

// The batch schedulers place a job's tasks one by one with a FeasibilityMemo, which keeps the
// verdict and the score of every node nothing was placed on, and with the batch room taken before
// the job (SchedulingContext::batch_room, which lets the scan pass over nodes without calling a
// filter): each decision is the one a scheduler without either makes, on a fleet that fills until
// most tasks find no node.
TEST(TimeAwareBatchFitTest, TheMemoAndTheBatchRoomKeepEveryDecision) {
  for (bool time_aware : {false, true}) {
    SCOPED_TRACE(time_aware);
    UniformInts uniform(9);
    const std::vector<Node> nodes = Nodes(300);
    ClusterState with_memo(nodes, TaskAccounting::kReclaimed);
    ClusterState without_memo(nodes, TaskAccounting::kReclaimed);
    PredictedLoad load(nodes);
    std::vector<Resources> batch_allocatable;
    for (NodeId n = 0; n < with_memo.num_nodes(); ++n) {
      load.Add(n, RandomServices(uniform, 10'000, 40));
      batch_allocatable.push_back(Resources::Of(uniform(2'000, 14'000), uniform(8, 56) * kGi));
    }
    auto make = [&] {
      return time_aware ? MakeTimeAwareBatchScheduler(3) : MakeReclaimedBatchScheduler(3);
    };
    Scheduler a = make(), b = make();
    FeasibilityMemo memo;
    std::vector<std::array<int64_t, 2>> room;
    int placed = 0, unplaced = 0;
    for (int job = 0; job < 400; ++job) {
      const int64_t now = int64_t{60} * job;
      const PodRequest pod{.requests = Resources::Of(uniform(500, 4'000), uniform(1, 8) * kGi),
                           .kind = OwnerKind::kTask,
                           .owner = job,
                           .duration_estimate_s = uniform(60, int64_t{4} * 3600)};
      memo.Reset();
      room.clear();
      for (NodeId n = 0; n < with_memo.num_nodes(); ++n) {
        const Resources& tasks = with_memo.task_requested(n);
        room.push_back({batch_allocatable[n].cpu() - tasks.cpu(),
                        batch_allocatable[n].memory() - tasks.memory()});
      }
      for (int task = uniform(1, 30); task > 0; --task) {
        const NodeId x = a.Schedule({.state = with_memo,
                                     .predicted = &load,
                                     .batch_allocatable = batch_allocatable,
                                     .now = now,
                                     .batch_room = room},
                                    pod, &memo);
        const NodeId y = b.Schedule({.state = without_memo,
                                     .predicted = &load,
                                     .batch_allocatable = batch_allocatable,
                                     .now = now},
                                    pod);
        ASSERT_EQ(x, y) << "job " << job << " task " << task;
        if (x < 0) {
          ++unplaced;
          break;
        }
        const Container c{
            .kind = OwnerKind::kTask, .owner = job, .node = x, .requests = pod.requests};
        with_memo.Add(c);
        without_memo.Add(c);
        memo.Placed(x);
        ++placed;
      }
    }
    EXPECT_GT(placed, 500) << unplaced << " unplaced";
    EXPECT_GT(unplaced, 100) << "the fleet never filled up: " << placed << " placed";
  }
}

}  // namespace
}  // namespace archimedes
