// Memory leaks, memory limits, readiness and acting on health warnings in the simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/health_monitor.h"
#include "engine/policy.h"
#include "sim/simulator.h"
#include "sim/usage_model.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kHours = int64_t{4} * 3600;

Node MakeNode(std::string name, int64_t cpu, int64_t memory) {
  return Node{.name = std::move(name),
              .capacity = Resources::Of(cpu, memory),
              .allocatable = Resources::Of(cpu, memory)};
}

// `replicas` of 1 core and 1 GiB with a 1 GiB memory limit; usage in 5-minute steps.
Service LimitedService(const std::string& name, int replicas) {
  Service s{.name = name,
            .app = name,
            .replicas = replicas,
            .requests = Resources::Of(1000, kGi),
            .limits = Resources::Of(0, kGi),
            .priority = 100};
  s.usage.step_seconds = 300;
  return s;
}

// Three replicas using a flat 0.5 GiB against a 1 GiB limit; a leak fills the 0.5 GiB headroom in
// two hours, at 0.5 leaks per day of container age.
Service LeakyService() {
  Service s = LimitedService("web", 3);
  s.usage.values[0] = std::vector<float>(12, 300.0f);
  s.usage.values[1] = std::vector<float>(12, 0.5f * kGi);
  s.usage.leak_per_day = 0.5f;
  s.usage.leak_rate = 0.5f * kGi / 7200.0f;
  return s;
}

// A seed under which replica 0's first incarnation starts leaking between 10 min and 1 h and the
// other two do not leak within the run: the leak is caught, or OOM-killed, well inside the run.
uint64_t OneLeakSeed(const Service& s) {
  for (uint64_t seed = 1; seed < 10'000; ++seed) {
    if (LeakedMemory(s, 0, 0, 0, 600, seed) == 0 && LeakedMemory(s, 0, 0, 0, 3600, seed) > 0 &&
        LeakedMemory(s, 0, 1, 0, kHours, seed) == 0 &&
        LeakedMemory(s, 0, 2, 0, kHours, seed) == 0) {
      return seed;
    }
  }
  ADD_FAILURE() << "no seed with one early leak";
  return 0;
}

struct Outcome {
  Metrics metrics;
  std::vector<ContractRecord> records;
};

Outcome Simulate(std::vector<Node> nodes, const Service& service, const std::string& policy_name) {
  Scenario scenario;
  scenario.duration_s = kHours;
  scenario.nodes = std::move(nodes);
  scenario.workload.services.push_back(service);
  Outcome run;
  Policy policy = MakePolicy(policy_name);
  SimOptions options{.seed = service.usage.leak_per_day > 0 ? OneLeakSeed(service) : 1,
                     .warmup_s = 600};
  options.sla_records = &run.records;
  run.metrics = archimedes::Simulate(scenario, policy, options);
  return run;
}

bool HasBreach(const ContractRecord& r, const std::string& reason) {
  for (const Breach& b : r.breaches) {
    if (b.reason == reason) return true;
  }
  return false;
}

TEST(LeakTest, ALeakBelongsToItsIncarnation) {
  const Service s = LeakyService();
  int leaking_within_a_day = 0;
  constexpr int kIncarnations = 2000;
  for (int i = 0; i < kIncarnations; ++i) {
    const int64_t start = int64_t{i} * 3600;
    // A fresh container starts clean, whatever the one before it in the slot had leaked.
    EXPECT_EQ(LeakedMemory(s, 0, 0, start, start, 1), 0.0);
    leaking_within_a_day += LeakedMemory(s, 0, 0, start, start + kSecondsPerDay, 1) > 0;
  }
  // Exponential onset at 0.5 per day: 1 − e^−0.5 ≈ 39 % of incarnations leak within a day.
  EXPECT_NEAR(leaking_within_a_day / static_cast<double>(kIncarnations), 1 - std::exp(-0.5), 0.04);
  // Once it has begun, the leak grows at its rate.
  const uint64_t seed = OneLeakSeed(s);
  EXPECT_NEAR(LeakedMemory(s, 0, 0, 0, int64_t{3} * 3600, seed) -
                  LeakedMemory(s, 0, 0, 0, int64_t{2} * 3600, seed),
              s.usage.leak_rate * 3600.0, 1.0);
  const Usage u = ServiceContainerUsage(s, 0, 0, 0, int64_t{3} * 3600, seed);
  EXPECT_FLOAT_EQ(u[1], 0.5f * kGi + LeakedMemory(s, 0, 0, 0, int64_t{3} * 3600, seed));
}

TEST(HealthActionTest, WithoutActionsTheLeakIsOomKilledAndBreaches) {
  const Outcome r = Simulate({MakeNode("a", 8000, 8 * kGi), MakeNode("b", 8000, 8 * kGi)},
                             LeakyService(), "archimedes-no-health");
  EXPECT_EQ(r.metrics.oom_kills, 1);
  EXPECT_EQ(r.metrics.health_migrations + r.metrics.health_scale_outs, 0);
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_LT(r.records[0].achieved, 1.0);
  EXPECT_TRUE(HasBreach(r.records[0], "OOM-killed"));
}

TEST(HealthActionTest, AWarnedLeakMovesMakeBeforeBreakBeforeItsOomKill) {
  const Outcome r = Simulate({MakeNode("a", 8000, 8 * kGi), MakeNode("b", 8000, 8 * kGi)},
                             LeakyService(), "archimedes");
  EXPECT_EQ(r.metrics.health_migrations, 1);  // the replacement does not leak: one move only
  EXPECT_EQ(r.metrics.migrations, 1);
  EXPECT_EQ(r.metrics.health_scale_outs, 0);
  EXPECT_EQ(r.metrics.oom_kills, 0);
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].achieved, 1.0);  // no replica-time lost to the move
  EXPECT_TRUE(r.records[0].breaches.empty());
}

