#include "profile/health.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "profile/profiler.h"
#include "profile/synthetic_history.h"

namespace archimedes {
namespace {

using testing::InjectedAnomaly;
using testing::SyntheticHistory;
using testing::SyntheticParams;

TEST(HealthTest, InjectedAnomaliesAreFlaggedBeforeTheLimit) {
  SyntheticParams params;
  params.apps = 60;
  params.anomalies_per_kind = 6;
  // Limits are known while streaming, so that lead times can be estimated.
  SyntheticHistory history = testing::PlanSyntheticHistory(params);
  Profiler profiler;
  for (const testing::SyntheticApp& a : history.apps) profiler.SetLimit(a.name, a.limit);
  testing::StreamSyntheticHistory(
      params, history,
      [&](int64_t t, const std::string& app, const std::string& container,
          const std::array<float, kNumDims>& usage) { profiler.Add(t, app, container, usage); });
  ProfileSet set = profiler.Finish();

  std::map<std::string, const InjectedAnomaly*> injected;
  for (const InjectedAnomaly& a : history.anomalies) injected[a.container] = &a;
  std::map<std::string, const HealthWarning*> first_warning;
  std::set<std::pair<std::string, WarningKind>> kinds_raised;
  for (const HealthWarning& w : set.warnings) {
    first_warning.try_emplace(w.container, &w);
    kinds_raised.insert({w.container, w.kind});
  }

  int true_positives = 0, kind_correct = 0, before_limit = 0;
  double lead_hours_sum = 0.0;
  for (const auto& [container, w] : first_warning) {
    auto it = injected.find(container);
    if (it == injected.end()) {
      std::printf("  false positive: %s %s at %.1f h: %s\n", container.c_str(),
                  std::string(WarningKindName(w->kind)).c_str(), w->time / 3600.0,
                  w->detail.c_str());
      continue;
    }
    ++true_positives;
    // A leak also makes its replica diverge from the siblings before two days of growth are in;
    // its own kind must follow.
    kind_correct += kinds_raised.count({container, it->second->kind}) > 0;
    int64_t reached = it->second->limit_reached;
    if (reached < 0 || w->time < reached) ++before_limit;
    if (reached >= 0) lead_hours_sum += (reached - w->time) / 3600.0;
    std::printf(
        "  %s injected %s at %.1f h, warned %s at %.1f h (estimated lead %.1f h), limit "
        "reached at %.1f h\n",
        container.c_str(), std::string(WarningKindName(it->second->kind)).c_str(),
        it->second->onset / 3600.0, std::string(WarningKindName(w->kind)).c_str(), w->time / 3600.0,
        w->lead_time_s / 3600.0, reached / 3600.0);
  }
  double precision = first_warning.empty() ? 0.0 : double(true_positives) / first_warning.size();
  double recall = double(true_positives) / injected.size();
  std::printf(
      "health: %zu injected, %zu flagged, precision %.3f, recall %.3f, kind correct %d/%d, "
      "before limit %d/%d, mean actual lead %.1f h\n",
      injected.size(), first_warning.size(), precision, recall, kind_correct, true_positives,
      before_limit, true_positives, true_positives ? lead_hours_sum / true_positives : 0.0);
  EXPECT_GE(precision, 0.9);
  EXPECT_GE(recall, 0.9);
  EXPECT_EQ(before_limit, true_positives);
  EXPECT_GE(kind_correct, 0.9 * true_positives);
}

TEST(HealthTest, LeakOfASingleContainerIsFoundFromItsOwnHistory) {
  HealthOptions options;
  ContainerHealth health(options);
  HealthExpectation expected;
  expected.limit[1] = 4e9;
  std::optional<HealthFinding> finding;
  int64_t found_at = -1;
  for (int64_t t = 0; t < 5 * kSecondsPerDay && !finding; t += 300) {
    float memory = 1e9f + 5e8f * static_cast<float>(t) / kSecondsPerDay;  // +0.5 GB a day
    if (health.Add(t, {100, memory, 0, 0, 0})) {
      finding = health.Check(expected, options);
      found_at = t;
    }
  }
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->kind, WarningKind::kMemoryLeak);
  // Three days of growth after a first day to compare with.
  EXPECT_LE(found_at, 4 * kSecondsPerDay + options.window_s);
  // At +0.5 GB/day from the last day's peak (about 3 GB), a 4 GB limit is about 2 days away.
  EXPECT_NEAR(finding->lead_time_s / 86400.0, (4e9 - finding->value) / 5e8, 0.2);
}

// Runs one container for `days` with memory(t) against a 4 GB limit; the first leak finding.
std::optional<HealthFinding> LeakOf(int days, const std::function<float(int64_t)>& memory) {
  HealthOptions options;
  ContainerHealth health(options);
  HealthExpectation expected;
  expected.limit[1] = 4e9;
  for (int64_t t = 0; t < days * kSecondsPerDay; t += 300) {
    if (health.Add(t, {100, memory(t), 0, 0, 0})) {
      if (auto f = health.Check(expected, options); f && f->kind == WarningKind::kMemoryLeak) {
        return f;
      }
    }
  }
  return std::nullopt;
}

TEST(HealthTest, AnOutlierDayIsNoLeak) {
  // A daily cycle around 1 GB; day 3 runs at twice the usage, then back to normal.
  auto outlier_day = [](int64_t t) {
    double hour = static_cast<double>(t % kSecondsPerDay) / 3600;
    float base = 1e9f * static_cast<float>(1.0 + 0.2 * std::sin(hour / 24 * 6.283));
    return t / kSecondsPerDay == 3 ? 2 * base : base;
  };
  EXPECT_FALSE(LeakOf(7, outlier_day).has_value());
  // The same with the busy day from noon to noon.
  auto shifted = [&](int64_t t) {
    int64_t day = (t + kSecondsPerDay / 2) / kSecondsPerDay;
    return outlier_day(t) * (day == 3 ? 2.0f : 1.0f);
  };
  EXPECT_FALSE(LeakOf(7, shifted).has_value());
}

TEST(HealthTest, GrowthThatWouldNotReachTheLimitSoonIsNotAnnounced) {
  // +6 % a day from 1 GB: sustained, but 4 GB is about 50 days away.
  auto slow = [](int64_t t) { return 1e9f * (1.0f + 0.06f * static_cast<float>(t) / 86'400); };
  EXPECT_FALSE(LeakOf(7, slow).has_value());
  // Without a limit a leak warning could not say when it matters, so it is not raised.
  HealthOptions options;
  ContainerHealth health(options);
  HealthExpectation unlimited;
  for (int64_t t = 0; t < 7 * kSecondsPerDay; t += 300) {
    float memory = 1e9f + 5e8f * static_cast<float>(t) / kSecondsPerDay;
    if (health.Add(t, {100, memory, 0, 0, 0})) {
      EXPECT_FALSE(health.Check(unlimited, options).has_value()) << "at " << t;
    }
  }
}

TEST(HealthTest, SteadyContainerRaisesNothing) {
  HealthOptions options;
  ContainerHealth health(options);
  HealthExpectation expected;
  expected.profile_mean = {100, 1e9f, 1, 1};
  expected.profile_high = {120, 1.1e9f, 1.2f, 1.2f};
  for (int64_t t = 0; t < 4 * kSecondsPerDay; t += 300) {
    float wobble = (t / 300) % 2 ? 1.05f : 0.95f;
    if (health.Add(t, {100 * wobble, 1e9f * wobble, wobble, wobble, 0})) {
      EXPECT_FALSE(health.Check(expected, options).has_value()) << "at " << t;
    }
  }
}

// Feeds one sample a minute for `minutes` and returns the findings.
std::vector<HealthFinding> FeedTrend(int minutes, double limit,
                                     const std::function<float(int64_t)>& memory,
                                     const std::function<float(int64_t)>& siblings) {
  const TrendOptions options;
  MemoryTrend trend(options);
  std::vector<HealthFinding> findings;
  for (int64_t t = 0; t < int64_t{minutes} * 60; t += 60) {
    if (auto f = trend.Add(t, memory(t), siblings(t), limit, options)) findings.push_back(*f);
  }
  return findings;
}

TEST(MemoryTrendTest, ALeakPullingAwayFromItsSiblingsIsWarnedWithItsLeadTime) {
  // 1 GiB flat, then from minute 20 a leak of 1 MiB/s towards a 4 GiB limit.
  constexpr float kGi = 1 << 30;
  auto leaky = [&](int64_t t) { return kGi + std::max<int64_t>(t - 1200, 0) * float{1 << 20}; };
  auto flat = [&](int64_t) { return kGi; };
  const std::vector<HealthFinding> findings = FeedTrend(90, 4.0 * kGi, leaky, flat);
  ASSERT_FALSE(findings.empty());
  const HealthFinding& first = findings.front();
  EXPECT_EQ(first.kind, WarningKind::kMemoryLeak);
  EXPECT_EQ(first.dim, Dim::kMemory);
  // Raised before the limit, with the time the leak really needs to get there (±a window).
  const double true_lead = (4.0 * kGi - first.value) / (1 << 20);
  EXPECT_GT(first.lead_time_s, 0);
  EXPECT_NEAR(static_cast<double>(first.lead_time_s), true_lead, 300.0);
  // Without a limit the leak is still found, with no lead time.
  const std::vector<HealthFinding> unlimited = FeedTrend(90, 0.0, leaky, flat);
  ASSERT_FALSE(unlimited.empty());
  EXPECT_EQ(unlimited.front().lead_time_s, -1);
}

TEST(MemoryTrendTest, LoadThatLiftsEveryReplicaIsNoLeak) {
  // A steep rise shared with the siblings (a surge), and a replica a constant 50 % above them.
  auto rising = [](int64_t t) { return 1e9f + static_cast<float>(t) * 1e5f; };
  EXPECT_TRUE(FeedTrend(180, 4e9, rising, rising).empty());
  auto above = [&](int64_t t) { return 1.5f * rising(t); };
  EXPECT_TRUE(FeedTrend(180, 4e9, above, rising).empty());
}

TEST(MemoryTrendTest, NoiseIsNoLeak) {
  // Memory that jitters ±5 % per 5-minute step around a flat level, with and without siblings.
  auto noisy = [](int64_t t) {
    const int64_t step = t / 300;
    return 1e9f * (1.0f + 0.05f * static_cast<float>(std::sin(static_cast<double>(step) * 2.4)));
  };
  auto flat = [](int64_t) { return 1e9f; };
  EXPECT_TRUE(FeedTrend(600, 4e9, noisy, flat).empty());
  EXPECT_TRUE(FeedTrend(600, 4e9, noisy, [](int64_t) { return 0.0f; }).empty());
}

}  // namespace
}  // namespace archimedes
