#include "sched/migration.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sched/kubernetes_scheduler.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/resource_allocation.h"

namespace archimedes {
namespace {

Node MakeNode(const char* name, int64_t cpu) {
  return Node{.name = name,
              .capacity = Resources::Of(cpu, int64_t{64} << 30),
              .allocatable = Resources::Of(cpu, int64_t{64} << 30)};
}

PodRequest ReplicaPod(int64_t cpu) {
  return {.requests = Resources::Of(cpu, int64_t{1} << 30),
          .priority = 5,
          .kind = OwnerKind::kService,
          .owner = 0};
}

ContainerId Place(ClusterState& state, NodeId node, const PodRequest& pod) {
  return state.Add(Container{.kind = pod.kind,
                             .owner = pod.owner,
                             .index = 0,
                             .node = node,
                             .requests = pod.requests,
                             .priority = pod.priority});
}

// Records, on every filter call, whether the migrating container was still running.
class WitnessFilter : public FilterPlugin {
 public:
  explicit WitnessFilter(ContainerId watched) : watched_(watched) {}
  std::string_view name() const override { return "Witness"; }
  bool Filter(const SchedulingContext& ctx, const PodRequest&, NodeId) const override {
    ++calls;
    old_alive_every_time = old_alive_every_time && ctx.state.alive(watched_);
    return true;
  }
  mutable int calls = 0;
  mutable bool old_alive_every_time = true;

 private:
  ContainerId watched_;
};

TEST(MigrationTest, ReplacementIsPlacedElsewhereBeforeTheOldOneStops) {
  // The source is the emptiest node, so LeastAllocated would pick it were it not excluded.
  ClusterState state({MakeNode("a", 16000), MakeNode("b", 8000), MakeNode("c", 8000)});
  const PodRequest pod = ReplicaPod(2000);
  Place(state, 1, ReplicaPod(1000));
  Place(state, 2, ReplicaPod(3000));
  const ContainerId old = Place(state, 0, pod);
  Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  const auto m = StartMigration(state, scheduler, SchedulingContext{state}, old, pod, 77);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->old_container, old);
  EXPECT_EQ(m->source, 0);
  EXPECT_EQ(m->target, 1);
  EXPECT_TRUE(state.alive(old));
  ASSERT_TRUE(state.alive(m->replacement));
  const Container& replacement = state.container(m->replacement);
  EXPECT_EQ(replacement.node, 1);
  EXPECT_EQ(replacement.owner, 0);
  EXPECT_EQ(replacement.start_time, 77);
  EXPECT_EQ(state.requested(1).cpu(), 3000);
  EXPECT_TRUE(state.ready(0));
}

TEST(MigrationTest, TheSchedulerSeesTheOldContainerRunning) {
  ClusterState state({MakeNode("a", 8000), MakeNode("b", 8000)});
  const PodRequest pod = ReplicaPod(2000);
  const ContainerId old = Place(state, 0, pod);
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  auto witness = std::make_unique<WitnessFilter>(old);
  const WitnessFilter* seen = witness.get();
  filters.push_back(std::move(witness));
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<LeastAllocated>(), 1});
  Scheduler scheduler(std::move(filters), std::move(scorers), SchedulerOptions{});
  const auto m = StartMigration(state, scheduler, SchedulingContext{state}, old, pod, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->target, 1);
  EXPECT_GT(seen->calls, 0);
  EXPECT_TRUE(seen->old_alive_every_time);
}

TEST(MigrationTest, NoCapacityElsewhereChangesNothing) {
  ClusterState state({MakeNode("a", 8000), MakeNode("b", 8000)});
  const PodRequest pod = ReplicaPod(4000);
  Place(state, 1, ReplicaPod(6000));
  const ContainerId old = Place(state, 0, pod);
  Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  EXPECT_FALSE(StartMigration(state, scheduler, SchedulingContext{state}, old, pod, 0).has_value());
  EXPECT_EQ(state.num_containers(), 2);
  EXPECT_TRUE(state.alive(old));
  EXPECT_TRUE(state.ready(0));
  EXPECT_EQ(state.requested(1).cpu(), 6000);
}

TEST(MigrationTest, ExcludedNodesAreNoTargetAndStayReady) {
  // LeastAllocated would pick b, the emptiest node but the source; b is excluded, so c it is.
  ClusterState state({MakeNode("a", 8000), MakeNode("b", 16000), MakeNode("c", 8000)});
  const PodRequest pod = ReplicaPod(2000);
  Place(state, 2, ReplicaPod(1000));
  const ContainerId old = Place(state, 0, pod);
  Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  const std::vector<NodeId> excluded = {1};
  const auto m = StartMigration(state, scheduler, SchedulingContext{state}, old, pod, 0, excluded);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->target, 2);
  EXPECT_TRUE(state.ready(0));
  EXPECT_TRUE(state.ready(1));
  // With every other node excluded there is nowhere to go, and nothing changes.
  const std::vector<NodeId> all_others = {1, 2};
  EXPECT_FALSE(StartMigration(state, scheduler, SchedulingContext{state}, m->replacement, pod, 0,
                              std::vector<NodeId>{0, 1})
                   .has_value());
  EXPECT_FALSE(StartMigration(state, scheduler, SchedulingContext{state}, old, pod, 0, all_others)
                   .has_value());
  EXPECT_EQ(state.num_containers(), 3);
  EXPECT_TRUE(state.ready(1) && state.ready(2));
}

TEST(MigrationTest, AFailedSourceStaysNotReady) {
  ClusterState state({MakeNode("a", 8000), MakeNode("b", 8000)});
  const PodRequest pod = ReplicaPod(2000);
  const ContainerId old = Place(state, 0, pod);
  state.SetCondition(0, NodeCondition::kNotReady);
  Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  const auto m = StartMigration(state, scheduler, SchedulingContext{state}, old, pod, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->target, 1);
  EXPECT_FALSE(state.ready(0));
}

TEST(MigrationRuleTest, NoMigrationWithoutNeed) {
  EXPECT_EQ(ShouldMigrate(OwnerKind::kService, {}), MigrationTrigger::kNone);
  EXPECT_EQ(ShouldMigrate(OwnerKind::kService, {.breach_lead_time_s = 7200}),
            MigrationTrigger::kNone);
  EXPECT_EQ(
      ShouldMigrate(OwnerKind::kTask,
                    {.node_offline = true, .overload_beyond_batch = true, .breach_lead_time_s = 0}),
      MigrationTrigger::kNone);
}

TEST(MigrationRuleTest, MigratesWhenTheContractWouldBreak) {
  EXPECT_EQ(ShouldMigrate(OwnerKind::kService, {.node_offline = true}),
            MigrationTrigger::kNodeOffline);
  EXPECT_EQ(ShouldMigrate(OwnerKind::kService, {.overload_beyond_batch = true}),
            MigrationTrigger::kOverloadBeyondBatch);
  EXPECT_EQ(ShouldMigrate(OwnerKind::kService, {.breach_lead_time_s = 600}),
            MigrationTrigger::kPredictedBreach);
  EXPECT_EQ(ShouldMigrate(OwnerKind::kService, {.breach_lead_time_s = 7200},
                          MigrationRule{.breach_horizon_s = 7200}),
            MigrationTrigger::kPredictedBreach);
  EXPECT_EQ(MigrationTriggerName(MigrationTrigger::kOverloadBeyondBatch), "overload-beyond-batch");
}

}  // namespace
}  // namespace archimedes