// One replica whose own usage climbs towards its 1 GiB limit every other hour and falls back:
// no leak, every incarnation does it. The first warning moves it; when the replacement is warned
// in turn, moving has proved useless and the service's warnings are no longer acted on.
TEST(HealthActionTest, AMoveThatDoesNotCureTheTrendIsNotRepeated) {
  Service s = LimitedService("ramp", 1);
  s.usage.values[0] = std::vector<float>(24, 300.0f);
  for (int i = 0; i < 24; ++i) {
    const float climb = i < 12 ? static_cast<float>(i) / 11.0f : 0.0f;
    s.usage.values[1].push_back((0.3f + 0.68f * climb) * kGi);
  }
  Scenario scenario;
  scenario.duration_s = 3 * kHours;
  scenario.nodes = {MakeNode("a", 8000, 8 * kGi), MakeNode("b", 8000, 8 * kGi)};
  scenario.workload.services.push_back(s);
  Policy policy = MakePolicy("archimedes");
  const Metrics m = archimedes::Simulate(scenario, policy, SimOptions{.warmup_s = 600});
  EXPECT_EQ(m.health_migrations, 1);
  EXPECT_EQ(m.health_scale_outs, 0);
  EXPECT_EQ(m.oom_kills, 0);
}

TEST(HealthActionTest, WithNowhereToMoveTheServiceScalesOut) {
  // One node: a replacement needs another node, one more replica does not.
  const Outcome r = Simulate({MakeNode("a", 8000, 8 * kGi)}, LeakyService(), "archimedes");
  EXPECT_EQ(r.metrics.health_migrations, 0);
  EXPECT_EQ(r.metrics.health_scale_outs, 1);
  EXPECT_EQ(r.metrics.oom_kills, 1);  // the warned replica still dies, but is not missed
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].achieved, 1.0);
}

TEST(ServicePhysicsTest, MemoryAboveTheLimitIsOomKilledUnderEveryPolicy) {
  Service s = LeakyService();
  s.usage.leak_per_day = 0;
  s.usage.values[1] = std::vector<float>(12, 1.5f * kGi);  // above its 1 GiB limit, node has room
  for (const std::string policy : {"k8s-default", "reclaim", "archimedes"}) {
    const Outcome r = Simulate({MakeNode("a", 8000, 8 * kGi)}, s, policy);
    EXPECT_GT(r.metrics.oom_kills, 100) << policy;  // killed again at every tick
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_LT(r.records[0].achieved, 0.01) << policy;  // never ready
    EXPECT_TRUE(HasBreach(r.records[0], "OOM-killed")) << policy;
  }
  s.limits = Resources{};
  EXPECT_EQ(Simulate({MakeNode("a", 8000, 8 * kGi)}, s, "k8s-default").metrics.oom_kills, 0);
}

TEST(ServicePhysicsTest, AReplacedReplicaIsUnavailableUntilItIsReady) {
  auto harmed_after_failure = [](int64_t startup_s) {
    Service s = LeakyService();
    s.usage.leak_per_day = 0;
    s.startup_s = startup_s;
    Scenario scenario;
    scenario.duration_s = kHours;
    scenario.nodes = {MakeNode("a", 8000, 8 * kGi), MakeNode("b", 8000, 8 * kGi)};
    scenario.workload.services.push_back(s);
    scenario.workload.node_events.push_back(
        {.time = 3600, .kind = NodeEvent::Kind::kFail, .node = "a"});
    std::vector<ContractRecord> records;
    Policy policy = MakePolicy("k8s-default");
    SimOptions options{.warmup_s = 1800};
    options.sla_records = &records;
    const Metrics m = archimedes::Simulate(scenario, policy, options);
    EXPECT_GE(m.failure_kills, 1);
    const double replica_ticks = 3.0 * (kHours - 1800) / 60.0;
    return std::lround((1.0 - records.at(0).achieved) * replica_ticks);
  };
  // The replacements start in the failure's own second: ready at once, nothing is lost; with a
  // 10-minute start-up each one misses the ten ticks of its start-up.
  EXPECT_EQ(harmed_after_failure(0), 0);
  const long killed = harmed_after_failure(600);
  EXPECT_GT(killed, 0);
  EXPECT_EQ(killed % 10, 0);
}

TEST(HealthMonitorTest, SiblingsOfTwoAreEachOther) {
  HealthMonitor monitor;
  std::vector<std::pair<ContainerId, HealthFinding>> findings;
  for (int64_t t = 0; t < 3600; t += 60) {
    const float leaky = 1000.0f + static_cast<float>(t);
    const std::vector<ReplicaSample> replicas = {{.id = 0, .start_time = 0, .memory = leaky},
                                                 {.id = 1, .start_time = 0, .memory = 1000.0f}};
    monitor.ObserveService(t, replicas, 10'000.0, findings);
  }
  ASSERT_FALSE(findings.empty());
  for (const auto& [id, f] : findings) EXPECT_EQ(id, 0);
  // A new incarnation in the same container id starts without history.
  findings.clear();
  const std::vector<ReplicaSample> fresh = {{.id = 0, .start_time = 3600, .memory = 1000.0f},
                                            {.id = 1, .start_time = 0, .memory = 1000.0f}};
  for (int64_t t = 3600; t < 7200; t += 60) monitor.ObserveService(t, fresh, 10'000.0, findings);
  EXPECT_TRUE(findings.empty());
}

}  // namespace
}  // namespace archimedes
