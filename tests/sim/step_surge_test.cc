// Overload relief when usage jumps in one step (a sales day opening): the moves it starts must
// neither keep the source hot while their replacements start, nor land on a node the same step
// has already filled.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/policy.h"
#include "profile/profiler.h"
#include "sim/simulator.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int kStepsPerDay = 288;
constexpr size_t kTwoDays = size_t{2} * kStepsPerDay;
constexpr int kStepSeconds = kSecondsPerDay / kStepsPerDay;
constexpr int kSurgeStep = kStepsPerDay + 120;  // 10:00 on the second day

// A flat profile of `cpu` millicores and 0.5 GiB: what a warm-up day without the surge shows.
AppProfile FlatProfile(const std::string& app, float cpu) {
  AppProfile p{.app = app};
  p.mean[0] = DailyCurve(DailyCurve::kDefaultBins, cpu);
  p.high[0] = p.mean[0];
  p.peak[0] = cpu;
  p.mean[1] = DailyCurve(DailyCurve::kDefaultBins, 0.5f * kGi);
  p.high[1] = p.mean[1];
  p.peak[1] = 0.5f * kGi;
  return p;
}

// A service whose replicas use `before` millicores until the surge step and `after` from it on.
Service SteppingService(const std::string& name, int replicas, int min_available, float before,
                        float after) {
  Service s{.name = name,
            .replicas = replicas,
            .requests = Resources::Of(1000, kGi),
            .priority = 100,
            .sla = {.availability = 0.999, .min_available = min_available}};
  s.usage.step_seconds = kStepSeconds;
  s.usage.values[0].assign(kTwoDays, before);
  for (int i = kSurgeStep; i < 2 * kStepsPerDay; ++i) s.usage.values[0][i] = after;
  s.usage.values[1].assign(kTwoDays, 0.5f * kGi);
  return s;
}

Node TenCoreNode(const std::string& name) {
  return Node{.name = name,
              .capacity = Resources::Of(10'000, 16 * kGi),
              .allocatable = Resources::Of(10'000, 16 * kGi),
              .labels = {{"role", name}}};
}

// Node "a" hosts `on_a` from the start; "b" joins an hour later and receives `on_b`, which only
// "b" may run.
Scenario TwoNodes(Service on_a, Service on_b) {
  Scenario scenario;
  scenario.duration_s = kSecondsPerDay + int64_t{12} * 3600;
  scenario.nodes = {TenCoreNode("a")};
  scenario.workload.node_events.push_back(NodeEvent{
      .time = 3600, .kind = NodeEvent::Kind::kAdd, .node = "b", .spec = TenCoreNode("b")});
  on_b.node_selector = {{"role", "b"}};
  scenario.workload.services = {std::move(on_a), std::move(on_b)};
  return scenario;
}

Metrics RunArchimedes(const Scenario& scenario) {
  ProfileSet profiles;
  for (const Service& s : scenario.workload.services) {
    profiles.apps.push_back(FlatProfile(s.name, s.usage.values[0][0]));
  }
  SimOptions options{.seed = 1};
  options.profiles = &profiles;
  Policy policy = MakePolicy("archimedes");
  return Simulate(scenario, policy, options);
}

// Three replicas jump from 4.5 to 10.5 of node a's 10 cores in one step. One moves to b; the
// replica waiting for its replacement would keep a over its threshold (a hot node serves none of
// its replicas) for the whole start-up, so it stops at once.
TEST(StepSurgeTest, AMoveOffANodeOverItsThresholdStopsTheOldReplicaAtOnce) {
  const Metrics m = RunArchimedes(TwoNodes(SteppingService("web", 3, 1, 1500, 3500),
                                           SteppingService("pinned", 1, 0, 100, 100)));
  EXPECT_GE(m.migrations, 1);
  EXPECT_EQ(m.evictions, 0);
  EXPECT_EQ(m.hot_node_time, 0.0);
}

// The same step lifts b's own service from 3 to 6 cores, so b has no room left for a 5-core
// replica, though its usage before the step (the last tick's, as a reads it) showed room: no
// replica moves there.
TEST(StepSurgeTest, AMoveIsJudgedByItsTargetsUsageAfterTheStep) {
  const Metrics m = RunArchimedes(TwoNodes(SteppingService("big", 2, 1, 2000, 5000),
                                           SteppingService("steady", 1, 0, 3000, 6000)));
  EXPECT_EQ(m.migrations, 0);
  EXPECT_GE(m.evictions, 1);  // nowhere to go: a's overload sheds the replica instead
}

}  // namespace
}  // namespace archimedes
