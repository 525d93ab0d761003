// The engine's SLA record of each contract (Engine::service_sla, Engine::job_sla): what it
// achieved, and each breach with its reason and time, from the engine's own events and actions.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "engine/engine.h"
#include "engine/policy.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

Node MakeNode(const std::string& name, int64_t cpu, int64_t memory) {
  Node n{.name = name, .capacity = Resources::Of(cpu, memory)};
  n.allocatable = n.capacity;
  n.zone = "z";
  n.pod = "p-" + name;
  return n;
}

Service Web(int64_t startup_s) {
  Service s{.name = "web", .requests = Resources::Of(1000, kGi)};
  s.limits = s.requests;
  s.sla = {.availability = 0.99, .min_available = 1};
  s.startup_s = startup_s;
  return s;
}

BatchJob Job(int64_t cpu, int64_t submit, int64_t tolerance) {
  return BatchJob{.name = "j",
                  .submit_time = submit,
                  .tasks = 1,
                  .task_requests = Resources::Of(cpu, kGi),
                  .duration_estimate_s = 600,
                  .duration_s = 600,
                  .delay_tolerance_s = tolerance};
}

std::vector<ContainerId> Bound(Engine& engine) {
  std::vector<ContainerId> bound;
  for (const Action& a : engine.actions()) {
    if (a.kind == ActionKind::kBind) bound.push_back(a.container);
  }
  engine.ClearActions();
  return bound;
}

// A rollout serves from its placement; a lost replica's replacement harms the service until its
// start-up time is over.
TEST(SlaLedgerTest, ServiceAvailabilityCountsReplacementsStartingUp) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 4000, 8 * kGi)}, {Web(90)});
  engine.ScaleService(0, 2);
  engine.Schedule();
  const std::vector<ContainerId> replicas = Bound(engine);
  ASSERT_EQ(replicas.size(), 2U);
  engine.AdvanceTo(100);
  SlaRecord sla = engine.service_sla(0);
  EXPECT_DOUBLE_EQ(sla.target, 0.99);
  EXPECT_DOUBLE_EQ(sla.achieved, 1.0);
  EXPECT_TRUE(sla.honoured);
  EXPECT_TRUE(sla.breaches.empty());

  engine.ContainerOomKilled(replicas[0]);
  engine.Schedule();
  ASSERT_EQ(Bound(engine).size(), 1U);
  engine.AdvanceTo(200);
  sla = engine.service_sla(0);
  // 400 replica-seconds desired, 90 of them missing while the replacement started.
  EXPECT_DOUBLE_EQ(sla.achieved, 310.0 / 400.0);
  EXPECT_FALSE(sla.honoured);
  ASSERT_EQ(sla.breaches.size(), 1U);
  EXPECT_EQ(sla.breaches[0].start, 100);
  EXPECT_EQ(sla.breaches[0].end, 190);
  EXPECT_EQ(sla.breaches[0].reason, "unavailable (OOM-killed)");
}

TEST(SlaLedgerTest, ServiceThatCannotBePlacedIsBelowItsMinimum) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 500, 8 * kGi)}, {Web(0)});
  engine.ScaleService(0, 1);
  engine.Schedule();
  engine.AdvanceTo(60);
  const SlaRecord sla = engine.service_sla(0);
  EXPECT_DOUBLE_EQ(sla.achieved, 0.0);
  ASSERT_EQ(sla.breaches.size(), 1U);
  EXPECT_EQ(sla.breaches[0].start, 0);
  EXPECT_EQ(sla.breaches[0].end, 60);
  EXPECT_EQ(sla.breaches[0].reason, "below minimum availability (not placed)");
  EXPECT_THROW(engine.service_sla(1), std::invalid_argument);
}

