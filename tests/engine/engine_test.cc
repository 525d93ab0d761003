// The engine through its one interface: events in, actions out (engine/engine.h).
#include "engine/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/policy.h"
#include "support/engine_events.h"

namespace archimedes {
namespace {

using testing::kGi;
using testing::MakeJob;
using testing::MakeNode;
using testing::MakeService;
using testing::Nodes;
using testing::OfKind;
using testing::Take;

TEST(EngineTest, BindsTheReplicasOfAScaledServiceAndReportsThem) {
  Engine engine(MakePolicy("k8s-default"), {},
                {MakeNode("a", 4000, 8 * kGi), MakeNode("b", 4000, 8 * kGi)},
                {MakeService("web", 1000, kGi)});
  engine.ScaleService(0, 3);
  engine.Schedule();
  const std::vector<Action> binds = OfKind(Take(engine), ActionKind::kBind);
  ASSERT_EQ(binds.size(), 3U);
  const ServiceStatus status = engine.service_status(0);
  EXPECT_EQ(status.desired, 3);
  ASSERT_EQ(status.replicas.size(), 3U);
  for (const Action& a : binds) {
    EXPECT_EQ(a.service, 0);
    EXPECT_TRUE(engine.cluster().alive(a.container));
    EXPECT_EQ(engine.cluster().container(a.container).node, a.node);
  }
  // Nothing changed: a cycle decides nothing.
  engine.Schedule();
  EXPECT_TRUE(engine.actions().empty());
  // Scaling down stops the newest replica, as planned: not an eviction.
  engine.ScaleService(0, 2);
  const std::vector<Action> stops = Take(engine);
  ASSERT_EQ(stops.size(), 1U);
  EXPECT_EQ(stops[0].kind, ActionKind::kStop);
  EXPECT_EQ(stops[0].container, binds.back().container);
}

// Kubernetes' NodeAffinity filter: a replica with a nodeSelector lands only on a node with the
// labels (the GPU trace pins services to a gpu-model this way), under every policy.
TEST(EngineTest, EveryPolicyHonoursTheNodeSelector) {
  for (const std::string& name : AllPolicyNames()) {
    std::vector<Node> nodes = Nodes(4, 8000, 32 * kGi);
    nodes[2].labels["gpu-model"] = "A100";
    Service gpu = MakeService("trainer", 1000, 4 * kGi);
    gpu.node_selector = {{"gpu-model", "A100"}};
    Engine engine(MakePolicy(name), {}, nodes, {gpu});
    engine.ScaleService(0, 3);
    engine.Schedule();
    const std::vector<Action> binds = OfKind(Take(engine), ActionKind::kBind);
    ASSERT_EQ(binds.size(), 3U) << name;
    for (const Action& a : binds) EXPECT_EQ(a.node, 2) << name;
    // Without the label no node is eligible: the fourth replica waits.
    engine.SetNodeLabels(2, {});
    engine.ScaleService(0, 4);
    engine.Schedule();
    EXPECT_TRUE(OfKind(Take(engine), ActionKind::kBind).empty()) << name;
    EXPECT_EQ(engine.service_status(0).replicas.size(), 3U) << name;
  }
}

// A Policy is a recipe: running it changes nothing in it, and two engines built from one Policy
// decide alike.
TEST(EngineTest, OnePolicyDrivesManyEnginesAlike) {
  const Policy policy = MakePolicy("archimedes");
  auto run = [&policy] {
    Engine engine(policy, {.seed = 7}, Nodes(6, 8000, 16 * kGi),
                  {MakeService("api", 1500, 2 * kGi), MakeService("db", 2500, 6 * kGi)});
    engine.ScaleService(0, 5);
    engine.ScaleService(1, 3);
    engine.SubmitJob(MakeJob("etl", 8, 1000, kGi), 3600);
    std::vector<std::pair<ActionKind, NodeId>> decided;
    for (int64_t t = 0; t < 5; ++t) {
      engine.AdvanceTo(t);
      engine.Schedule();
      for (const Action& a : Take(engine)) decided.emplace_back(a.kind, a.node);
    }
    return decided;
  };
  const auto first = run();
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(run(), first);
  EXPECT_EQ(policy.name, "archimedes");
}

// Only policies with a strategy that reads usage (relief, health, reclaimed capacity) want the
// rounds' samples; the simulator sends the others none.
TEST(EngineTest, SaysWhetherItsPolicyReadsUsage) {
  const std::vector<Node> nodes = {MakeNode("a", 4000, 8 * kGi)};
  EXPECT_FALSE(Engine(MakePolicy("k8s-default"), {}, nodes, {}).reads_usage());
  EXPECT_FALSE(Engine(MakePolicy("k8s-binpack"), {}, nodes, {}).reads_usage());
  EXPECT_TRUE(Engine(MakePolicy("reclaim"), {}, nodes, {}).reads_usage());
  EXPECT_TRUE(Engine(MakePolicy("archimedes"), {}, nodes, {}).reads_usage());
  // Only a policy that moves replicas judges targets by the whole fleet's usage.
  EXPECT_FALSE(Engine(MakePolicy("reclaim"), {}, nodes, {}).reads_fleet_usage());
  EXPECT_TRUE(Engine(MakePolicy("archimedes"), {}, nodes, {}).reads_fleet_usage());
}

// A gang that finds room for only some of its tasks takes them back; its failure, on a fleet that
// held them, must not rule out a smaller job of the same task shape in the same cycle.
TEST(EngineTest, ATakenBackGangDoesNotRuleOutItsTaskShape) {
  for (const std::string& policy : {"k8s-default", "reclaim"}) {
    SCOPED_TRACE(policy);
    Engine engine(MakePolicy(policy), {}, {MakeNode("a", 4000, 8 * kGi)}, {});
    BatchJob gang = MakeJob("gang", 3, 2000, kGi);
    gang.gang = true;
    const int32_t gang_id = engine.SubmitJob(gang, 1000);
    const int32_t single = engine.SubmitJob(MakeJob("single", 1, 2000, kGi), 1000);
    engine.Schedule();
    const std::vector<Action> starts = OfKind(Take(engine), ActionKind::kStartTask);
    ASSERT_EQ(starts.size(), 1U);
    EXPECT_EQ(starts[0].job, single);
    EXPECT_EQ(engine.job_status(gang_id).running, 0);
  }
}

TEST(EngineTest, StartsTasksAndCountsThemThroughTheirLives) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)}, {});
  const int32_t job = engine.SubmitJob(MakeJob("render", 6, 1000, kGi), 1000);
  engine.Schedule();
  const std::vector<Action> starts = OfKind(Take(engine), ActionKind::kStartTask);
  ASSERT_EQ(starts.size(), 4U);  // four cores
  for (const Action& a : starts) {
    EXPECT_EQ(a.job, job);
    EXPECT_TRUE(a.first_start);
  }
  JobStatus status = engine.job_status(job);
  EXPECT_EQ(status.running, 4);
  EXPECT_EQ(status.pending, 2);
  engine.AdvanceTo(600);
  engine.ContainerFinished(starts[0].container);
  engine.ContainerFailed(starts[1].container);  // a crash: the task goes back to the queue
  engine.Schedule();
  const std::vector<Action> more = OfKind(Take(engine), ActionKind::kStartTask);
  ASSERT_EQ(more.size(), 2U);
  EXPECT_TRUE(more[0].first_start);
  EXPECT_TRUE(more[1].first_start);
  status = engine.job_status(job);
  EXPECT_EQ(status.finished, 1);
  EXPECT_EQ(status.running, 4);
  EXPECT_EQ(status.pending, 1);
  EXPECT_EQ(status.first_started, 6);
  // Cancelled: what has not started fails, what runs stops.
  engine.AdvanceTo(700);
  engine.CancelJob(job);
  status = engine.job_status(job);
  EXPECT_EQ(status.pending + status.running, 0);
  EXPECT_EQ(status.failed, 5);
  EXPECT_EQ(OfKind(Take(engine), ActionKind::kStop).size(), 4U);
}

