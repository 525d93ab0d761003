// MakeRoom (sched/room_maker.h): a replica that fits nowhere gets a node by moving replicas that
// have not started, and nothing moves when no node can be freed for it. Repack: the cycle placed
// again by requests, decided on a copy.
#include "sched/room_maker.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>

#include "sched/kubernetes_scheduler.h"
#include "support/movable_fleet.h"

namespace archimedes {
namespace {

using ::archimedes::testing::kGi;
using ::archimedes::testing::MovableFleet;
using ::archimedes::testing::TenCoreNodes;

std::array<DailyCurve, kNumDims> Flat(float cpu) {
  std::array<DailyCurve, kNumDims> c;
  for (int b = 0; b < c[0].bins(); ++b) {
    c[0][b] = cpu;
    c[1][b] = static_cast<float>(kGi);
  }
  return c;
}

// Nodes a and b (10 cores, 8 allocatable): three 2-core replicas of service 0 on a, two on b, each
// using 1.5 cores. Service 1 requests 6 cores: 2 are free on a and 4 on b.
class MakeRoomTest : public ::testing::Test {
 protected:
  void Build(float pending_usage) {
    fleet_.emplace(TenCoreNodes(2, 8000));
    fleet_->load.SetService(0, 0, fleet_->load.AddCurve(Flat(1500)));
    fleet_->load.SetService(1, 1, fleet_->load.AddCurve(Flat(pending_usage)));
    for (NodeId n : {0, 0, 0, 1, 1}) fleet_->Place(0, n, Resources::Of(2000, kGi));
  }

  NodeId Run() {
    return MakeRoom(fleet_->scheduler, fleet_->context(), kPending, fleet_->ids, fleet_->pods,
                    fleet_->mover());
  }

  std::array<size_t, 2> Residents() const {
    return {fleet_->state.containers_on(0).size(), fleet_->state.containers_on(1).size()};
  }

  const PodRequest kPending{
      .requests = Resources::Of(6000, kGi), .kind = OwnerKind::kService, .owner = 1};
  std::optional<MovableFleet> fleet_;
};

TEST_F(MakeRoomTest, MovesAReplicaThatHasNotStartedToFitOneThatFitsNowhere) {
  Build(5000);
  ASSERT_FALSE(fleet_->scheduler.AnyFeasible(fleet_->context(), kPending));
  EXPECT_EQ(Run(), 1) << "b lacks the least";
  EXPECT_EQ(Residents(), (std::array<size_t, 2>{4, 1}));
  EXPECT_TRUE(fleet_->scheduler.Feasible(fleet_->context(), kPending, 1));
  for (ContainerId id : fleet_->ids) EXPECT_TRUE(fleet_->state.alive(id)) << "ids follow the moves";
}

// Service 1 uses 8 cores: beside any 1.5-core replica it crosses the 9-core limit, so no node can
// be freed for it. Moves are tried (one from b to a, then two from a to b) and undone.
TEST_F(MakeRoomTest, UndoesEveryMoveWhenThePodStillDoesNotFit) {
  Build(8000);
  EXPECT_EQ(Run(), -1);
  EXPECT_EQ(Residents(), (std::array<size_t, 2>{3, 2}));
  for (ContainerId id : fleet_->ids) EXPECT_TRUE(fleet_->state.alive(id));
  EXPECT_FLOAT_EQ(fleet_->load.peak(0, Dim::kCpu), 4500);
  EXPECT_FLOAT_EQ(fleet_->load.peak(1, Dim::kCpu), 3000);
}

// Nodes a (10 allocatable cores) and b, c (6 each); the cycle placed 4 cores on b and c each
// and 6 on a, so no node holds the 6-core replica; placed again from the start, the largest
// room (a's) goes to the first replica and the 6 cores fit.
TEST(RepackTest, DecidesTheCycleAgainOnACopyAndLeavesTheFleetAlone) {
  std::vector<Node> nodes = TenCoreNodes(3, 6000);
  nodes[0].allocatable = Resources::Of(10000, 64 * kGi);
  MovableFleet fleet(nodes);
  fleet.Place(0, 1, Resources::Of(4000, kGi));
  fleet.Place(0, 2, Resources::Of(4000, kGi));
  fleet.Place(1, 0, Resources::Of(6000, kGi));
  Scheduler kube = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  const PodRequest pending{.requests = Resources::Of(6000, kGi), .owner = 2};
  ASSERT_FALSE(kube.AnyFeasible(SchedulingContext{fleet.state}, pending));

  const Repacking r = Repack(kube, fleet.state, 0, pending, fleet.ids, fleet.pods);
  ASSERT_GE(r.pod_node, 0);
  ASSERT_EQ(r.movable_nodes.size(), 3u);
  // Every placement fits, counted in the order decided.
  std::array<int64_t, 3> used{};
  for (size_t i = 0; i < 3; ++i) used[r.movable_nodes[i]] += fleet.pods[i].requests.cpu();
  used[r.pod_node] += 6000;
  for (NodeId n = 0; n < 3; ++n) EXPECT_LE(used[n], nodes[n].allocatable.cpu()) << n;
  // Nothing moved.
  EXPECT_EQ(fleet.state.container(fleet.ids[0]).node, 1);
  EXPECT_EQ(fleet.state.container(fleet.ids[2]).node, 0);
  EXPECT_EQ(fleet.state.requested(0).cpu(), 6000);
}

TEST(RepackTest, DecidesNothingWhenOneOfThemFindsNoNode) {
  MovableFleet fleet(TenCoreNodes(2, 6000));
  fleet.Place(0, 0, Resources::Of(4000, kGi));
  fleet.Place(0, 1, Resources::Of(4000, kGi));
  Scheduler kube = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  const PodRequest pending{.requests = Resources::Of(5000, kGi), .owner = 1};
  const Repacking r = Repack(kube, fleet.state, 0, pending, fleet.ids, fleet.pods);
  EXPECT_EQ(r.pod_node, -1);
  EXPECT_TRUE(r.movable_nodes.empty());
}

}  // namespace
}  // namespace archimedes
