#include "sim/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "support/same_scenario.h"

namespace archimedes {
namespace {

using testing::ExpectSameScenario;

// Small enough to generate in a few milliseconds, large enough for every family and both job types.
GeneratorParams SmallParams(uint64_t seed = 7) {
  GeneratorParams p;
  p.nodes = 200;
  p.days = 1;
  p.seed = seed;
  return p;
}

// Nearest-rank 99th percentile, as the generator's contract defines p99 usage.
double P99(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(std::ceil(0.99 * v.size())) - 1];
}

double AllocatableCores(const Scenario& s) {
  double cores = 0;
  for (const Node& n : s.nodes) cores += n.allocatable.cpu() / 1000.0;
  return cores;
}

std::string ThrowMessage(GeneratorParams& p, std::string_view key, std::string_view value) {
  try {
    SetGeneratorParam(p, key, value);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(GeneratorTest, SameSeedGivesIdenticalScenario) {
  ExpectSameScenario(GenerateScenario(SmallParams(3)), GenerateScenario(SmallParams(3)));
}

TEST(GeneratorTest, DifferentSeedGivesDifferentScenario) {
  const Scenario a = GenerateScenario(SmallParams(3));
  const Scenario b = GenerateScenario(SmallParams(4));
  EXPECT_NE(a.name, b.name);
  ASSERT_FALSE(a.workload.services.empty());
  ASSERT_FALSE(b.workload.services.empty());
  EXPECT_NE(a.workload.services[0].usage.values, b.workload.services[0].usage.values);
  ASSERT_FALSE(a.workload.jobs.empty());
  ASSERT_FALSE(b.workload.jobs.empty());
  EXPECT_NE(a.workload.jobs[0].submit_time, b.workload.jobs[0].submit_time);
}

TEST(GeneratorTest, BatchParametersLeaveFleetAndServicesAlone) {
  GeneratorParams p = SmallParams();
  const Scenario a = GenerateScenario(p);
  SetGeneratorParam(p, "offline.tasks_median", "20");
  const Scenario b = GenerateScenario(p);
  ASSERT_EQ(a.workload.services.size(), b.workload.services.size());
  EXPECT_EQ(a.workload.services.back().requests, b.workload.services.back().requests);
  EXPECT_NE(a.workload.jobs.size(), b.workload.jobs.size());
}

TEST(GeneratorTest, ServiceCpuRequestsReachTargetShare) {
  for (uint64_t seed : {1, 2, 3}) {
    for (const auto& [lo, hi] : {std::pair{0.80, 0.90}, {0.5, 0.55}}) {
      GeneratorParams p = SmallParams(seed);
      p.service_cpu_share_min = lo;
      p.service_cpu_share_max = hi;
      const Scenario s = GenerateScenario(p);
      double requested = 0, largest_replica = 0;
      for (const Service& sv : s.workload.services) {
        requested += sv.replicas * sv.requests.cpu() / 1000.0;
        largest_replica = std::max(largest_replica, sv.requests.cpu() / 1000.0);
      }
      const double share = requested / AllocatableCores(s);
      EXPECT_GE(share, lo) << "seed " << seed;
      EXPECT_LE(share, hi + largest_replica / AllocatableCores(s)) << "seed " << seed;
    }
  }
}

TEST(GeneratorTest, RequestsAreBetweenOneAndAHalfAndFourTimesP99Usage) {
  const Scenario s = GenerateScenario(SmallParams());
  for (const Service& sv : s.workload.services) {
    for (Dim d : {Dim::kCpu, Dim::kMemory, Dim::kDisk, Dim::kNetwork}) {
      const double p99 = P99(sv.usage.values[static_cast<int>(d)]);
      ASSERT_GT(p99, 0) << sv.name << " " << DimName(d);
      // Requests are whole units, hence the half-unit slack.
      EXPECT_GE(sv.requests[d], 1.5 * p99 - 0.5) << sv.name << " " << DimName(d);
      EXPECT_LE(sv.requests[d], 4.0 * p99 + 0.5) << sv.name << " " << DimName(d);
    }
  }
}

TEST(GeneratorTest, EveryFamilyIsPresentAndNamesTheService) {
  const Scenario s = GenerateScenario(SmallParams());
  std::map<std::string_view, int> per_family;
  for (const Service& sv : s.workload.services) {
    EXPECT_EQ(sv.app, sv.name);
    const std::string_view family = ServiceFamilyOf(sv.name);
    EXPECT_FALSE(family.empty()) << sv.name;
    ++per_family[family];
    EXPECT_EQ(sv.usage.samples(), 288);
    EXPECT_EQ(sv.usage.period_seconds(), kSecondsPerDay);
  }
  for (std::string_view family : kServiceFamilyNames) EXPECT_GT(per_family[family], 0) << family;
  EXPECT_EQ(ServiceFamilyOf("cache-0001"), "cache");
  EXPECT_EQ(ServiceFamilyOf("cachex-1"), "");
  EXPECT_EQ(ServiceFamilyOf("night"), "");
}

TEST(GeneratorTest, FamiliesPeakWhereTheirNamesSay) {
  const Scenario s = GenerateScenario(SmallParams());
  for (const Service& sv : s.workload.services) {
    const std::vector<float>& cpu = sv.usage.values[static_cast<int>(Dim::kCpu)];
    const int peak_bin = static_cast<int>(std::max_element(cpu.begin(), cpu.end()) - cpu.begin());
    const double peak_hour = peak_bin / 12.0;
    const std::string_view family = ServiceFamilyOf(sv.name);
    if (family == "night") {
      EXPECT_TRUE(peak_hour < 6 || peak_hour > 22) << sv.name << " peaks at " << peak_hour;
    } else if (family == "daytime") {
      EXPECT_TRUE(peak_hour > 9 && peak_hour < 23) << sv.name << " peaks at " << peak_hour;
    } else if (family == "cache") {
      const std::vector<float>& mem = sv.usage.values[static_cast<int>(Dim::kMemory)];
      EXPECT_GT(*std::min_element(mem.begin(), mem.end()),
                0.9 * *std::max_element(mem.begin(), mem.end()))
          << sv.name;
    }
  }
}

TEST(GeneratorTest, BatchDemandFillsTheIdleCpuTimesBatchLoad) {
  for (double load : {1.0, 0.4}) {
    GeneratorParams p = SmallParams();
    p.batch_load = load;
    const Scenario s = GenerateScenario(p);
    double service_mean = 0;
    for (const Service& sv : s.workload.services) {
      const std::vector<float>& cpu = sv.usage.values[static_cast<int>(Dim::kCpu)];
      double sum = 0;
      for (float v : cpu) sum += v;
      const double burst = 1 + sv.usage.burst_probability * (sv.usage.burst_factor - 1);
      service_mean += sv.replicas * sum / cpu.size() / 1000.0 * burst;
    }
    double work = 0;
    for (const BatchJob& j : s.workload.jobs) {
      work += j.tasks * j.task_requests.cpu() / 1000.0 * j.utilization * j.duration_s;
    }
    const double expected = load * (AllocatableCores(s) - service_mean);
    EXPECT_NEAR(work / s.duration_s, expected, 0.01 * expected) << "batch_load " << load;
    EXPECT_NEAR(BatchCpuDemandCores(s.workload.jobs, s.duration_s), expected, 0.01 * expected);
  }
}

TEST(GeneratorTest, JobsRespectTheirTypeRanges) {
  const GeneratorParams p = SmallParams();
  const Scenario s = GenerateScenario(p);
  int serverless = 0, offline = 0, gangs = 0;
  int64_t previous_submit = 0;
  for (const BatchJob& j : s.workload.jobs) {
    const bool is_serverless = j.type == JobType::kServerless;
    const BatchTypeParams& t = is_serverless ? p.serverless : p.offline;
    (is_serverless ? serverless : offline)++;
    gangs += j.gang;
    EXPECT_GE(j.delay_tolerance_s, t.tolerance_min_s) << j.name;
    EXPECT_LE(j.delay_tolerance_s, t.tolerance_max_s) << j.name;
    EXPECT_GE(j.duration_s, t.duration_min_s) << j.name;
    EXPECT_LE(j.duration_s, t.duration_max_s) << j.name;
    EXPECT_GE(j.task_requests.cpu(), t.cpu_min) << j.name;
    EXPECT_LE(j.task_requests.cpu(), t.cpu_max) << j.name;
    EXPECT_GE(j.tasks, 1) << j.name;
    EXPECT_LE(j.tasks, t.tasks_max) << j.name;
    EXPECT_GE(j.utilization, p.utilization_min) << j.name;
    EXPECT_LE(j.utilization, p.utilization_max) << j.name;
    EXPECT_LT(j.priority, p.low.priority) << j.name;
    EXPECT_FALSE(is_serverless && j.gang) << j.name;
    EXPECT_GE(j.submit_time, previous_submit) << j.name;
    EXPECT_LT(j.submit_time, s.duration_s) << j.name;
    previous_submit = j.submit_time;
  }
  EXPECT_GT(serverless, 0);
  EXPECT_GT(offline, 0);
  EXPECT_GT(gangs, 0);
  EXPECT_EQ(p.serverless.tolerance_min_s, 1);
  EXPECT_EQ(p.serverless.tolerance_max_s, 60);
}

TEST(GeneratorTest, ArrivalsFollowTheirDailyRhythm) {
  const Scenario s = GenerateScenario(SmallParams());
  // Counts in the six hours around 02:00 and around 14:00.
  std::map<JobType, std::pair<int, int>> night_day;
  for (const BatchJob& j : s.workload.jobs) {
    const int64_t hour = j.submit_time % kSecondsPerDay / 3600;
    auto& [night, day] = night_day[j.type];
    if (hour == 23 || hour < 5) ++night;
    if (hour >= 11 && hour < 17) ++day;
  }
  EXPECT_GT(night_day[JobType::kOffline].first, night_day[JobType::kOffline].second);
  EXPECT_GT(night_day[JobType::kServerless].second, night_day[JobType::kServerless].first);
}

TEST(GeneratorTest, EveryReplicaFitsSomeNode) {
  GeneratorParams p = SmallParams();
  // Huge replicas force the shrink-to-fit path.
  p.service_cpu_p99_median = 40'000;
  for (const Scenario& s : {GenerateScenario(SmallParams()), GenerateScenario(p)}) {
    for (const Service& sv : s.workload.services) {
      const bool fits = std::any_of(s.nodes.begin(), s.nodes.end(), [&](const Node& n) {
        return sv.requests.FitsIn(n.allocatable);
      });
      EXPECT_TRUE(fits) << sv.name << " " << ToString(sv.requests);
    }
  }
}

TEST(GeneratorTest, FleetFollowsGenerationSharesAndFailureDomains) {
  GeneratorParams p = SmallParams();
  p.nodes = 1000;
  p.batch_load = 0;
  const Scenario s = GenerateScenario(p);
  ASSERT_EQ(s.nodes.size(), 1000u);
  EXPECT_EQ(s.duration_s, kSecondsPerDay);
  EXPECT_TRUE(s.workload.jobs.empty());
  std::map<std::string, int> per_generation, per_pod;
  std::set<std::string> zones;
  std::set<std::string> names;
  for (const Node& n : s.nodes) {
    ++per_generation[n.labels.at("node.kubernetes.io/instance-type")];
    ++per_pod[n.pod];
    zones.insert(n.zone);
    names.insert(n.name);
    EXPECT_TRUE(n.allocatable.FitsIn(n.capacity));
    EXPECT_LT(n.allocatable.cpu(), n.capacity.cpu());
    EXPECT_GT(n.capacity[Dim::kDisk], 0);
    EXPECT_GT(n.capacity[Dim::kNetwork], 0);
  }
  EXPECT_EQ(names.size(), s.nodes.size());
  for (const NodeGeneration& g : p.generations) {
    EXPECT_EQ(per_generation[g.name], std::lround(g.share * 1000)) << g.name;
  }
  EXPECT_EQ(zones.size(), 3u);
  for (const auto& [pod, count] : per_pod) EXPECT_LE(count, p.pod_nodes_max) << pod;
}

TEST(GeneratorTest, UnknownParameterIsRejectedByName) {
  GeneratorParams p;
  EXPECT_NE(ThrowMessage(p, "nodez", "10").find("nodez"), std::string::npos);
}

TEST(GeneratorTest, BadValuesAreRejectedByName) {
  GeneratorParams p;
  for (const auto& [key, value] : {std::pair{"nodes", "ten"},
                                   {"nodes", "0"},
                                   {"days", "1.5"},
                                   {"batch_load", "-1"},
                                   {"service_cpu_share_max", "1.2"},
                                   {"gen.g64c256.memory", "lots"},
                                   {"offline.tolerance_max", "2x"},
                                   {"serverless.cpu_min", "-1"},
                                   {"seed", ""}}) {
    EXPECT_NE(ThrowMessage(p, key, value).find(key), std::string::npos) << key << "=" << value;
  }
  const GeneratorParams defaults;
  EXPECT_EQ(p.nodes, defaults.nodes);
}

TEST(GeneratorTest, ContradictoryParametersAreRejectedByName) {
  GeneratorParams p = SmallParams();
  SetGeneratorParam(p, "replicas_min", "60");
  try {
    GenerateScenario(p);
    ADD_FAILURE() << "replicas_min above replicas_max was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("replicas_min"), std::string::npos) << e.what();
  }
  p = SmallParams();
  SetGeneratorParam(p, "offline.priority", "5000");
  EXPECT_THROW(GenerateScenario(p), std::invalid_argument);
}

TEST(GeneratorTest, EveryDescribedParameterRoundTripsThroughSet) {
  GeneratorParams p;
  const std::vector<ParamInfo> described = DescribeGeneratorParams(p);
  std::set<std::string> keys;
  for (const ParamInfo& info : described) {
    EXPECT_TRUE(keys.insert(info.key).second) << "duplicate " << info.key;
    EXPECT_FALSE(info.description.empty()) << info.key;
    SetGeneratorParam(p, info.key, info.value);
  }
  const std::vector<ParamInfo> again = DescribeGeneratorParams(p);
  for (size_t i = 0; i < described.size(); ++i) EXPECT_EQ(again[i].value, described[i].value);
  SetGeneratorParam(p, "offline.tolerance_max", "2h");
  SetGeneratorParam(p, "gen.m64c512.memory", "768Gi");
  EXPECT_EQ(p.offline.tolerance_max_s, 7200);
  EXPECT_EQ(p.generations[3].capacity.memory(), 768LL << 30);
}

TEST(GeneratorTest, NameListsTheParametersThatDifferFromDefaults) {
  GeneratorParams p = SmallParams();
  SetGeneratorParam(p, "batch_load", "0.5");
  const std::string name = GenerateScenario(p).name;
  EXPECT_NE(name.find("nodes=200"), std::string::npos) << name;
  EXPECT_NE(name.find("batch_load=0.5"), std::string::npos) << name;
  EXPECT_EQ(name.find("zones="), std::string::npos) << name;
}

}  // namespace
}  // namespace archimedes

namespace archimedes {
namespace {

TEST(GeneratorTest, SurgeMultipliesServiceUsageOnItsDayOnly) {
  GeneratorParams plain;
  plain.nodes = 20;
  plain.days = 2;
  GeneratorParams surged = plain;
  SetGeneratorParam(surged, "surge_day", "1");
  SetGeneratorParam(surged, "surge_factor", "3");
  const Scenario a = GenerateScenario(plain);
  const Scenario b = GenerateScenario(surged);
  ASSERT_EQ(a.workload.services.size(), b.workload.services.size());
  EXPECT_EQ(a.workload.jobs.size(), b.workload.jobs.size());  // batch stream unchanged
  const Service& before = a.workload.services.front();
  const Service& after = b.workload.services.front();
  const int64_t in_surge = kSecondsPerDay + surged.surge_start + 60;
  const int64_t day_before = surged.surge_start + 60;
  EXPECT_FLOAT_EQ(after.usage.At(Dim::kCpu, in_surge), 3 * before.usage.At(Dim::kCpu, in_surge));
  EXPECT_FLOAT_EQ(after.usage.At(Dim::kMemory, in_surge),
                  1.5f * before.usage.At(Dim::kMemory, in_surge));
  EXPECT_FLOAT_EQ(after.usage.At(Dim::kCpu, day_before), before.usage.At(Dim::kCpu, day_before));
  EXPECT_EQ(after.usage.period_seconds(), 2 * kSecondsPerDay);
  EXPECT_THROW(SetGeneratorParam(surged, "surge_factor", "0.5"), std::invalid_argument);
}

}  // namespace
}  // namespace archimedes
