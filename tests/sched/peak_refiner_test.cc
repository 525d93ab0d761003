// RefinePeaks (sched/peak_refiner.h): moves just-placed replicas while the sum of the nodes'
// predicted peaks falls, and only to nodes that pass the scheduler's filters.
#include "sched/peak_refiner.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "sched/plugins/time_aware_fit.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

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
    for (const char* name : {"a", "b"}) {
      nodes_.push_back(Node{.name = name,
                            .capacity = Resources::Of(10000, 64 * kGi),
                            .allocatable = Resources::Of(allocatable_cpu, 64 * kGi)});
    }
    state_.emplace(nodes_);
    load_.emplace(nodes_);
    load_->SetService(0, 0, load_->AddCurve(DayNight(true, 4000, 1000)));
    load_->SetService(1, 1, load_->AddCurve(DayNight(false, 4000, 1000)));
    for (int32_t s : {0, 0, 1, 1}) {
      Container c{.kind = OwnerKind::kService, .owner = s, .node = s, .requests = kRequests};
      ids_.push_back(state_->Add(c));
      load_->AddContainer(c);
      pods_.push_back(PodRequest{.requests = kRequests, .kind = OwnerKind::kService, .owner = s});
    }
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(std::make_unique<TimeAwareFit>());
    scheduler_.emplace(std::move(filters), std::vector<WeightedScorer>{}, SchedulerOptions{});
  }

  RefineResult Refine() {
    auto move = [&](ContainerId id, NodeId to) {
      Container c = state_->container(id);
      load_->RemoveContainer(c);
      state_->Remove(id);
      c.node = to;
      load_->AddContainer(c);
      return state_->Add(c);
    };
    return RefinePeaks(*scheduler_, SchedulingContext{*state_, &*load_}, ids_, pods_, move);
  }

  float CpuPeakSum() const { return load_->peak(0, Dim::kCpu) + load_->peak(1, Dim::kCpu); }

  const Resources kRequests = Resources::Of(2000, 2 * kGi);
  std::vector<Node> nodes_;
  std::optional<ClusterState> state_;
  std::optional<PredictedLoad> load_;
  std::optional<Scheduler> scheduler_;
  std::vector<ContainerId> ids_;
  std::vector<PodRequest> pods_;
};

TEST_F(PeakRefinerTest, MovesReplicasWhileTheSumOfPeaksFalls) {
  Build(10000);
  EXPECT_FLOAT_EQ(CpuPeakSum(), 16000);
  const RefineResult r = Refine();
  EXPECT_FLOAT_EQ(CpuPeakSum(), 10000) << "one day and one night replica per node";
  EXPECT_EQ(r.moves, 2) << "one swap's worth: each move lowers the sum, no move undoes another";
  EXPECT_NEAR(r.gain, 6000.0 / 20000, 1e-6);
  for (size_t i = 0; i < ids_.size(); ++i) {
    ASSERT_TRUE(state_->alive(ids_[i])) << "ids follow the moves";
    EXPECT_EQ(state_->container(ids_[i]).owner, pods_[i].owner);
  }
  EXPECT_EQ(state_->containers_on(0).size(), 2u);
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
