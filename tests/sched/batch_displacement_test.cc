// BatchDisplacement: a service replica prefers nodes where it fits beside the batch already there,
// since batch would yield memory to it by eviction.
#include "sched/plugins/batch_displacement.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/cluster_state.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

TEST(BatchDisplacementTest, ScoresTheBatchMemoryAReplicaWouldDisplace) {
  // 64 GiB nodes: 57.6 GiB under the 10 % buffer.
  std::vector<Node> nodes;
  for (const char* name : {"empty", "little", "much", "full"}) {
    nodes.push_back(Node{.name = name,
                         .capacity = Resources::Of(16'000, 64 * kGi),
                         .allocatable = Resources::Of(16'000, 64 * kGi)});
  }
  ClusterState state(nodes, TaskAccounting::kReclaimed);
  PredictedLoad load(nodes);
  const int64_t batch_gib[] = {0, 10, 40, 56};
  for (NodeId n = 1; n < 4; ++n) {
    state.Add(Container{
        .kind = OwnerKind::kTask, .node = n, .requests = Resources::Of(1'000, batch_gib[n] * kGi)});
  }
  const SchedulingContext ctx{.state = state, .predicted = &load};
  const BatchDisplacement scorer;
  const PodRequest replica{.requests = Resources::Of(2'000, 20 * kGi), .kind = OwnerKind::kService};
  EXPECT_EQ(scorer.Score(ctx, replica, 0), kMaxNodeScore) << "no batch";
  EXPECT_EQ(scorer.Score(ctx, replica, 1), kMaxNodeScore) << "20 + 10 GiB fit";
  // 20 + 40 GiB pass the limit by 2.4 GiB of the replica's 20.
  EXPECT_NEAR(scorer.Score(ctx, replica, 2), kMaxNodeScore * (1 - 2.4 / 20), 1);
  EXPECT_LT(scorer.Score(ctx, replica, 3), scorer.Score(ctx, replica, 2));
  // Services' predicted memory counts as well: 30 GiB of them leave 27.6, the replica and 10 GiB
  // of batch pass it by 2.4 GiB.
  load.Add(1, load.DemandOf(
                  PodRequest{.requests = Resources::Of(0, 30 * kGi), .kind = OwnerKind::kService}));
  EXPECT_NEAR(scorer.Score(ctx, replica, 1), kMaxNodeScore * (1 - 2.4 / 20), 1);
}

}  // namespace
}  // namespace archimedes
