// The sum of predicted peaks (sim/peak_load.h) and the --shrink search (sim/shrink.h).
#include "sim/shrink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/policy.h"
#include "sim/generator.h"
#include "sim/peak_load.h"
#include "sim/warmup_profiles.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

Node MakeNode(std::string name, int64_t cpu) {
  return Node{.name = std::move(name),
              .capacity = Resources::Of(cpu, 64 * kGi),
              .allocatable = Resources::Of(cpu, 64 * kGi)};
}

// One replica using `day_cpu` millicores from 08:00 to 20:00 and `night_cpu` otherwise, and 1 GiB.
Service DayNightService(const std::string& name, int64_t request_cpu, float day_cpu,
                        float night_cpu) {
  Service s{.name = name, .app = name, .replicas = 1, .requests = Resources::Of(request_cpu, kGi)};
  s.usage.step_seconds = 3600;
  s.usage.values[1] = std::vector<float>(24, static_cast<float>(kGi));
  for (int h = 0; h < 24; ++h) s.usage.values[0].push_back(h >= 8 && h < 20 ? day_cpu : night_cpu);
  return s;
}

Scenario TwoDays(std::vector<Node> nodes, std::vector<Service> services) {
  Scenario s{.name = "test", .nodes = std::move(nodes)};
  s.workload.services = std::move(services);
  s.duration_s = 2 * kSecondsPerDay;
  return s;
}

Metrics Measure(const Scenario& scenario, const std::string& policy_name) {
  const SimOptions options;
  const ProfileSet profiles =
      LearnWarmupProfiles(scenario.workload, options.warmup_s, options.seed);
  Policy policy = MakePolicy(policy_name);
  return SimulateMeasuringPeaks(scenario, policy, options, profiles);
}

// A day service and a night service on two nodes: spread (LeastAllocated), each node peaks at its
// service's peak; packed (MostAllocated), one node peaks at day + night valley. A third service
// fits no node and stays pending for a third of the desired replica-time; its predicted peak is
// counted apart.
TEST(PeakMeterTest, SumsEachNodesPredictedAndObservedPeak) {
  const Scenario scenario =
      TwoDays({MakeNode("a", 8000), MakeNode("b", 8000)},
              {DayNightService("day", 3000, 3000, 500), DayNightService("night", 3000, 500, 3000),
               DayNightService("huge", 9000, 100, 100)});
  const Metrics spread = Measure(scenario, "k8s-default");
  EXPECT_NEAR(spread.predicted_peak_sum[0], 6000, 1);
  EXPECT_NEAR(spread.observed_peak_sum[0], 6000, 1);
  EXPECT_NEAR(spread.predicted_peak_sum[1], 2.0 * kGi, kGi / 1000.0);
  EXPECT_NEAR(spread.unplaced_replica_share, 1.0 / 3, 1e-9);
  EXPECT_NEAR(spread.unplaced_peak_sum[0], 100, 1) << "the pending replica's predicted peak";
  EXPECT_NEAR(spread.unplaced_peak_sum[1], 1.0 * kGi, kGi / 1000.0);
  const Metrics packed = Measure(scenario, "k8s-binpack");
  EXPECT_NEAR(packed.predicted_peak_sum[0], 3500, 1);
  EXPECT_NEAR(packed.observed_peak_sum[0], 3500, 1);
  EXPECT_FALSE(HostsServices(packed)) << "a replica never ran";
}

