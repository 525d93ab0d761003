// MakeRoom (sched/room_maker.h): a replica that fits nowhere gets a node by moving replicas that
// have not started, and nothing moves when no node can be freed for it.
#include "sched/room_maker.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>

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

}  // namespace
}  // namespace archimedes
