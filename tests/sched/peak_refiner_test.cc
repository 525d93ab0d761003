// RefinePeaks (sched/peak_refiner.h): moves just-placed replicas while the sum of the nodes'
// predicted peaks falls, and only to nodes that pass the scheduler's filters.
#include "sched/peak_refiner.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>

#include "support/movable_fleet.h"

namespace archimedes {
namespace {

using ::archimedes::testing::kGi;
using ::archimedes::testing::MovableFleet;
using ::archimedes::testing::TenCoreNodes;

// cpu at `high` from 08:00 to 20:00 and `low` otherwise (or the reverse), memory flat at 1 GiB.
std::array<DailyCurve, kNumDims> DayNight(bool day, float high, float low) {
  std::array<DailyCurve, kNumDims> c;
  for (int b = 0; b < c[0].bins(); ++b) {
    const bool daytime = b >= 96 && b < 240;
    c[0][b] = daytime == day ? high : low;
    c[1][b] = static_cast<float>(kGi);
  }
  return c;
}

// Two nodes; services 0 (day) and 1 (night), 4 cores at their peak and 1 in their valley. Two
// day replicas share node a and two night replicas node b: each node peaks at 8 cores, where one
// of each per node peaks at 5.
class PeakRefinerTest : public ::testing::Test {
 protected:
  void Build(int64_t allocatable_cpu) {
    fleet_.emplace(TenCoreNodes(2, allocatable_cpu));
    fleet_->load.SetService(0, 0, fleet_->load.AddCurve(DayNight(true, 4000, 1000)));
    fleet_->load.SetService(1, 1, fleet_->load.AddCurve(DayNight(false, 4000, 1000)));
    for (int32_t s : {0, 0, 1, 1}) fleet_->Place(s, s, Resources::Of(2000, 2 * kGi));
  }

  RefineResult Refine() {
    return RefinePeaks(fleet_->scheduler, fleet_->context(), fleet_->ids, fleet_->pods,
                       fleet_->mover());
  }

  float CpuPeakSum() const {
    return fleet_->load.peak(0, Dim::kCpu) + fleet_->load.peak(1, Dim::kCpu);
  }

  std::optional<MovableFleet> fleet_;
};

TEST_F(PeakRefinerTest, MovesReplicasWhileTheSumOfPeaksFalls) {
  Build(10000);
  EXPECT_FLOAT_EQ(CpuPeakSum(), 16000);
  const RefineResult r = Refine();
  EXPECT_FLOAT_EQ(CpuPeakSum(), 10000) << "one day and one night replica per node";
  EXPECT_EQ(r.moves, 2) << "one swap's worth: each move lowers the sum, no move undoes another";
  EXPECT_NEAR(r.gain, 6000.0 / 20000, 1e-6);
  for (size_t i = 0; i < fleet_->ids.size(); ++i) {
    ASSERT_TRUE(fleet_->state.alive(fleet_->ids[i])) << "ids follow the moves";
    EXPECT_EQ(fleet_->state.container(fleet_->ids[i]).owner, fleet_->pods[i].owner);
  }
  EXPECT_EQ(fleet_->state.containers_on(0).size(), 2u);
  EXPECT_EQ(Refine().moves, 0) << "nothing left to gain";
}

// Node b's allocatable holds two replicas' requests: the filters forbid every move onto a full
// node, however much it would lower the peaks.
TEST_F(PeakRefinerTest, MovesOnlyWhereTheFiltersPass) {
  Build(4000);
  const RefineResult r = Refine();
  EXPECT_EQ(r.moves, 0);
  EXPECT_FLOAT_EQ(CpuPeakSum(), 16000);
}

}  // namespace
}  // namespace archimedes