TEST(EngineTest, RejectsAJobThatCanNeverRunWithItsReason) {
  Engine engine(MakePolicy("archimedes"), {}, {MakeNode("a", 4000, 8 * kGi)}, {});
  BatchJob none = MakeJob("nothing", 0, 1000, kGi);
  const int32_t rejected = engine.SubmitJob(none, 1000);
  const int32_t fine = engine.SubmitJob(MakeJob("fine", 1, 1000, kGi), 1000);
  std::vector<Action> actions = Take(engine);
  ASSERT_EQ(actions.size(), 1U);
  EXPECT_EQ(actions[0].kind, ActionKind::kReject);
  EXPECT_EQ(actions[0].job, rejected);
  EXPECT_EQ(actions[0].message, "job \"nothing\": tasks is 0; a job needs at least one task");
  EXPECT_TRUE(engine.job_status(rejected).rejected);
  engine.Schedule();
  actions = Take(engine);
  ASSERT_EQ(OfKind(actions, ActionKind::kStartTask).size(), 1U);
  EXPECT_EQ(OfKind(actions, ActionKind::kStartTask)[0].job, fine);
}

TEST(EngineTest, AFailedNodesReplicasArePlacedElsewhere) {
  Engine engine(MakePolicy("k8s-default"), {},
                {MakeNode("a", 4000, 8 * kGi), MakeNode("b", 4000, 8 * kGi)},
                {MakeService("web", 1000, kGi)});
  engine.ScaleService(0, 2);
  engine.Schedule();
  Take(engine);
  const NodeId failed = engine.cluster().container(engine.service_status(0).replicas[0]).node;
  engine.AdvanceTo(10);
  engine.FailNode(failed);
  EXPECT_TRUE(engine.actions().empty());  // the world lost them: nothing to carry out
  engine.Schedule();
  const std::vector<Action> binds = OfKind(Take(engine), ActionKind::kBind);
  EXPECT_FALSE(binds.empty());
  for (const Action& a : binds) EXPECT_NE(a.node, failed);
  EXPECT_EQ(engine.service_status(0).replicas.size(), 2U);
  engine.RecoverNode(failed);
  EXPECT_TRUE(engine.cluster().ready(failed));
}

