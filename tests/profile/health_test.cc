#include "profile/health.h"

#include <gtest/gtest.h>

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
  for (const HealthWarning& w : set.warnings) first_warning.try_emplace(w.container, &w);

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
    kind_correct += w->kind == it->second->kind;
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
  EXPECT_LT(found_at, 2 * kSecondsPerDay);
  // At +0.5 GB/day from about 2 GB, a 4 GB limit is about 4 days away.
  EXPECT_NEAR(finding->lead_time_s / 86400.0, (4e9 - finding->value) / 5e8, 0.2);
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

}  // namespace
}  // namespace archimedes
