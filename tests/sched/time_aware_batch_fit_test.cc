// TimeAwareBatchFit: a task fits the services' predicted valleys for its whole run, and the room
// services leave now.
#include "sched/plugins/time_aware_batch_fit.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/cluster_state.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

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

}  // namespace
}  // namespace archimedes