TEST(EngineTest, AHigherPriorityReplicaPreemptsALowerOne) {
  Service low = MakeService("batchy", 3000, kGi);
  low.priority = 0;
  Service high = MakeService("critical", 3000, kGi);
  high.priority = 100;
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)}, {low, high});
  engine.ScaleService(0, 1);
  engine.Schedule();
  const ContainerId victim = OfKind(Take(engine), ActionKind::kBind).at(0).container;
  engine.AdvanceTo(1);
  engine.ScaleService(1, 1);
  engine.Schedule();
  const std::vector<Action> actions = Take(engine);
  const std::vector<Action> evictions = OfKind(actions, ActionKind::kEvict);
  ASSERT_EQ(evictions.size(), 1U);
  EXPECT_EQ(evictions[0].container, victim);
  EXPECT_EQ(evictions[0].reason, EvictReason::kPreemption);
  ASSERT_EQ(OfKind(actions, ActionKind::kBind).size(), 1U);
  EXPECT_EQ(OfKind(actions, ActionKind::kBind)[0].service, 1);
}

TEST(EngineTest, RemovingANodeEvictsItsContainersWhichGoElsewhere) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)},
                {MakeService("web", 1000, kGi)});
  engine.ScaleService(0, 2);
  engine.Schedule();
  Take(engine);
  const NodeId b = engine.AddNode(MakeNode("b", 4000, 8 * kGi));
  engine.RemoveNode(0);
  const std::vector<Action> evictions = OfKind(Take(engine), ActionKind::kEvict);
  ASSERT_EQ(evictions.size(), 2U);
  for (const Action& a : evictions) EXPECT_EQ(a.reason, EvictReason::kNodeRemoved);
  engine.Schedule();
  for (const Action& a : OfKind(Take(engine), ActionKind::kBind)) EXPECT_EQ(a.node, b);
  EXPECT_THROW(engine.RecoverNode(0), std::invalid_argument);
}

// Under a reclaiming policy the node caps batch at the burst buffer: the engine says so once, and
// again only when the cap changes.
TEST(EngineTest, ThrottlesBatchAtTheBufferOnceObserved) {
  Engine engine(MakePolicy("reclaim"), {}, {MakeNode("a", 10000, 8 * kGi)}, {});
  engine.BeginUsageRound({});
  engine.ObserveNodeUsage(0, {});
  engine.EndUsageRound();
  const std::vector<Action> throttles = OfKind(Take(engine), ActionKind::kThrottle);
  ASSERT_EQ(throttles.size(), 1U);
  EXPECT_DOUBLE_EQ(throttles[0].limits.cpu, 9000);
  EXPECT_EQ(throttles[0].limits.io_throttle, 1);
  engine.AdvanceTo(60);
  engine.BeginUsageRound({});
  engine.ObserveNodeUsage(0, {});
  engine.EndUsageRound();
  EXPECT_TRUE(Take(engine).empty());
}

