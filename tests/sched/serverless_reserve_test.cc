// The serverless reserve: offline tasks leave it free, in the plan and on the greedy path, and
// serverless tasks may use it.
#include <gtest/gtest.h>

#include <vector>

#include "model/cluster_state.h"
#include "sched/batch_planner.h"
#include "sched/plugins/time_aware_batch_fit.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kBin = 300;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int kBins = 24;

// Plans `jobs` on one node of 16 cores and 64 GiB whose services use 2 cores all day: 12.4 cores
// are reclaimable (16 × 0.9 − 2).
BatchPlanner PlanOnOneNode(const std::vector<PendingJob>& jobs, const Resources& reserve) {
  const std::vector<Resources> capacity = {Resources::Of(16'000, 64 * kGi)};
  std::vector<float> usage(static_cast<size_t>(kNumDims) * kBins, 0.0f);
  for (int b = 0; b < kBins; ++b) usage[b] = 2'000;
  const std::vector<Resources> reserves = {reserve};
  BatchPlanner planner(PlannerOptions{.bin_seconds = kBin, .horizon_bins = kBins});
  planner.Replan(PlannerInput{.now = 0,
                              .capacity = capacity,
                              .service_usage = usage,
                              .usage_bins = kBins,
                              .serverless_reserve = reserves,
                              .pending = jobs});
  return planner;
}

PendingJob Job(JobType type, int tasks, int priority) {
  return PendingJob{.type = type,
                    .task_requests = Resources::Of(2'000, 2 * kGi),
                    .tasks = tasks,
                    .priority = priority,
                    .delay_tolerance_s = kBins * kBin,
                    .duration_estimate_s = 3 * kBin};
}

int StartingNow(const BatchPlanner& planner, int32_t job) {
  int n = 0;
  for (const TaskPlacement& p : planner.start_now()) n += p.job == job;
  return n;
}

TEST(ServerlessReserveTest, OfflineTasksLeaveTheReserveFreeServerlessMayUseIt) {
  const std::vector<PendingJob> jobs = {Job(JobType::kOffline, 10, 200),
                                        Job(JobType::kServerless, 2, 100)};
  // Without a reserve the offline job takes six of the 12.4 cores' 2-core slots now and the
  // serverless tasks, planned after it, wait for them to end.
  const BatchPlanner open = PlanOnOneNode(jobs, Resources{});
  EXPECT_EQ(StartingNow(open, 0), 6);
  EXPECT_EQ(StartingNow(open, 1), 0);

  // With 4 cores reserved, the offline job stops at four (8 ≤ 12.4 − 4) and the serverless
  // tasks start at once in the reserve.
  const BatchPlanner reserved = PlanOnOneNode(jobs, Resources::Of(4'000, 0));
  EXPECT_EQ(StartingNow(reserved, 0), 4);
  EXPECT_EQ(StartingNow(reserved, 1), 2);
  for (int b = 0; b < kBins; ++b) {
    int64_t offline = 0;
    for (const TaskPlacement& p : reserved.placements()) {
      if (p.job == 0 && p.start_bin <= b && b < p.start_bin + 3) offline += 2'000;
    }
    EXPECT_LE(offline, 12'400 - 4'000) << "bin " << b;
  }
}

TEST(ServerlessReserveTest, GreedyBatchFitKeepsTheReserveForServerless) {
  Node node{.name = "n",
            .capacity = Resources::Of(9'000, 64 * kGi),
            .allocatable = Resources::Of(9'000, 64 * kGi)};
  ClusterState state({node}, TaskAccounting::kReclaimed);
  PredictedLoad load({node});  // no services: all 9 cores usable (no buffer where nothing bursts)
  const std::vector<Resources> reserve = {Resources::Of(4'000, 0)};
  const SchedulingContext ctx{.state = state, .predicted = &load, .serverless_reserve = reserve};
  const TimeAwareBatchFit fit;
  PodRequest task{
      .requests = Resources::Of(6'000, kGi), .kind = OwnerKind::kTask, .duration_estimate_s = 600};
  EXPECT_FALSE(fit.Filter(ctx, task, 0)) << "6 cores would enter the 4-core reserve";
  task.serverless = true;
  EXPECT_TRUE(fit.Filter(ctx, task, 0));
  task.serverless = false;
  task.requests = Resources::Of(5'000, kGi);
  EXPECT_TRUE(fit.Filter(ctx, task, 0));
  const SchedulingContext open{.state = state, .predicted = &load};
  task.requests = Resources::Of(9'000, kGi);
  EXPECT_TRUE(fit.Filter(open, task, 0));
}

TEST(ServerlessReserveTest, GreedyBatchFitTakesGpuOnlyByRequest) {
  Node node{.name = "g",
            .capacity = Resources::Of(32'000, 128 * kGi, 0, 0, 1'000),
            .allocatable = Resources::Of(32'000, 128 * kGi, 0, 0, 1'000)};
  ClusterState state({node}, TaskAccounting::kReclaimed);
  PredictedLoad load({node});
  // Services request 600 of the node's 1,000 milli-GPU, so batch may hold 400.
  const std::vector<Resources> batch_allocatable = {Resources::Of(28'800, 115 * kGi, 0, 0, 400)};
  const SchedulingContext ctx{
      .state = state, .predicted = &load, .batch_allocatable = batch_allocatable};
  const TimeAwareBatchFit fit;
  PodRequest task{.requests = Resources::Of(1'000, kGi, 0, 0, 500),
                  .kind = OwnerKind::kTask,
                  .duration_estimate_s = 600};
  EXPECT_FALSE(fit.Filter(ctx, task, 0));
  task.requests = Resources::Of(1'000, kGi, 0, 0, 400);
  EXPECT_TRUE(fit.Filter(ctx, task, 0));
  const SchedulingContext unknown{.state = state, .predicted = &load};
  EXPECT_FALSE(fit.Filter(unknown, task, 0)) << "no batch allocatable: no GPU for batch";
}

}  // namespace
}  // namespace archimedes
