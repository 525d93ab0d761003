// The spread overload relief keeps free when services run above their profiles (a surge).
#include "engine/surge_margin.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/policy.h"
#include "profile/profiler.h"
#include "sim/simulator.h"

namespace archimedes {
namespace {

constexpr int kBins = 4;
constexpr int64_t kGi = int64_t{1} << 30;

// A flat profile: cpu mean `mean` and standard deviation `sigma` (high = mean + z95 σ), memory a
// tenth of it; the highest sample `burst` times the high curve's peak.
AppProfile FlatProfile(const std::string& app, float mean, float sigma, float burst,
                       int bins = kBins) {
  AppProfile p{.app = app};
  const auto z = static_cast<float>(NormalQuantile(0.95));
  for (int d = 0; d < kNumDims; ++d) {
    const float scale = d == static_cast<int>(Dim::kMemory) ? 0.1f : 1.0f;
    p.mean[d] = DailyCurve(bins, mean * scale);
    p.high[d] = DailyCurve(bins, (mean + z * sigma) * scale);
    p.peak[d] = burst * (mean + z * sigma) * scale;
  }
  return p;
}

struct Fixture {
  std::vector<Service> services;
  ProfileSet profiles;
};

Fixture TwoServicesAndAnUnprofiledOne() {
  Fixture f;
  f.services = {Service{.name = "a"}, Service{.name = "b"},
                Service{.name = "c", .requests = Resources::Of(500, kGi)}};
  f.profiles.bins = kBins;
  f.profiles.high_quantile = 0.95;
  f.profiles.apps = {FlatProfile("a", 1000, 100, 1.0f), FlatProfile("b", 2000, 200, 1.5f)};
  return f;
}

TEST(SurgeMarginTest, InsideTheProfilesEnvelopeThereIsNoMargin) {
  const Fixture f = TwoServicesAndAnUnprofiledOne();
  const SurgeMargin margin(f.services, f.profiles, 3.0);
  std::vector<int32_t> staying = {0, 0, 1};
  const double z = NormalQuantile(0.95);
  const double envelope = 2 * (1000 + z * 100) + 2000 + z * 200;
  const auto m = margin.Margin(0, staying, {}, {envelope - 1, 100});
  EXPECT_EQ(m[0], 0.0);
  EXPECT_EQ(m[1], 0.0);
}

TEST(SurgeMarginTest, AboveItTheSpreadAndTheLargestBurstScaleWithTheSurge) {
  const Fixture f = TwoServicesAndAnUnprofiledOne();
  const SurgeMargin margin(f.services, f.profiles, 3.0);
  std::vector<int32_t> staying = {1, 0, 0};
  const double z = NormalQuantile(0.95);
  // Twice the mean: k = 2. Both replicas of "a" move together (2 × 100), "b" on its own (200);
  // "b" bursts to 1.5 times its high curve.
  const auto m = margin.Margin(2, staying, {}, {2 * 4000.0, 100});
  const double spread = std::sqrt(200.0 * 200.0 + 200.0 * 200.0);
  const double burst = 0.5 * (2000 + z * 200);
  EXPECT_NEAR(m[0], 2 * (3 * spread + burst), 0.5);
  EXPECT_EQ(m[1], 0.0);  // memory stays inside its envelope
  EXPECT_FLOAT_EQ(margin.burst_ratio(1)[0], 1.5f);
  EXPECT_FLOAT_EQ(margin.burst_ratio(2)[0], 1.0f);  // no profile
}

TEST(SurgeMarginTest, LeavingReplicasCountInTheEnvelopeButNotInTheSpread) {
  const Fixture f = TwoServicesAndAnUnprofiledOne();
  const SurgeMargin margin(f.services, f.profiles, 3.0);
  std::vector<int32_t> staying = {0};
  const std::vector<int32_t> leaving = {0};
  // Usage 3000 against a mean of 2000 (k = 1.5), the spread of the one staying replica only.
  const auto m = margin.Margin(1, staying, leaving, {3000.0, 0});
  EXPECT_NEAR(m[0], 1.5 * 3 * 100, 0.5);
}

TEST(SurgeMarginTest, AnUnprofiledServiceCountsByItsRequests) {
  const Fixture f = TwoServicesAndAnUnprofiledOne();
  const SurgeMargin margin(f.services, f.profiles, 3.0);
  std::vector<int32_t> staying = {2};
  // Its request is its whole envelope, and it has no spread of its own.
  EXPECT_EQ(margin.Margin(0, staying, {}, {400.0, 0})[0], 0.0);
  EXPECT_EQ(margin.Margin(0, staying, {}, {900.0, 0})[0], 0.0);
}

// Three replicas on one 10-core node use 1.5 cores each, as their profile says (10 % noise, flat
// over the day, so the profile predicts no rise), then from 10:00 on the second day a surge takes
// them to 2.7 each: 8.1 of the 9 cores under the hot threshold. The noise gives each five-minute
// step a few per cent chance of crossing 9 cores before relief sees it (without the margin this
// run is hot within the surge); with it, relief moves a replica to the second node first,
// make-before-break.
TEST(SurgeReliefTest, ASurgeMovesAReplicaBeforeTheNodeRunsHot) {
  Service web{.name = "web",
              .replicas = 3,
              .requests = Resources::Of(1000, kGi),
              .priority = 100,
              .sla = {.availability = 0.999, .min_available = 2}};
  web.usage.step_seconds = 300;
  web.usage.noise = 0.1f;
  constexpr int kStepsPerDay = 288;
  web.usage.values[0].assign(size_t{2} * kStepsPerDay, 1500.0f);
  // The surge ramps up over a quarter of an hour: the step that reaches 7.2 of the 9 cores is
  // still far from crossing, but its margin is not.
  const std::vector<float> ramp = {2200.0f, 2400.0f, 2550.0f};
  for (int i = kStepsPerDay + 120; i < 2 * kStepsPerDay; ++i) {
    const size_t into = static_cast<size_t>(i - kStepsPerDay - 120);
    web.usage.values[0][i] = into < ramp.size() ? ramp[into] : 2700.0f;
  }
  ProfileSet profiles;
  profiles.apps = {FlatProfile("web", 1500, 150, 1.0f, DailyCurve::kDefaultBins)};
  profiles.apps[0].mean[1] = DailyCurve(DailyCurve::kDefaultBins, 0.5f * kGi);
  profiles.apps[0].high[1] = profiles.apps[0].mean[1];
  web.usage.values[1].assign(size_t{2} * kStepsPerDay, 0.5f * kGi);
  Scenario scenario;
  scenario.duration_s = kSecondsPerDay + int64_t{16} * 3600;
  scenario.nodes = {Node{.name = "a",
                         .capacity = Resources::Of(10'000, 16 * kGi),
                         .allocatable = Resources::Of(10'000, 16 * kGi)}};
  Node b = scenario.nodes[0];
  b.name = "b";
  // The second node joins after the replicas are placed, so all three start on "a".
  scenario.workload.node_events.push_back(
      NodeEvent{.time = 3600, .kind = NodeEvent::Kind::kAdd, .node = "b", .spec = b});
  scenario.workload.services.push_back(web);
  std::vector<ContractRecord> records;
  SimOptions options{.seed = 1};
  options.sla_records = &records;
  options.profiles = &profiles;
  Policy policy = MakePolicy("archimedes");
  const Metrics m = Simulate(scenario, policy, options);
  EXPECT_EQ(m.hot_node_time, 0.0);
  EXPECT_GE(m.migrations, 1);
  EXPECT_EQ(m.evictions, 0);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].achieved, 1.0);
}

}  // namespace
}  // namespace archimedes