TEST(ShrinkFleetTest, KeepsNodeTypesProportionalAndDropsTheirEvents) {
  GeneratorParams p;
  p.nodes = 100;
  p.days = 1;
  Scenario scenario = GenerateScenario(p);
  scenario.workload.node_events.push_back(
      {.time = 600, .kind = NodeEvent::Kind::kFail, .node = scenario.nodes[0].name});
  scenario.workload.node_events.push_back(
      {.time = 600, .kind = NodeEvent::Kind::kFail, .node = scenario.nodes[1].name});
  const Scenario cut = ShrinkFleet(scenario, 37);
  ASSERT_EQ(cut.nodes.size(), 37u);
  auto type_counts = [](const std::vector<Node>& nodes) {
    std::map<int64_t, int> counts;  // the generations differ in cpu or memory
    for (const Node& n : nodes) ++counts[n.capacity.cpu() * 1000 + n.capacity.memory() / kGi];
    return counts;
  };
  const auto full = type_counts(scenario.nodes);
  const auto kept = type_counts(cut.nodes);
  for (const auto& [type, count] : full) {
    const double exact = 37.0 * count / 100.0;
    EXPECT_GE(kept.at(type), static_cast<int>(exact)) << type;
    EXPECT_LE(kept.at(type), static_cast<int>(exact) + 1) << type;
  }
  std::map<std::string, int> zones;
  for (const Node& n : cut.nodes) ++zones[n.zone];
  EXPECT_EQ(zones.size(), 3u) << "every zone keeps nodes";
  EXPECT_EQ(ShrinkFleet(scenario, 37).nodes[5].name, cut.nodes[5].name) << "deterministic";
  EXPECT_EQ(cut.workload.services.size(), scenario.workload.services.size());
  auto kept_node = [&](const std::string& name) {
    return std::any_of(cut.nodes.begin(), cut.nodes.end(),
                       [&](const Node& n) { return n.name == name; });
  };
  EXPECT_EQ(static_cast<int>(cut.workload.node_events.size()),
            kept_node(scenario.nodes[0].name) + kept_node(scenario.nodes[1].name));
  for (const NodeEvent& e : cut.workload.node_events) EXPECT_TRUE(kept_node(e.node));
  EXPECT_THROW(ShrinkFleet(scenario, 0), std::invalid_argument);
  EXPECT_THROW(ShrinkFleet(scenario, 101), std::invalid_argument);
}

// Six services of 2 cores requested and 3 used on 8-core nodes: by requests four fit a node, but
// three on one node use 9 cores, above the 90 % hot threshold, so three nodes are needed.
TEST(ShrinkSearchTest, FindsTheFewestNodesWithoutHotNodes) {
  std::vector<Node> nodes;
  nodes.reserve(10);
  for (int i = 0; i < 10; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), 8000));
  std::vector<Service> services;
  services.reserve(6);
  for (int s = 0; s < 6; ++s) {
    services.push_back(DayNightService("s" + std::to_string(s), 2000, 3000, 3000));
  }
  const Scenario scenario = TwoDays(nodes, services);
  const SimOptions sim;
  const ProfileSet profiles = LearnWarmupProfiles(scenario.workload, sim.warmup_s, sim.seed);
  for (const std::string policy : {"k8s-default", "archimedes"}) {
    SCOPED_TRACE(policy);
    const ShrinkResult r = FindSmallestFleet(scenario, MakePolicy(policy),
                                             ShrinkOptions{.sim = sim, .profiles = &profiles});
    EXPECT_EQ(r.full_nodes, 10);
    EXPECT_EQ(r.nodes_needed, 3);
    EXPECT_TRUE(HostsServices(r.at_needed));
    EXPECT_NEAR(r.at_needed.predicted_peak_sum[0], 18000, 1);
    bool two_simulated = false;
    for (const ShrinkStep& step : r.steps) {
      if (step.nodes == 1) {
        EXPECT_FALSE(step.simulated) << "12 cores requested on 8";
      }
      if (step.nodes != 2) continue;
      two_simulated = true;
      EXPECT_FALSE(step.hosts);
      if (policy == "k8s-default") {
        EXPECT_GT(step.metrics.hot_node_time, 0);
      }
    }
    EXPECT_TRUE(two_simulated);
  }
}

// The generated default scenario, services only: refining the greedy placement
// (sched/peak_refiner.h) lowers the sums of predicted cpu (by more than 3 %) and memory peaks, and
// every replica still runs on a node that never turns hot.
TEST(PeakMeterTest, RefiningTheGreedyPlacementLowersThePeaks) {
  GeneratorParams p;
  p.nodes = 60;
  p.days = 2;
  p.batch_load = 0;
  const Scenario scenario = GenerateScenario(p);
  const Metrics greedy = Measure(scenario, "archimedes-greedy");
  const Metrics refined = Measure(scenario, "archimedes");
  EXPECT_LT(refined.predicted_peak_sum[0], 0.97 * greedy.predicted_peak_sum[0]) << "cpu";
  EXPECT_LT(refined.predicted_peak_sum[1], greedy.predicted_peak_sum[1]) << "memory";
  EXPECT_TRUE(HostsServices(greedy));
  EXPECT_TRUE(HostsServices(refined));
}

}  // namespace
}  // namespace archimedes