TEST(SlaLedgerTest, JobStartedAfterItsToleranceIsLate) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 1000, 8 * kGi)}, {});
  const int32_t j = engine.SubmitJob(Job(2000, 0, 60), 3600);
  engine.Schedule();
  engine.AdvanceTo(100);
  engine.Schedule();
  SlaRecord sla = engine.job_sla(j);
  EXPECT_DOUBLE_EQ(sla.target, 60);
  EXPECT_DOUBLE_EQ(sla.achieved, 100);  // still waiting, past its deadline at 60
  EXPECT_FALSE(sla.honoured);
  ASSERT_EQ(sla.breaches.size(), 1U);
  EXPECT_EQ(sla.breaches[0].start, 60);
  EXPECT_EQ(sla.breaches[0].end, 100);
  EXPECT_EQ(sla.breaches[0].reason, "waiting past its tolerance");
  engine.AdvanceTo(110);
  EXPECT_EQ(engine.job_sla(j).breaches[0].end, 110);
  engine.AddNode(MakeNode("big", 4000, 8 * kGi));
  engine.AdvanceTo(120);
  engine.Schedule();
  sla = engine.job_sla(j);
  EXPECT_EQ(engine.job_status(j).running, 1);
  EXPECT_DOUBLE_EQ(sla.achieved, 120);
  EXPECT_FALSE(sla.honoured);
  ASSERT_EQ(sla.breaches.size(), 1U);
  EXPECT_EQ(sla.breaches[0].start, 120);
  EXPECT_EQ(sla.breaches[0].reason, "started late");
  EXPECT_THROW(engine.job_sla(j + 1), std::invalid_argument);
}

TEST(SlaLedgerTest, JobGivenUpExpiresButACancelledOneDoesNot) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 1000, 8 * kGi)}, {});
  const int32_t expiring = engine.SubmitJob(Job(2000, 0, 60), 300);
  const int32_t cancelled = engine.SubmitJob(Job(2000, 0, 60), 300);
  const int32_t on_time = engine.SubmitJob(Job(500, 0, 60), 300);
  engine.Schedule();
  engine.CancelJob(cancelled);
  engine.AdvanceTo(400);
  engine.Schedule();
  const SlaRecord expired = engine.job_sla(expiring);
  ASSERT_EQ(expired.breaches.size(), 1U);
  EXPECT_EQ(expired.breaches[0].start, 300);
  EXPECT_EQ(expired.breaches[0].reason, "expired");
  EXPECT_FALSE(expired.honoured);
  EXPECT_DOUBLE_EQ(expired.achieved, 300);  // its tasks waited until they were given up
  EXPECT_TRUE(engine.job_sla(cancelled).breaches.empty());
  EXPECT_TRUE(engine.job_sla(on_time).honoured);
  EXPECT_DOUBLE_EQ(engine.job_sla(on_time).achieved, 0);
}

TEST(SlaLedgerTest, RejectedJobIsABreach) {
  Engine engine(MakePolicy("k8s-default"), {}, {MakeNode("a", 1000, 8 * kGi)}, {});
  BatchJob job = Job(500, 0, 60);
  job.tasks = 0;
  const int32_t j = engine.SubmitJob(job, 300);
  const SlaRecord sla = engine.job_sla(j);
  ASSERT_EQ(sla.breaches.size(), 1U);
  EXPECT_EQ(sla.breaches[0].reason, "rejected");
}

// A driver that measures the SLA itself runs without the ledger; the engine's decisions are the
// same, and asking it for a record is a mistake it names.
TEST(SlaLedgerTest, EngineWithoutLedgerDecidesAlikeAndSaysItKeepsNone) {
  const auto run = [](bool ledger) {
    Engine engine(MakePolicy("k8s-default"), EngineOptions{.sla_ledger = ledger},
                  {MakeNode("a", 4000, 8 * kGi)}, {Web(90)});
    std::vector<std::tuple<ActionKind, ContainerId, NodeId>> actions;
    const auto take = [&] {
      for (const Action& a : engine.actions()) actions.emplace_back(a.kind, a.container, a.node);
      engine.ClearActions();
    };
    engine.ScaleService(0, 2);
    const int32_t j = engine.SubmitJob(Job(500, 0, 60), 300);
    engine.Schedule();
    take();
    engine.ContainerOomKilled(std::get<1>(actions.front()));
    engine.Schedule();
    take();
    if (!ledger) {
      EXPECT_THROW(engine.service_sla(0), std::logic_error);
      EXPECT_THROW(engine.job_sla(j), std::logic_error);
    }
    return actions;
  };
  const auto with = run(true);
  EXPECT_EQ(with.size(), 4U);  // two replicas, the task, the lost replica's replacement
  EXPECT_EQ(run(false), with);
}

}  // namespace
}  // namespace archimedes
