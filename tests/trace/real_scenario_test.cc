#include "trace/real_scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "support/shared_data.h"
#include "trace/alibaba_gpu_2023.h"

namespace archimedes {
namespace {

constexpr int kCpu = static_cast<int>(Dim::kCpu);
constexpr int kMemory = static_cast<int>(Dim::kMemory);

RealScenarioOptions Options(int nodes, int days, uint64_t seed) {
  RealScenarioOptions o;
  o.traces_dir = testing::SharedPath("traces");
  o.nodes = nodes;
  o.days = days;
  o.seed = seed;
  return o;
}

float P99(std::vector<float> v) {
  size_t k = static_cast<size_t>(0.99 * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

TEST(ShapeUsageTest, ScalesToTheRequestAndCapsThePeak) {
  UsageSeries s;
  s.id = "r";
  s.limit[kCpu] = 2.0;
  s.limit[kMemory] = 1.0;
  // One day at 300-s steps: CPU at half its limit, memory at 3× its limit for 10 % of the day.
  for (int i = 0; i < 288; ++i) {
    s.times.push_back(int64_t{300} * i);
    s.values[kCpu].push_back(1.0f);
    s.values[kMemory].push_back(i < 260 ? 0.5f : 3.0f);
  }
  ShapedUsage shaped = ShapeUsage(s, Resources::Of(4000, 1000), 7);
  ASSERT_EQ(shaped.pattern.samples(), 288);
  EXPECT_EQ(shaped.pattern.step_seconds, 300);
  EXPECT_FALSE(shaped.cpu_capped);
  EXPECT_FLOAT_EQ(shaped.pattern.values[kCpu][0], 2000.0f);
  EXPECT_TRUE(shaped.memory_capped);
  EXPECT_FLOAT_EQ(P99(shaped.pattern.values[kMemory]), 1000.0f);
  EXPECT_FLOAT_EQ(shaped.pattern.values[kMemory][0], 1000.0f / 6);
  EXPECT_TRUE(shaped.pattern.values[static_cast<int>(Dim::kDisk)].empty());
}

TEST(ShapeUsageTest, FillsGapsFromTheSameTimeOfDayThenByInterpolation) {
  UsageSeries s;
  s.id = "g";
  s.limit[kCpu] = 1.0;
  // Day 0: bins 0 and 10 only; day 1: bin 5 only (time of day 5 is otherwise unseen on day 0).
  for (auto [t, v] : {std::pair{0, 0.2f}, {3000, 0.4f}, {86'400 + 1500, 0.8f}}) {
    s.times.push_back(t);
    s.values[kCpu].push_back(v);
  }
  ShapedUsage shaped = ShapeUsage(s, Resources::Of(1000, 0), 2);
  const std::vector<float>& cpu = shaped.pattern.values[kCpu];
  ASSERT_EQ(cpu.size(), 2u * 288u);
  EXPECT_FLOAT_EQ(cpu[0], 200.0f);
  EXPECT_FLOAT_EQ(cpu[5], 800.0f);                                // same time of day, from day 1
  EXPECT_FLOAT_EQ(cpu[288 + 10], 400.0f);                         // same time of day, from day 0
  EXPECT_NEAR(cpu[2], 200.0f + 2 * (800.0f - 200.0f) / 5, 1e-3);  // interpolated
  EXPECT_TRUE(shaped.pattern.values[kMemory].empty());            // no memory limit: no shape
}

TEST(RealScenarioTest, HasTheDocumentedComposition) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv");
  auto start = std::chrono::steady_clock::now();
  RealScenarioStats stats;
  Scenario s = BuildRealScenario(Options(1000, 2, 7), &stats);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 30.0) << "the real scenario should build in a few seconds";

  ASSERT_EQ(s.nodes.size(), 1000u);
  EXPECT_EQ(s.duration_s, 2 * kSecondsPerDay);
  // The hardware mix of the 2023 fleet: 549 of 1,523 nodes are 96c/384GiB/8×G2.
  int g2 = std::count_if(s.nodes.begin(), s.nodes.end(), [](const Node& n) {
    auto it = n.labels.find("gpu-model");
    return it != n.labels.end() && it->second == "G2" && n.capacity[Dim::kGpu] == 8000;
  });
  EXPECT_NEAR(g2, 1000.0 * 549 / 1523, 1.0);

  Resources fleet;
  for (const Node& n : s.nodes) fleet += n.allocatable;
  Resources requested;
  int replicas = 0;
  for (const Service& svc : s.workload.services) {
    EXPECT_TRUE(svc.name.find("-CN") != std::string::npos) << svc.name;
    replicas += svc.replicas;
    requested += svc.requests.Scaled(svc.replicas);
    ASSERT_FALSE(svc.usage.values[kCpu].empty()) << svc.name;
    EXPECT_EQ(svc.usage.samples() % 288, 0);
    // The usage shape never exceeds the request at its p99.
    EXPECT_LE(P99(svc.usage.values[kCpu]), svc.requests.cpu() * 1.0001f) << svc.name;
    EXPECT_LE(P99(svc.usage.values[kMemory]), svc.requests.memory() * 1.0001f) << svc.name;
  }
  double cpu_share = static_cast<double>(requested.cpu()) / fleet.cpu();
  double memory_share = static_cast<double>(requested.memory()) / fleet.memory();
  EXPECT_LE(cpu_share, 0.85);
  EXPECT_GE(cpu_share, 0.80);
  EXPECT_LE(memory_share, 0.95);
  EXPECT_EQ(stats.replicas, replicas);
  EXPECT_DOUBLE_EQ(stats.requested_cpu_share, cpu_share);
  EXPECT_EQ(stats.google_shapes, 15);
  EXPECT_EQ(stats.alibaba_shapes, 16);

  // Batch: about nodes/1313 of the 2017 jobs, the same draw on both days.
  ASSERT_FALSE(s.workload.jobs.empty());
  std::map<std::string, int> per_day;
  for (const BatchJob& j : s.workload.jobs) {
    per_day[j.name.substr(j.name.rfind("-d"))]++;
    EXPECT_LT(j.submit_time, s.duration_s);
  }
  ASSERT_EQ(per_day.size(), 2u);
  EXPECT_EQ(per_day["-d0"], per_day["-d1"]);
  EXPECT_NEAR(per_day["-d0"], 57'737 * 1000.0 / 1313, 57'737 * 0.08);
  EXPECT_TRUE(std::is_sorted(
      s.workload.jobs.begin(), s.workload.jobs.end(),
      [](const BatchJob& a, const BatchJob& b) { return a.submit_time < b.submit_time; }));
  EXPECT_EQ(stats.jobs, static_cast<int64_t>(s.workload.jobs.size()));
}

TEST(RealScenarioTest, IsDeterministicForASeed) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv");
  Scenario a = BuildRealScenario(Options(300, 1, 11));
  Scenario b = BuildRealScenario(Options(300, 1, 11));
  Scenario c = BuildRealScenario(Options(300, 1, 12));
  auto names = [](const Scenario& s) {
    std::vector<std::string> out;
    for (const Node& n : s.nodes) out.push_back(n.name);
    for (const Service& svc : s.workload.services) out.push_back(svc.name);
    for (const BatchJob& j : s.workload.jobs) out.push_back(j.name);
    return out;
  };
  EXPECT_EQ(names(a), names(b));
  EXPECT_NE(names(a), names(c));
  ASSERT_EQ(a.workload.services.size(), b.workload.services.size());
  for (size_t i = 0; i < a.workload.services.size(); ++i) {
    EXPECT_EQ(a.workload.services[i].usage.values[kCpu], b.workload.services[i].usage.values[kCpu]);
  }
}

TEST(RealScenarioTest, CopiesNodesBeyondTheListAndRejectsBadSizes) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv");
  Scenario s = BuildRealScenario(Options(2000, 1, 3));
  ASSERT_EQ(s.nodes.size(), 2000u);
  std::set<std::string> names;
  for (const Node& n : s.nodes) names.insert(n.name);
  EXPECT_EQ(names.size(), 2000u);
  EXPECT_THROW(BuildRealScenario(Options(0, 1, 3)), std::invalid_argument);
  EXPECT_THROW(BuildRealScenario(Options(100, 0, 3)), std::invalid_argument);
}

}  // namespace
}  // namespace archimedes