// Two replicas of a service whose start-up takes `startup_s` on node a (8 cores), node b added
// empty; at t = 600 both replicas use 3.8 cores: node a runs at 95 %, over the 90 % threshold.
// Returns the actions the engine takes on node a's usage.
std::vector<Action> OverloadNodeA(std::unique_ptr<Engine>& engine, int64_t startup_s) {
  Service web = MakeService("web", 1000, kGi);
  web.startup_s = startup_s;
  engine = std::make_unique<Engine>(MakePolicy("archimedes"), EngineOptions{},
                                    std::vector<Node>{MakeNode("a", 8000, 16 * kGi)},
                                    std::vector<Service>{web});
  engine->ScaleService(0, 2);
  engine->Schedule();
  const std::vector<Action> binds = OfKind(Take(*engine), ActionKind::kBind);
  EXPECT_EQ(binds.size(), 2U);
  engine->AddNode(MakeNode("b", 8000, 16 * kGi));
  engine->AdvanceTo(600);
  std::vector<UsageSample> samples;
  samples.reserve(binds.size());
  for (const Action& bind : binds) {
    samples.push_back({.container = bind.container, .usage = {3800.0F, 0.5F * kGi}});
  }
  engine->BeginUsageRound(samples);
  engine->ObserveNodeUsage(0, samples);
  return Take(*engine);
}

// A service alone over the CPU threshold is relieved make-before-break: the replacement starts
// elsewhere, and the old replica (not yet serving: still starting) stops once the replacement is
// up.
TEST(EngineTest, MovesAReplicaOffAnOverloadedNodeMakeBeforeBreak) {
  std::unique_ptr<Engine> engine;
  const std::vector<Action> moves = OfKind(OverloadNodeA(engine, 900), ActionKind::kMigrate);
  ASSERT_EQ(moves.size(), 1U);
  EXPECT_EQ(moves[0].node, 1);
  EXPECT_EQ(moves[0].trigger, MigrationTrigger::kOverloadBeyondBatch);
  const ContainerId old = moves[0].replaced;
  engine->ObserveNodeUsage(1, {});
  engine->EndUsageRound();
  Take(*engine);
  // The old replica serves until the replacement reports it is up.
  EXPECT_TRUE(engine->cluster().alive(old));
  EXPECT_EQ(engine->cluster().container(old).node, 0);
  engine->AdvanceTo(610);
  engine->ContainerStarted(moves[0].container);
  const std::vector<Action> stops = OfKind(Take(*engine), ActionKind::kStop);
  ASSERT_EQ(stops.size(), 1U);
  EXPECT_EQ(stops[0].container, old);
  EXPECT_FALSE(engine->cluster().alive(old));
  EXPECT_EQ(engine->service_status(0).replicas.size(), 2U);
}

// Without a report, a replacement is taken as ready once its service's start-up time has passed.
TEST(EngineTest, AMoveFinishesAfterTheStartUpTimeWithoutAReport) {
  std::unique_ptr<Engine> engine;
  ASSERT_EQ(OfKind(OverloadNodeA(engine, 900), ActionKind::kMigrate).size(), 1U);
  engine->EndUsageRound();
  Take(*engine);
  engine->AdvanceTo(1499);
  EXPECT_TRUE(engine->actions().empty());
  engine->AdvanceTo(1500);
  EXPECT_EQ(OfKind(Take(*engine), ActionKind::kStop).size(), 1U);
}

// A replica that serves from a node over its threshold serves nobody while it waits for its
// replacement: once the service can spare it, it stops at once.
TEST(EngineTest, AServingMoverOnAHotNodeStopsAtOnce) {
  std::unique_ptr<Engine> engine;
  const std::vector<Action> actions = OverloadNodeA(engine, 90);
  const std::vector<Action> moves = OfKind(actions, ActionKind::kMigrate);
  ASSERT_EQ(moves.size(), 1U);
  const std::vector<Action> stops = OfKind(actions, ActionKind::kStop);
  ASSERT_EQ(stops.size(), 1U);
  EXPECT_EQ(stops[0].container, moves[0].replaced);
}

TEST(EngineTest, BadEventsNameTheirInputAndChangeNothing) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)},
                {MakeService("web", 1000, kGi)});
  engine.AdvanceTo(100);
  EXPECT_THROW(engine.AdvanceTo(99), std::invalid_argument);
  EXPECT_THROW(engine.FailNode(3), std::invalid_argument);
  EXPECT_THROW(engine.ScaleService(1, 1), std::invalid_argument);
  EXPECT_THROW(engine.ScaleService(0, -1), std::invalid_argument);
  EXPECT_THROW(engine.ContainerFinished(0), std::invalid_argument);
  EXPECT_THROW(engine.CreateService(MakeService("web", 1, 1)), std::invalid_argument);
  try {
    engine.FailNode(7);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find('7'), std::string::npos) << e.what();
  }
  EXPECT_EQ(engine.now(), 100);
  EXPECT_TRUE(engine.cluster().ready(0));
  EXPECT_TRUE(engine.actions().empty());
}

