// The engine's answers to the world's bad news, through its one interface: a container the kernel
// killed, a replica warned about with nowhere to go, a job that cannot start in time, a node whose
// usage crosses its threshold, a higher priority, a node that leaves — and the SLA key every
// eviction carries (engine/action.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/policy.h"
#include "sched/sla_contract.h"
#include "support/engine_events.h"

namespace archimedes {
namespace {

using testing::kGi;
using testing::MakeJob;
using testing::MakeNode;
using testing::MakeService;
using testing::OfKind;
using testing::Take;

// The kernel's kill is the world's doing: the engine has nothing to carry out for it, takes the
// container out of its view and replaces what was lost — the replica anew, the task from its
// queue (a restart: its first start was the one killed).
TEST(EngineActionsTest, AnOomKilledReplicaIsReplacedAndAnOomKilledTaskRestarts) {
  for (const std::string& name : AllPolicyNames()) {
    Engine engine(MakePolicy(name), {}, {MakeNode("a", 8000, 16 * kGi)},
                  {MakeService("web", 1000, kGi)});
    engine.ScaleService(0, 1);
    const int32_t job = engine.SubmitJob(MakeJob("etl", 1, 1000, kGi), 3600);
    engine.Schedule();
    const std::vector<Action> first = Take(engine);
    ASSERT_EQ(OfKind(first, ActionKind::kBind).size(), 1U) << name;
    ASSERT_EQ(OfKind(first, ActionKind::kStartTask).size(), 1U) << name;
    const ContainerId replica = OfKind(first, ActionKind::kBind)[0].container;
    const ContainerId task = OfKind(first, ActionKind::kStartTask)[0].container;

    engine.AdvanceTo(60);
    engine.ContainerOomKilled(replica);
    EXPECT_TRUE(engine.actions().empty()) << name;
    EXPECT_TRUE(engine.service_status(0).replicas.empty()) << name;
    engine.Schedule();
    const std::vector<Action> binds = OfKind(Take(engine), ActionKind::kBind);
    ASSERT_EQ(binds.size(), 1U) << name;
    EXPECT_EQ(binds[0].service, 0) << name;
    EXPECT_EQ(engine.service_status(0).replicas.size(), 1U) << name;

    engine.AdvanceTo(120);
    engine.ContainerOomKilled(task);
    EXPECT_TRUE(engine.actions().empty()) << name;
    EXPECT_FALSE(engine.cluster().alive(task)) << name;
    JobStatus status = engine.job_status(job);
    EXPECT_EQ(status.running, 0) << name;
    EXPECT_EQ(status.pending, 1) << name;
    engine.Schedule();
    const std::vector<Action> starts = OfKind(Take(engine), ActionKind::kStartTask);
    ASSERT_EQ(starts.size(), 1U) << name;
    EXPECT_EQ(starts[0].job, job) << name;
    EXPECT_FALSE(starts[0].first_start) << name;
    status = engine.job_status(job);
    EXPECT_EQ(status.running, 1) << name;
    EXPECT_EQ(status.first_started, 1) << name;
    EXPECT_EQ(status.failed, 0) << name;
  }
}

// Three replicas with a 1-GiB memory limit on the only node; replica 0 leaks 0.5 GiB an hour
// from 0.5 GiB, its siblings stay at 0.5 GiB. Usage rounds every minute until the engine acts on
// the warning (at most two hours); returns that round's actions, the replicas' ids in `replicas`.
std::vector<Action> LeakUntilWarned(Engine& engine, std::vector<ContainerId>& replicas) {
  engine.ScaleService(0, 3);
  engine.Schedule();
  replicas.clear();
  for (const Action& a : OfKind(Take(engine), ActionKind::kBind)) replicas.push_back(a.container);
  EXPECT_EQ(replicas.size(), 3U);
  for (int64_t t = 60; t <= 7200; t += 60) {
    engine.AdvanceTo(t);
    std::vector<UsageSample> samples;
    for (size_t i = 0; i < replicas.size(); ++i) {
      const double leaked = i == 0 ? 0.5 * kGi * static_cast<double>(t) / 3600.0 : 0;
      samples.push_back(
          {.container = replicas[i],
           .usage = {300.0F, static_cast<float>(0.5 * kGi + leaked), 0.0F, 0.0F, 0.0F}});
    }
    engine.BeginUsageRound(samples);
    engine.ObserveNodeUsage(0, samples);
    engine.EndUsageRound();
    engine.Schedule();
    std::vector<Action> actions = Take(engine);
    std::erase_if(actions, [](const Action& a) { return a.kind == ActionKind::kThrottle; });
    if (!actions.empty()) return actions;
  }
  ADD_FAILURE() << "the leak was never acted on";
  return {};
}

// A replica predicted to reach its memory limit moves make-before-break; with no other node to
// move to, its service runs one replica more while the warned one lives, and once the kernel kills
// it the service is back to what it wants without a replacement.
TEST(EngineActionsTest, AWarnedReplicaWithNowhereToGoScalesItsServiceOut) {
  Engine engine(MakePolicy("archimedes"), {}, {MakeNode("a", 8000, 16 * kGi)},
                {MakeService("web", 1000, kGi)});
  std::vector<ContainerId> replicas;
  const std::vector<Action> actions = LeakUntilWarned(engine, replicas);
  EXPECT_TRUE(OfKind(actions, ActionKind::kMigrate).empty());
  const std::vector<Action> scale_outs = OfKind(actions, ActionKind::kScaleOut);
  ASSERT_EQ(scale_outs.size(), 1U);
  EXPECT_EQ(scale_outs[0].service, 0);
  EXPECT_EQ(scale_outs[0].replicas, 4);
  // The extra replica was placed in the same cycle, beside the warned one.
  const std::vector<Action> binds = OfKind(actions, ActionKind::kBind);
  ASSERT_EQ(binds.size(), 1U);
  EXPECT_EQ(binds[0].service, 0);
  EXPECT_EQ(binds[0].node, 0);
  ServiceStatus status = engine.service_status(0);
  EXPECT_EQ(status.desired, 3);
  EXPECT_EQ(status.extra, 1);
  EXPECT_EQ(status.replicas.size(), 4U);

  engine.AdvanceTo(engine.now() + 60);
  engine.ContainerOomKilled(replicas[0]);
  engine.Schedule();
  EXPECT_TRUE(OfKind(Take(engine), ActionKind::kBind).empty());
  status = engine.service_status(0);
  EXPECT_EQ(status.extra, 0);
  EXPECT_EQ(status.replicas.size(), 3U);
}

// Without the health response the same leak is left to the kernel.
TEST(EngineActionsTest, WithoutAHealthResponseALeakIsNotActedOn) {
  Engine engine(MakePolicy("archimedes-no-health"), {}, {MakeNode("a", 8000, 16 * kGi)},
                {MakeService("web", 1000, kGi)});
  engine.ScaleService(0, 3);
  engine.Schedule();
  std::vector<ContainerId> replicas;
  for (const Action& a : OfKind(Take(engine), ActionKind::kBind)) replicas.push_back(a.container);
  for (int64_t t = 60; t <= 3540; t += 60) {
    engine.AdvanceTo(t);
    std::vector<UsageSample> samples;
    for (size_t i = 0; i < replicas.size(); ++i) {
      const double leaked = i == 0 ? 0.5 * kGi * static_cast<double>(t) / 3600.0 : 0;
      samples.push_back(
          {.container = replicas[i], .usage = {300.0F, static_cast<float>(0.5 * kGi + leaked)}});
    }
    engine.BeginUsageRound(samples);
    engine.ObserveNodeUsage(0, samples);
    engine.EndUsageRound();
    engine.Schedule();
    for (const Action& a : Take(engine)) EXPECT_EQ(a.kind, ActionKind::kThrottle) << t;
  }
}

// One 9-core node with no service: all 9 cores are batch room (no burst buffer where nothing
// bursts).
Engine PlannedEngine() {
  return Engine(MakePolicy("archimedes"), {}, {MakeNode("a", 9'000, 32 * kGi)}, {});
}

// The plan knows ahead of time: a job that cannot start within its tolerance, behind an hour of
// tasks filling the node, is reported when it is planned, long before its deadline, with no start
// in sight (the plan looks for late starts in the current bin only).
TEST(EngineActionsTest, AJobThePlanCannotStartInTimeIsReportedLateAheadOfTime) {
  Engine engine = PlannedEngine();
  BatchJob fill = MakeJob("fill", 9, 1000, kGi);
  fill.duration_estimate_s = fill.duration_s = 3600;
  engine.SubmitJob(fill, 7200);
  BatchJob squeezed = MakeJob("squeezed", 2, 1000, kGi);
  squeezed.delay_tolerance_s = 600;
  const int32_t late = engine.SubmitJob(squeezed, 7200);
  engine.Schedule();
  const std::vector<Action> actions = Take(engine);
  EXPECT_EQ(OfKind(actions, ActionKind::kStartTask).size(), 9U);
  const std::vector<Action> reports = OfKind(actions, ActionKind::kReportLate);
  ASSERT_EQ(reports.size(), 1U);
  EXPECT_EQ(reports[0].job, late);
  EXPECT_EQ(reports[0].tasks, 2);
  EXPECT_EQ(reports[0].expected_start, -1);
  // Once per job: the next plans say nothing more about it.
  for (int64_t t = 300; t <= 900; t += 300) {
    engine.AdvanceTo(t);
    engine.Schedule();
    EXPECT_TRUE(OfKind(Take(engine), ActionKind::kReportLate).empty()) << t;
  }
}

// A job whose tolerance passed before the engine had it (a driver restoring its jobs after a
// restart) is late when planned; it is reported with the start the plan gives it: now.
TEST(EngineActionsTest, ALateJobIsReportedWithTheStartThePlanGivesIt) {
  Engine engine = PlannedEngine();
  engine.Schedule();
  engine.AdvanceTo(600);
  BatchJob restored = MakeJob("restored", 2, 1000, kGi);
  restored.delay_tolerance_s = 60;
  const int32_t j = engine.SubmitJob(restored, 7200);
  engine.Schedule();
  const std::vector<Action> actions = Take(engine);
  const std::vector<Action> reports = OfKind(actions, ActionKind::kReportLate);
  ASSERT_EQ(reports.size(), 1U);
  EXPECT_EQ(reports[0].job, j);
  EXPECT_EQ(reports[0].tasks, 2);
  EXPECT_EQ(reports[0].expected_start, 600);
  EXPECT_EQ(OfKind(actions, ActionKind::kStartTask).size(), 2U);
  // Said before any of its tasks starts late.
  EXPECT_EQ(actions.front().kind, ActionKind::kReportLate);
}

// Issue 15 (8d): lateness is reported whenever a plan puts a start past the tolerance, also when
// the job is fitted into the plan between full re-plans: at once, not at its deadline.
TEST(EngineActionsTest, AJobFittedBetweenReplansIsReportedLateAtOnce) {
  Engine engine = PlannedEngine();
  BatchJob fill = MakeJob("fill", 9, 1000, kGi);
  fill.duration_estimate_s = fill.duration_s = 3600;
  engine.SubmitJob(fill, 7200);
  engine.Schedule();
  Take(engine);
  engine.AdvanceTo(10);
  BatchJob squeezed = MakeJob("squeezed", 2, 1000, kGi);
  squeezed.submit_time = 10;
  squeezed.delay_tolerance_s = 100;
  const int32_t j = engine.SubmitJob(squeezed, 7200);
  engine.Schedule();
  const std::vector<Action> reports = OfKind(Take(engine), ActionKind::kReportLate);
  ASSERT_EQ(reports.size(), 1U);
  EXPECT_EQ(reports[0].job, j);
  EXPECT_EQ(reports[0].tasks, 2);
  EXPECT_EQ(reports[0].expected_start, -1);
  engine.AdvanceTo(200);
  engine.Schedule();
  EXPECT_TRUE(OfKind(Take(engine), ActionKind::kReportLate).empty());
}

// Between full re-plans too, a job that is late when planned is reported with the start the plan
// gives it, before its tasks start.
TEST(EngineActionsTest, ALateJobFittedBetweenReplansIsReportedBeforeItStarts) {
  Engine engine = PlannedEngine();
  engine.Schedule();
  engine.AdvanceTo(100);
  BatchJob restored = MakeJob("restored", 2, 1000, kGi);
  restored.delay_tolerance_s = 60;
  const int32_t j = engine.SubmitJob(restored, 7200);
  engine.Schedule();
  const std::vector<Action> actions = Take(engine);
  ASSERT_EQ(actions.size(), 3U);
  EXPECT_EQ(actions[0].kind, ActionKind::kReportLate);
  EXPECT_EQ(actions[0].job, j);
  EXPECT_EQ(actions[0].tasks, 2);
  EXPECT_EQ(actions[0].expected_start, 100);
  EXPECT_EQ(actions[1].kind, ActionKind::kStartTask);
  EXPECT_EQ(actions[2].kind, ActionKind::kStartTask);
}

// A job partly placed in time is reported for its late tasks, with the start of the first of
// them — none in sight here — not the start of those in time.
TEST(EngineActionsTest, APartlyLateJobIsReportedForItsLateTasksOnly) {
  Engine engine = PlannedEngine();
  BatchJob fill = MakeJob("fill", 8, 1000, kGi);
  fill.duration_estimate_s = fill.duration_s = 3600;
  engine.SubmitJob(fill, 7200);
  engine.Schedule();
  Take(engine);
  engine.AdvanceTo(10);
  BatchJob three = MakeJob("three", 3, 1000, kGi);
  three.submit_time = 10;
  three.delay_tolerance_s = 100;
  const int32_t j = engine.SubmitJob(three, 7200);
  engine.Schedule();
  const std::vector<Action> actions = Take(engine);
  EXPECT_EQ(OfKind(actions, ActionKind::kStartTask).size(), 1U);
  const std::vector<Action> reports = OfKind(actions, ActionKind::kReportLate);
  ASSERT_EQ(reports.size(), 1U);
  EXPECT_EQ(reports[0].job, j);
  EXPECT_EQ(reports[0].tasks, 2);
  EXPECT_EQ(reports[0].expected_start, -1);
}

// Two services alone over the CPU threshold of the only node: the SLA order gives up a replica of
// the lower-priority one, the newest (nowhere to move it), and the eviction carries its key.
TEST(EngineActionsTest, PressureEvictsTheReplicaTheSlaOrderPutsFirstAndCarriesItsKey) {
  Service low = MakeService("low", 1000, kGi);
  low.priority = 10;
  Service high = MakeService("high", 1000, kGi);
  high.priority = 100;
  Engine engine(MakePolicy("archimedes"), {}, {MakeNode("a", 8000, 16 * kGi)}, {low, high});
  engine.ScaleService(0, 1);
  engine.ScaleService(1, 1);
  engine.Schedule();
  engine.AdvanceTo(10);
  engine.ScaleService(0, 2);
  engine.Schedule();
  Take(engine);
  const std::vector<ContainerId> lows(engine.service_status(0).replicas.begin(),
                                      engine.service_status(0).replicas.end());
  ASSERT_EQ(lows.size(), 2U);
  const ContainerId top = engine.service_status(1).replicas[0];
  engine.AdvanceTo(600);
  // 2 × 2.2 + 3.2 = 7.6 cores: over the 90 % threshold by 0.4 core, which any replica covers.
  const std::vector<UsageSample> samples = {{.container = lows[0], .usage = {2200.0F, 1.0F * kGi}},
                                            {.container = lows[1], .usage = {2200.0F, 1.0F * kGi}},
                                            {.container = top, .usage = {3200.0F, 1.0F * kGi}}};
  engine.BeginUsageRound(samples);
  engine.ObserveNodeUsage(0, samples);
  const std::vector<Action> evictions = OfKind(Take(engine), ActionKind::kEvict);
  ASSERT_EQ(evictions.size(), 1U);
  const Action& e = evictions[0];
  EXPECT_EQ(e.reason, EvictReason::kPressure);
  EXPECT_EQ(e.container, lows[1]);
  EXPECT_EQ(e.service, 0);
  EXPECT_EQ(e.sla.kind, OwnerKind::kService);
  EXPECT_EQ(e.sla.priority, 10);
  EXPECT_DOUBLE_EQ(e.sla.loss, ReplicaLoss(2));
  EXPECT_EQ(e.sla.start_time, 10);
  // Before both replicas that stayed.
  const SlaKey older_low{
      .kind = OwnerKind::kService, .priority = 10, .loss = ReplicaLoss(2), .start_time = 0};
  const SlaKey high_key{
      .kind = OwnerKind::kService, .priority = 100, .loss = ReplicaLoss(1), .start_time = 0};
  EXPECT_TRUE(EvictsBefore(e.sla, older_low));
  EXPECT_TRUE(EvictsBefore(e.sla, high_key));
}

// A service bursting in memory on a node shared with batch: batch yields, the fewest tasks with
// the least progress first, and each eviction carries the task's key.
TEST(EngineActionsTest, BatchYieldsToABurstingServiceTheTaskWithLeastProgressFirst) {
  Service web = MakeService("web", 1000, 8 * kGi);
  web.limits = Resources{};
  Engine engine(MakePolicy("archimedes"), {}, {MakeNode("a", 8000, 16 * kGi)}, {web});
  engine.ScaleService(0, 1);
  BatchJob job = MakeJob("etl", 2, 500, 2 * kGi);
  job.priority = 3;
  const int32_t j = engine.SubmitJob(job, 7200);
  engine.Schedule();
  const std::vector<Action> started = Take(engine);
  const std::vector<Action> starts = OfKind(started, ActionKind::kStartTask);
  ASSERT_EQ(starts.size(), 2U);
  const ContainerId replica = OfKind(started, ActionKind::kBind).at(0).container;
  engine.AdvanceTo(60);
  // 11 GiB of service memory leaves batch 16 × 0.9 − 11 = 3.4 GiB: one 2-GiB task must go.
  const std::vector<UsageSample> fleet = {{.container = replica, .usage = {500.0F, 11.0F * kGi}}};
  const std::vector<UsageSample> samples = {fleet[0],
                                            {.container = starts[0].container,
                                             .usage = {500.0F, 2.0F * kGi},
                                             .work_done_s = 50,
                                             .work_total_s = 600},
                                            {.container = starts[1].container,
                                             .usage = {500.0F, 2.0F * kGi},
                                             .work_done_s = 30,
                                             .work_total_s = 600}};
  engine.BeginUsageRound(fleet);
  engine.ObserveNodeUsage(0, samples);
  const std::vector<Action> evictions = OfKind(Take(engine), ActionKind::kEvict);
  ASSERT_EQ(evictions.size(), 1U);
  const Action& e = evictions[0];
  EXPECT_EQ(e.reason, EvictReason::kYield);
  EXPECT_EQ(e.container, starts[1].container);
  EXPECT_EQ(e.job, j);
  EXPECT_EQ(e.sla.kind, OwnerKind::kTask);
  EXPECT_EQ(e.sla.priority, 3);
  EXPECT_DOUBLE_EQ(e.sla.loss, TaskLoss(30, 600));
  EXPECT_EQ(e.sla.start_time, 0);
}

// Preemption chooses by priority, lowest first and newest among equals; its evictions carry the
// victims' keys all the same. A task that never reported its work is judged by its time running
// over its job's estimate.
TEST(EngineActionsTest, PreemptionVictimsCarryTheirSlaKeys) {
  Service low = MakeService("low", 1000, kGi);
  low.priority = 10;
  Service critical = MakeService("critical", 3000, kGi);
  critical.priority = 100;
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)}, {low, critical});
  engine.ScaleService(0, 2);
  BatchJob job = MakeJob("etl", 2, 1000, kGi);
  job.priority = 5;
  const int32_t j = engine.SubmitJob(job, 7200);
  engine.Schedule();
  const std::vector<Action> placed = Take(engine);
  const std::vector<Action> starts = OfKind(placed, ActionKind::kStartTask);
  ASSERT_EQ(starts.size(), 2U);
  ASSERT_EQ(OfKind(placed, ActionKind::kBind).size(), 2U);
  engine.AdvanceTo(150);
  engine.ScaleService(1, 1);
  engine.Schedule();
  const std::vector<Action> actions = Take(engine);
  const std::vector<Action> evictions = OfKind(actions, ActionKind::kEvict);
  // 3 cores for the critical replica: both tasks (priority 5) and one low replica go.
  ASSERT_EQ(evictions.size(), 3U);
  for (const Action& e : evictions) EXPECT_EQ(e.reason, EvictReason::kPreemption);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(evictions[i].job, j);
    EXPECT_EQ(evictions[i].sla.kind, OwnerKind::kTask);
    EXPECT_EQ(evictions[i].sla.priority, 5);
    EXPECT_DOUBLE_EQ(evictions[i].sla.loss, TaskLoss(150, 600));
    EXPECT_EQ(evictions[i].sla.start_time, 0);
  }
  EXPECT_EQ(evictions[2].service, 0);
  EXPECT_EQ(evictions[2].sla.kind, OwnerKind::kService);
  EXPECT_EQ(evictions[2].sla.priority, 10);
  EXPECT_DOUBLE_EQ(evictions[2].sla.loss, ReplicaLoss(2));
  EXPECT_EQ(evictions[2].sla.start_time, 0);
  ASSERT_EQ(OfKind(actions, ActionKind::kBind).size(), 1U);
  EXPECT_EQ(OfKind(actions, ActionKind::kBind)[0].service, 1);
}

// A node leaving the fleet is drained lowest priority first; each eviction carries its key, the
// task's loss from the work it last reported.
TEST(EngineActionsTest, DrainEvictionsCarryTheirSlaKeysInDrainOrder) {
  Service web = MakeService("web", 1000, kGi);
  web.priority = 100;
  Engine engine(MakePolicy("reclaim"), {}, {MakeNode("a", 8000, 16 * kGi)}, {web});
  engine.ScaleService(0, 2);
  engine.Schedule();
  engine.AdvanceTo(60);
  const int32_t j = engine.SubmitJob(MakeJob("etl", 1, 1000, kGi), 7200);
  engine.Schedule();
  const std::vector<Action> started = OfKind(Take(engine), ActionKind::kStartTask);
  ASSERT_EQ(started.size(), 1U);
  const ContainerId task = started[0].container;
  const std::vector<ContainerId> replicas(engine.service_status(0).replicas.begin(),
                                          engine.service_status(0).replicas.end());
  engine.AdvanceTo(360);
  std::vector<UsageSample> samples = {{.container = replicas[0], .usage = {500.0F, 1.0F * kGi}},
                                      {.container = replicas[1], .usage = {500.0F, 1.0F * kGi}}};
  engine.BeginUsageRound(samples);
  samples.push_back(
      {.container = task, .usage = {1000.0F, 1.0F * kGi}, .work_done_s = 240, .work_total_s = 600});
  engine.ObserveNodeUsage(0, samples);
  engine.EndUsageRound();
  Take(engine);
  engine.AddNode(MakeNode("b", 8000, 16 * kGi));
  engine.RemoveNode(0);
  const std::vector<Action> evictions = OfKind(Take(engine), ActionKind::kEvict);
  ASSERT_EQ(evictions.size(), 3U);
  for (const Action& e : evictions) EXPECT_EQ(e.reason, EvictReason::kNodeRemoved);
  EXPECT_EQ(evictions[0].container, task);
  EXPECT_EQ(evictions[0].job, j);
  EXPECT_EQ(evictions[0].sla.kind, OwnerKind::kTask);
  EXPECT_EQ(evictions[0].sla.priority, 0);
  EXPECT_DOUBLE_EQ(evictions[0].sla.loss, TaskLoss(240, 600));
  EXPECT_EQ(evictions[0].sla.start_time, 60);
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(evictions[i].service, 0);
    EXPECT_EQ(evictions[i].sla.kind, OwnerKind::kService);
    EXPECT_EQ(evictions[i].sla.priority, 100);
    EXPECT_DOUBLE_EQ(evictions[i].sla.loss, ReplicaLoss(2));
    EXPECT_EQ(evictions[i].sla.start_time, 0);
  }
}

}  // namespace
}  // namespace archimedes
