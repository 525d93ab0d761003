// The series of a run say what its metrics say: averaged over the measured period and summed,
// they are the figures of the table and the JSON, by the same definitions.
#include "sim/run_series.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/policy.h"
#include "sim/generator.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "sim/warmup_profiles.h"

namespace archimedes {
namespace {

constexpr int kNodes = 30;

Scenario SmallScenario() {
  GeneratorParams p;
  p.nodes = kNodes;
  p.days = 1;
  p.seed = 3;
  return GenerateScenario(p);
}

double Sum(const TimeSeries& s) {
  double sum = 0;
  for (double v : s.values) sum += v;
  return sum;
}

class RunSeriesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RunSeriesTest, SeriesAgreeWithTheMetricsOfTheSameRun) {
  const Scenario scenario = SmallScenario();
  SimOptions options{.warmup_s = int64_t{6} * 3600};
  const ProfileSet profiles = LearnWarmupProfiles(scenario.workload, options.warmup_s, 1);
  options.profiles = &profiles;
  RunSeries series;
  options.series = &series;
  const Metrics m = Simulate(scenario, MakePolicy(GetParam()), options);

  for (int d = 0; d < kNumDims; ++d) {
    EXPECT_DOUBLE_EQ(series.allocation[d].MeanFrom(options.warmup_s), m.allocation_rate[d]) << d;
    EXPECT_DOUBLE_EQ(series.utilization[d].MeanFrom(options.warmup_s), m.utilization[d]) << d;
  }
  EXPECT_GT(m.utilization[0], 0);
  EXPECT_EQ(Sum(series.evictions), static_cast<double>(m.evictions));
  EXPECT_EQ(Sum(series.migrations), static_cast<double>(m.migrations));
  EXPECT_EQ(Sum(series.oom_kills), static_cast<double>(m.oom_kills));
  std::vector<std::pair<double, double>> shares;
  for (const std::vector<double>& by_type : series.wait_shares) {
    for (double s : by_type) shares.push_back({s, 1});
  }
  ASSERT_FALSE(shares.empty());
  EXPECT_DOUBLE_EQ(Percentile(shares, 0.5), m.wait_tolerance_share_p50);
  EXPECT_DOUBLE_EQ(Percentile(shares, 0.99), m.wait_tolerance_share_p99);
  EXPECT_EQ(series.end_s, scenario.duration_s);
  EXPECT_DOUBLE_EQ(series.burst_buffer, MakePolicy(GetParam()).traits.buffer);
}

TEST_P(RunSeriesTest, NodesSampledForTheHeatMapAndTheBusiest) {
  const Scenario scenario = SmallScenario();
  SimOptions options{.warmup_s = int64_t{6} * 3600};
  const ProfileSet profiles = LearnWarmupProfiles(scenario.workload, options.warmup_s, 1);
  options.profiles = &profiles;
  RunSeries series;
  options.series = &series;
  Simulate(scenario, MakePolicy(GetParam()), options);

  ASSERT_EQ(series.heat_map_nodes.size(), static_cast<size_t>(kNodes));
  ASSERT_EQ(series.busy_nodes.size(), static_cast<size_t>(SeriesRecorder::kBusyNodes));
  const auto samples = static_cast<size_t>(scenario.duration_s / options.metrics_interval_s);
  auto mean_share = [&](const NodeSeries& n) {
    return (n.service_cpu.MeanFrom(options.warmup_s) + n.batch_cpu.MeanFrom(options.warmup_s)) /
           n.cpu_capacity;
  };
  for (const NodeSeries& node : series.busy_nodes) {
    EXPECT_EQ(node.service_cpu.values.size(), samples) << node.name;
    EXPECT_EQ(node.predicted_cpu.values.size(), samples) << node.name;
    EXPECT_GT(Sum(node.predicted_cpu), 0) << node.name;
    // Used CPU never exceeds the node.
    for (size_t i = 0; i < samples; ++i) {
      EXPECT_LE(node.service_cpu.values[i] + node.batch_cpu.values[i], node.cpu_capacity + 1e-6);
    }
    // No node of the fleet is busier than the busiest kept.
    for (const NodeSeries& other : series.heat_map_nodes) {
      EXPECT_LE(mean_share(other), mean_share(series.busy_nodes.front()) + 1e-12);
    }
  }
}

TEST(RunSeriesTest, NoPredictionWithoutProfiles) {
  const Scenario scenario = SmallScenario();
  SimOptions options{.warmup_s = int64_t{6} * 3600};
  RunSeries series;
  options.series = &series;
  Simulate(scenario, MakePolicy("k8s-default"), options);
  ASSERT_FALSE(series.busy_nodes.empty());
  EXPECT_TRUE(series.busy_nodes.front().predicted_cpu.values.empty());
  EXPECT_FALSE(series.busy_nodes.front().service_cpu.values.empty());
}

INSTANTIATE_TEST_SUITE_P(Policies, RunSeriesTest,
                         ::testing::Values("k8s-default", "reclaim", "archimedes"));

}  // namespace
}  // namespace archimedes