TEST(EngineTest, ADeletedServiceStopsItsReplicasAndTakesNoMoreEvents) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)},
                {MakeService("web", 1000, kGi)});
  engine.ScaleService(0, 2);
  engine.Schedule();
  Take(engine);
  engine.DeleteService(0);
  EXPECT_EQ(OfKind(Take(engine), ActionKind::kStop).size(), 2U);
  EXPECT_TRUE(engine.service_status(0).replicas.empty());
  EXPECT_THROW(engine.ScaleService(0, 1), std::invalid_argument);
  // Its name is free again.
  EXPECT_EQ(engine.CreateService(MakeService("web", 500, kGi)), 1);
}

TEST(EngineTest, AServiceCreatedLaterIsPlacedByProfilesToo) {
  Engine engine(MakePolicy("archimedes"), {}, {MakeNode("a", 8000, 16 * kGi)}, {});
  const int32_t s = engine.CreateService(MakeService("late", 1000, kGi));
  engine.ScaleService(s, 2);
  engine.Schedule();
  EXPECT_EQ(OfKind(Take(engine), ActionKind::kBind).size(), 2U);
}

TEST(PolicyTest, UnknownPolicyNamesTheKnownOnes) {
  try {
    MakePolicy("k8s-fancy");
    FAIL();
  } catch (const std::invalid_argument& e) {
    for (const std::string& name : AllPolicyNames()) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(PolicyNames(),
            (std::vector<std::string>{"k8s-default", "k8s-binpack", "reclaim", "archimedes"}));
}

TEST(PolicyTest, ABufferReplacesThePolicysOwnWhereItKeepsOne) {
  for (const std::string name : {"reclaim", "archimedes"}) {
    const Policy policy = MakePolicy(name, 0.25);
    EXPECT_DOUBLE_EQ(policy.buffer, 0.25) << name;
    EXPECT_DOUBLE_EQ(policy.traits.buffer, 0.25) << name;
    EXPECT_DOUBLE_EQ(MakePolicy(name).buffer, 0.10) << name;
    EXPECT_THROW(MakePolicy(name, -0.01), std::invalid_argument) << name;
    EXPECT_THROW(MakePolicy(name, 0.91), std::invalid_argument) << name;
    EXPECT_THROW(MakePolicy(name, std::nan("")), std::invalid_argument) << name;
  }
  for (const std::string name : {"k8s-default", "k8s-binpack"}) {
    EXPECT_FALSE(MakePolicy(name).keeps_buffer);
    EXPECT_THROW(MakePolicy(name, 0.1), std::invalid_argument) << name;
  }
}

// What drivers read of a policy is what its strategies are, as the engine built from it runs them.
TEST(PolicyTest, TraitsSayWhatTheStrategiesAre) {
  const std::map<std::string, PolicyTraits> expected = {
      {"k8s-default", {.uses_profiles = false, .batch_accounting = TaskAccounting::kAllocatable}},
      {"k8s-binpack", {.uses_profiles = false, .batch_accounting = TaskAccounting::kAllocatable}},
      {"reclaim", {.uses_profiles = false, .batch_accounting = TaskAccounting::kReclaimed}},
      {"archimedes", {.uses_profiles = true, .batch_accounting = TaskAccounting::kReclaimed}}};
  for (const std::string& name : AllPolicyNames()) {
    const Policy policy = MakePolicy(name);
    EXPECT_DOUBLE_EQ(policy.traits.buffer, policy.buffer) << name;
    const Engine engine(policy, {}, {MakeNode("a", 4000, 8 * kGi)}, {});
    EXPECT_EQ(policy.traits.batch_accounting, engine.cluster().accounting()) << name;
    const std::string family = name.starts_with("archimedes") ? "archimedes" : name;
    ASSERT_TRUE(expected.contains(family)) << name;
    EXPECT_EQ(policy.traits.uses_profiles, expected.at(family).uses_profiles) << name;
    EXPECT_EQ(policy.traits.batch_accounting, expected.at(family).batch_accounting) << name;
  }
}

}  // namespace
}  // namespace archimedes
