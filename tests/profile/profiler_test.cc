#include "profile/profiler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "profile/clustering.h"
#include "profile/synthetic_history.h"
#include "support/family_ari.h"

namespace archimedes {
namespace {

using testing::FamilyAri;
using testing::GenerateSyntheticHistory;
using testing::PrefixFamily;
using testing::PrintClasses;
using testing::SyntheticHistory;
using testing::SyntheticParams;

ProfileSet ProfileSynthetic(const SyntheticParams& params, SyntheticHistory* history = nullptr,
                            ProfileOptions options = {}) {
  Profiler profiler(options);
  SyntheticHistory h = GenerateSyntheticHistory(
      params,
      [&](int64_t t, const std::string& app, const std::string& container,
          const std::array<float, kNumDims>& usage) { profiler.Add(t, app, container, usage); });
  if (history) *history = std::move(h);
  return profiler.Finish();
}

TEST(ProfilerTest, ClassesRecoverSyntheticFamilies) {
  SyntheticParams params;
  params.apps = 150;
  ProfileSet set = ProfileSynthetic(params);
  double ari = FamilyAri(set, &PrefixFamily);
  std::printf("synthetic families: %zu classes, ARI %.3f; %s\n", set.classes.size(), ari,
              set.class_criterion.c_str());
  PrintClasses(set);
  EXPECT_EQ(set.classes.size(), 5u);
  EXPECT_GE(ari, 0.9);
}

// A trace that gives each window's maximum: the high curve, the peak and the advice follow the
// maxima (3× the average here), the mean curve the averages.
TEST(ProfilerTest, WindowMaximaDriveTheHighCurveAndTheAdvice) {
  Profiler with_max, without_max;
  const int web = with_max.ContainerIndex("web", "web-0");
  for (int64_t t = 0; t < 3 * kSecondsPerDay; t += 300) {
    const float noise = (t / 300) % 3 == 0 ? 1.05f : 0.97f;
    const std::array<float, kNumDims> average = {100 * noise, 1e9f, 0, 0, 0};
    with_max.AddWithWindowMax(web, t, average, {300 * noise, -1, -1, -1, -1});
    without_max.Add(t, "web", "web-0", average);
  }
  const ProfileSet set = with_max.Finish();
  const ProfileSet plain = without_max.Finish();
  const AppProfile& p = set.apps[0];
  const AppProfile& q = plain.apps[0];
  EXPECT_NEAR(p.mean[0][100], q.mean[0][100], 0.01f);
  // Bin 100 is a 0.97 sample every day: the maximum 291, the average 97 (to the resolution of
  // the calibrated quantile, 1/32 of the scale floor).
  EXPECT_NEAR(p.high[0][100], 291.0f, 0.05f);
  EXPECT_NEAR(q.high[0][100], 97.0f, 0.05f);
  EXPECT_NEAR(p.peak[0], 315.0f, 0.01f);
  EXPECT_GE(p.recommended[0], 315.0 * 1.2);
  EXPECT_LT(q.recommended[0], 140.0);
  // Memory had no maximum given: its curves and advice are the averages'.
  EXPECT_EQ(p.high[1][100], q.high[1][100]);
  EXPECT_EQ(p.recommended[1], q.recommended[1]);
}

TEST(ProfilerTest, CurvesFollowTheShapeAndIgnoreAnOutlierDay) {
  Profiler profiler;
  // One replica, flat 1000m except a daily peak of 3000m at 12:00-13:00; day 3 doubles everything.
  for (int64_t t = 0; t < 7 * kSecondsPerDay; t += 300) {
    if (t % 7 == 0) continue;  // irregular gaps
    double hour = static_cast<double>(t % kSecondsPerDay) / 3600;
    float cpu = hour >= 12 && hour < 13 ? 3000.0f : 1000.0f;
    if (t / kSecondsPerDay == 3) cpu *= 2;
    profiler.Add(t, "web", "web-0", {cpu, 1e9f, 0, 0, 0});
  }
  ProfileSet set = profiler.Finish();
  const AppProfile* web = set.Find("web");
  ASSERT_NE(web, nullptr);
  const DailyCurve& mean = web->mean[0];
  EXPECT_NEAR(mean[0], 1000.0f, 1.0f);
  EXPECT_NEAR(mean[12 * 12 + 6], 3000.0f, 1.0f);
  EXPECT_NEAR(web->high[0][0], 1000.0f, 1.0f);  // the doubled day is left out
  EXPECT_EQ(set.Find("nope"), nullptr);
}

TEST(ProfilerTest, MissingBinsAreInterpolated) {
  Profiler profiler;
  for (int day = 0; day < 3; ++day) {
    profiler.Add(day * kSecondsPerDay + 0, "a", "a-0", {100, 1, 1, 1, 0});
    profiler.Add(day * kSecondsPerDay + int64_t{12} * 3600, "a", "a-0", {300, 1, 1, 1, 0});
  }
  ProfileSet set = profiler.Finish();
  const DailyCurve& cpu = set.Find("a")->mean[0];
  EXPECT_NEAR(cpu[72], 200.0f, 1.0f);   // 06:00, halfway between
  EXPECT_NEAR(cpu[216], 200.0f, 1.0f);  // 18:00, across midnight
}

TEST(ProfilerTest, RejectsBadOptions) {
  ProfileOptions bins;
  bins.bins = 7;
  EXPECT_THROW(Profiler{bins}, std::invalid_argument);
  ProfileOptions quantile;
  quantile.high_quantile = 1.5;
  EXPECT_THROW(Profiler{quantile}, std::invalid_argument);
}

TEST(ProfilerTest, ComplementaryClassesGetAffinity) {
  SyntheticParams params;
  params.apps = 100;
  ProfileSet set = ProfileSynthetic(params);
  int day = -1, night = -1;
  for (const ProfileClass& c : set.classes) {
    if (c.description.find("daytime") != std::string::npos && day < 0) day = c.id;
    if (c.description.find("night") != std::string::npos && night < 0) night = c.id;
  }
  ASSERT_GE(day, 0);
  ASSERT_GE(night, 0);
  bool affinity = false, same_class_stacks = false;
  for (const PlacementHint& h : set.hints) {
    if (h.kind == HintKind::kAffinity && std::min(h.a, h.b) == std::min(day, night) &&
        std::max(h.a, h.b) == std::max(day, night)) {
      affinity = true;
    }
    if (h.kind == HintKind::kAntiAffinity && h.a == day && h.b == day) same_class_stacks = true;
  }
  EXPECT_TRUE(affinity);
  EXPECT_TRUE(same_class_stacks);
  for (const ClassPair& p : set.complementarity) {
    if (p.a == p.b) {
      EXPECT_NEAR(p.score, 0.0f, 1e-4);
    }
  }
}

}  // namespace
}  // namespace archimedes
