// MakeRoom (sched/room_maker.h): a replica that fits nowhere gets a node by moving replicas that
// have not started, and nothing moves when no node can be freed for it.
#include "sched/room_maker.h"

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
    for (const char* name : {"a", "b"}) {
      nodes_.push_back(Node{.name = name,
                            .capacity = Resources::Of(10000, 64 * kGi),
                            .allocatable = Resources::Of(8000, 64 * kGi)});
    }
    state_.emplace(nodes_);
    load_.emplace(nodes_);
    load_->SetService(0, 0, load_->AddCurve(Flat(1500)));
    load_->SetService(1, 1, load_->AddCurve(Flat(pending_usage)));
    for (NodeId n : {0, 0, 0, 1, 1}) {
      const Resources requests = Resources::Of(2000, kGi);
      Container c{.kind = OwnerKind::kService, .owner = 0, .node = n, .requests = requests};
      ids_.push_back(state_->Add(c));
      load_->AddContainer(c);
      pods_.push_back(PodRequest{.requests = requests, .kind = OwnerKind::kService, .owner = 0});
    }
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(std::make_unique<TimeAwareFit>());
    scheduler_.emplace(std::move(filters), std::vector<WeightedScorer>{}, SchedulerOptions{});
  }

  NodeId Run() {
    auto move = [&](ContainerId id, NodeId to) {
      Container c = state_->container(id);
      load_->RemoveContainer(c);
      state_->Remove(id);
      c.node = to;
      load_->AddContainer(c);
      return state_->Add(c);
    };
    return MakeRoom(*scheduler_, SchedulingContext{*state_, &*load_}, kPending, ids_, pods_, move);
  }

  std::array<size_t, 2> Residents() const {
    return {state_->containers_on(0).size(), state_->containers_on(1).size()};
  }

  const PodRequest kPending{
      .requests = Resources::Of(6000, kGi), .kind = OwnerKind::kService, .owner = 1};
  std::vector<Node> nodes_;
  std::optional<ClusterState> state_;
  std::optional<PredictedLoad> load_;
  std::optional<Scheduler> scheduler_;
  std::vector<ContainerId> ids_;
  std::vector<PodRequest> pods_;
};

TEST_F(MakeRoomTest, MovesAReplicaThatHasNotStartedToFitOneThatFitsNowhere) {
  Build(5000);
  ASSERT_FALSE(scheduler_->AnyFeasible(SchedulingContext{*state_, &*load_}, kPending));
  EXPECT_EQ(Run(), 1) << "b lacks the least";
  EXPECT_EQ(Residents(), (std::array<size_t, 2>{4, 1}));
  EXPECT_TRUE(scheduler_->Feasible(SchedulingContext{*state_, &*load_}, kPending, 1));
  for (ContainerId id : ids_) EXPECT_TRUE(state_->alive(id)) << "ids follow the moves";
}

// Service 1 uses 8 cores: beside any 1.5-core replica it crosses the 9-core limit, so no node can
// be freed for it. Moves are tried (one from b to a, then two from a to b) and undone.
TEST_F(MakeRoomTest, UndoesEveryMoveWhenThePodStillDoesNotFit) {
  Build(8000);
  EXPECT_EQ(Run(), -1);
  EXPECT_EQ(Residents(), (std::array<size_t, 2>{3, 2}));
  for (ContainerId id : ids_) EXPECT_TRUE(state_->alive(id));
  EXPECT_FLOAT_EQ(load_->peak(0, Dim::kCpu), 4500);
  EXPECT_FLOAT_EQ(load_->peak(1, Dim::kCpu), 3000);
}

}  // namespace
}  // namespace archimedes
