#include "profile/backtest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "model/quantile.h"
#include "profile/profiler.h"
#include "profile/synthetic_history.h"

namespace archimedes {
namespace {

using testing::SyntheticHistory;
using testing::SyntheticParams;

// Learns on the days before `split_day` of a synthetic history whose limits are known, and scores
// the warnings on the rest.
BacktestScore BacktestSynthetic(const SyntheticParams& params, int split_day,
                                std::vector<HealthWarning>* warnings = nullptr,
                                const ProfileOptions& options = {}) {
  SyntheticHistory history = testing::PlanSyntheticHistory(params);
  Profiler profiler(options);
  for (const testing::SyntheticApp& a : history.apps) profiler.SetLimit(a.name, a.limit);
  Backtest backtest(profiler, split_day * kSecondsPerDay);
  testing::StreamSyntheticHistory(
      params, history,
      [&](int64_t t, const std::string& app, const std::string& container,
          const std::array<float, kNumDims>& usage) {
        if (t < backtest.split()) {
          profiler.Add(t, app, container, usage);
        } else {
          backtest.Add(t, app, container, usage);
        }
      });
  ProfileSet set = profiler.Finish();
  if (warnings) *warnings = set.warnings;
  return backtest.Score(set);
}

void PrintScore(const char* name, const BacktestScore& score) {
  for (int k = 0; k < 3; ++k) {
    const BacktestKindScore& s = score.kinds[k];
    std::vector<float> leads = s.lead_hours;
    std::printf("%s: %-17s %3d warnings, %3d came true, median lead %.1f h\n", name,
                std::string(WarningKindName(static_cast<WarningKind>(k))).c_str(), s.warnings,
                s.came_true, leads.empty() ? 0.0 : Median(leads));
  }
  for (int d = 0; d < kProfileDims; ++d) {
    std::printf("%s: incidents %-8s %3d, warned before %3d\n", name,
                std::string(DimName(static_cast<Dim>(d))).c_str(), score.incidents[d],
                score.warned[d]);
  }
}

TEST(BacktestTest, IncidentsAndOutcomesOfAHandMadeHistory) {
  Profiler profiler;
  profiler.SetLimit("web", {1000, 100, 0, 0, 0});
  Backtest backtest(profiler, kSecondsPerDay);
  // web-0 reaches its memory limit on day 1; web-1 stays below it (one sample at the limit is
  // a burst, not an incident); web-2 has no warning and reaches its CPU limit.
  for (int64_t t = kSecondsPerDay; t < 2 * kSecondsPerDay; t += 300) {
    float late = t >= kSecondsPerDay + int64_t{6} * 3600 ? 1.0f : 0.5f;
    backtest.Add(t, "web", "web-0", {100, 100 * late, 0, 0, 0});
    backtest.Add(t, "web", "web-1", {100, t % 7200 == 0 ? 100.0f : 50.0f, 0, 0, 0});
    backtest.Add(t, "web", "web-2", {1000, 10, 0, 0, 0});
  }
  std::vector<HealthWarning> warnings(3);
  warnings[0] = {.app = "web",
                 .container = "web-0",
                 .kind = WarningKind::kMemoryLeak,
                 .dim = Dim::kMemory,
                 .time = kSecondsPerDay - 3600};
  warnings[1] = {.app = "web",
                 .container = "web-1",
                 .kind = WarningKind::kMemoryLeak,
                 .dim = Dim::kMemory,
                 .time = kSecondsPerDay - 3600};
  // Raised after the split: not the learner's warning, not scored.
  warnings[2] = {.app = "web",
                 .container = "web-2",
                 .kind = WarningKind::kCpuStuckHigh,
                 .dim = Dim::kCpu,
                 .time = kSecondsPerDay + 3600};
  ProfileSet learned;
  learned.warnings = warnings;
  BacktestScore score = backtest.Score(learned);
  const BacktestKindScore& leak = score.kinds[static_cast<int>(WarningKind::kMemoryLeak)];
  EXPECT_EQ(score.containers, 3);
  EXPECT_EQ(leak.warnings, 2);
  EXPECT_EQ(leak.came_true, 1);
  ASSERT_EQ(leak.lead_hours.size(), 1u);
  EXPECT_NEAR(leak.lead_hours[0], 7.5, 0.01);  // the first window at the limit ends at 6 h 30
  EXPECT_EQ(score.kinds[static_cast<int>(WarningKind::kCpuStuckHigh)].warnings, 0);
  EXPECT_EQ(score.incidents[static_cast<int>(Dim::kMemory)], 1);
  EXPECT_EQ(score.warned[static_cast<int>(Dim::kMemory)], 1);
  EXPECT_EQ(score.incidents[static_cast<int>(Dim::kCpu)], 1);
  EXPECT_EQ(score.warned[static_cast<int>(Dim::kCpu)], 0);
}

// Learn on days 0-5 of a history with injected anomalies (from 2 d 6 h on), score on days 6-7:
// the warnings come true and the incidents were warned about.
TEST(BacktestTest, InjectedAnomaliesAreWarnedAndComeTrue) {
  SyntheticParams params;
  params.apps = 60;
  params.days = 8;
  params.anomalies_per_kind = 6;
  BacktestScore score = BacktestSynthetic(params, 6);
  PrintScore("injected", score);
  for (int k = 0; k < 3; ++k) {
    const BacktestKindScore& s = score.kinds[k];
    EXPECT_GE(s.warnings, 5) << WarningKindName(static_cast<WarningKind>(k));
    EXPECT_GE(s.came_true, 0.9 * s.warnings) << WarningKindName(static_cast<WarningKind>(k));
  }
  int incidents = 0, warned = 0;
  for (int d = 0; d < kProfileDims; ++d) {
    incidents += score.incidents[d];
    warned += score.warned[d];
  }
  EXPECT_GE(incidents, 15);
  EXPECT_GE(warned, 0.9 * incidents);
}

// No anomaly injected: single-replica apps with outlier days (a 2× day must not read as a leak)
// and bursty multi-replica apps raise no warning.
TEST(BacktestTest, QuietWithoutAnomalies) {
  SyntheticParams single;
  single.apps = 500;
  single.replicas_min = single.replicas_max = 1;
  single.outlier_day_share = 0.3;
  std::vector<HealthWarning> warnings;
  BacktestScore score = BacktestSynthetic(single, 5, &warnings);
  PrintScore("single replicas", score);
  EXPECT_EQ(warnings.size(), 0u);
  for (const HealthWarning& w : warnings) {
    ADD_FAILURE() << w.container << " at " << w.time / 3600.0 << " h: " << w.detail;
  }

  SyntheticParams bursty;
  bursty.apps = 100;
  warnings.clear();
  BacktestSynthetic(bursty, 5, &warnings);
  int divergent = 0;
  for (const HealthWarning& w : warnings) divergent += w.kind == WarningKind::kDivergentReplica;
  std::printf("multi-replica apps (a fifth spiky): %zu warnings, %d divergent-replica\n",
              warnings.size(), divergent);
  EXPECT_EQ(warnings.size(), 0u);
  for (const HealthWarning& w : warnings) ADD_FAILURE() << w.container << ": " << w.detail;
}

// Right-sizing on held-back days, side by side with VPA's rule learned on the same days: the
// Archimedes advice covers nearly every held-back sample, VPA's p90 × 1.15 fewer, at less slack.
TEST(BacktestTest, AdviceIsScoredAgainstVpaOnTheHeldBackPart) {
  SyntheticParams params;
  params.apps = 60;
  params.outlier_day_share = 0.0;  // an incident on a held-back day is not what sizing is judged on
  BacktestScore score = BacktestSynthetic(params, 5);
  ASSERT_EQ(score.advice.size(), 2u * params.apps);
  for (Dim dim : {Dim::kCpu, Dim::kMemory}) {
    double coverage = 0, vpa_coverage = 0, slack = 0, vpa_slack = 0, least_slack = 0;
    int n = 0;
    for (const AdviceScore& a : score.advice) {
      if (a.dim != dim) continue;
      coverage += a.coverage;
      vpa_coverage += a.vpa_coverage;
      slack += a.slack;
      vpa_slack += a.vpa_slack;
      least_slack += a.least_slack;
      // 99 % coverage is never had for less than the held-back p99.
      if (a.coverage >= 0.99) {
        EXPECT_GE(a.slack, a.least_slack * 0.95) << a.app;
      }
      ++n;
    }
    std::printf(
        "%s advice on days 5-6: Archimedes coverage %.4f slack %.2f, VPA %.4f slack %.2f, least "
        "slack at 99%% coverage %.2f\n",
        std::string(DimName(dim)).c_str(), coverage / n, slack / n, vpa_coverage / n, vpa_slack / n,
        least_slack / n);
    EXPECT_GE(coverage / n, 0.99) << DimName(dim);
    EXPECT_LT(vpa_coverage, coverage) << DimName(dim);
    EXPECT_LT(vpa_slack, slack) << DimName(dim);
    EXPECT_LE(least_slack, slack) << DimName(dim);
  }
}

// One app of `replicas` containers sampled every 5 minutes for `days` days: a daily cycle times
// 1 + growth × day, times noise drawn by `noise` (mean 1).
template <typename Noise>
BacktestScore BacktestOneApp(const ProfileOptions& options, int days, int split_day, int replicas,
                             double growth, Noise noise, ProfileSet* profiles = nullptr) {
  Profiler profiler(options);
  Backtest backtest(profiler, split_day * kSecondsPerDay);
  std::mt19937_64 random(11);
  for (int64_t t = 0; t < days * kSecondsPerDay; t += 300) {
    const double day = static_cast<double>(t) / kSecondsPerDay;
    const double cycle = 1.0 + 0.5 * std::sin(2 * M_PI * day);
    for (int r = 0; r < replicas; ++r) {
      std::array<float, kNumDims> usage{};
      for (int d = 0; d < 2; ++d) {
        usage[d] = static_cast<float>((d == 0 ? 1000.0 : 4e9) * cycle *
                                      (1.0 + growth * std::floor(day)) * noise(random));
      }
      const std::string container = "app-" + std::to_string(r);
      if (t < backtest.split()) {
        profiler.Add(t, "app", container, usage);
      } else {
        backtest.Add(t, "app", container, usage);
      }
    }
  }
  ProfileSet set = profiler.Finish();
  BacktestScore score = backtest.Score(set);
  if (profiles) *profiles = std::move(set);
  return score;
}

void PrintCurves(const char* name, const BacktestScore& score) {
  for (int d = 0; d < 2; ++d) {
    const CurveScore& c = score.curves[d];
    std::printf("%s: %-6s high-curve coverage %.4f (first day %.4f), mean error %.4f\n", name,
                std::string(DimName(static_cast<Dim>(d))).c_str(), c.coverage, c.first_day_coverage,
                c.mean_error);
  }
}

// Right-skewed noise (exponential): the normal approximation's p95 (mean + 1.645 σ) covers about
// 93 % of later days; the empirical quantile of days left out covers its nominal 95 %. With
// several replicas a bin of a day keeps only the mean and spread of its samples, so the spread
// across replicas is taken as normal: better than the approximation, short of nominal.
TEST(BacktestTest, CalibratedHighCurveCoversItsNominalShareOfLaterDays) {
  auto skewed = [](std::mt19937_64& random) {
    return 0.7 + 0.3 * std::exponential_distribution<double>(1.0)(random);
  };
  const ProfileOptions normal{.calibrated = false};
  const BacktestScore calibrated = BacktestOneApp({}, 14, 7, 1, 0.0, skewed);
  const BacktestScore approximated = BacktestOneApp(normal, 14, 7, 1, 0.0, skewed);
  PrintCurves("skewed, one replica, calibrated", calibrated);
  PrintCurves("skewed, one replica, normal", approximated);
  for (int d = 0; d < 2; ++d) {
    EXPECT_NEAR(calibrated.curves[d].coverage, 0.95, 0.015) << d;
    EXPECT_LT(approximated.curves[d].coverage, 0.94) << d;
  }
  const BacktestScore replicas = BacktestOneApp({}, 9, 7, 8, 0.0, skewed);
  const BacktestScore replicas_normal = BacktestOneApp(normal, 9, 7, 8, 0.0, skewed);
  PrintCurves("skewed, 8 replicas, calibrated", replicas);
  PrintCurves("skewed, 8 replicas, normal", replicas_normal);
  for (int d = 0; d < 2; ++d) {
    EXPECT_GT(replicas.curves[d].coverage, replicas_normal.curves[d].coverage + 0.01) << d;
  }

  // The synthetic families (cycles, spikes, bursts, 4-8 replicas): nominal ± 2 points.
  SyntheticParams families;
  families.outlier_day_share = 0.0;
  const BacktestScore fleet = BacktestSynthetic(families, 5);
  const BacktestScore fleet_normal = BacktestSynthetic(families, 5, nullptr, normal);
  PrintCurves("families, calibrated", fleet);
  PrintCurves("families, normal", fleet_normal);
  for (int d = 0; d < 2; ++d) EXPECT_NEAR(fleet.curves[d].coverage, 0.95, 0.02) << d;
}

// Usage growing 3 % a day: calibrated curves follow it to the day after the history and cover
// their share of it; a flat profile lags it by half the history's growth.
TEST(BacktestTest, CurvesFollowADayOverDayTrend) {
  auto noise = [](std::mt19937_64& random) {
    return std::max(0.2, std::normal_distribution<double>(1.0, 0.05)(random));
  };
  ProfileSet profiles;
  const BacktestScore trend = BacktestOneApp({}, 8, 7, 3, 0.03, noise, &profiles);
  const BacktestScore flat = BacktestOneApp({.calibrated = false}, 8, 7, 3, 0.03, noise);
  PrintCurves("growing 3 %/day, calibrated", trend);
  PrintCurves("growing 3 %/day, normal", flat);
  for (int d = 0; d < 2; ++d) {
    EXPECT_NEAR(profiles.apps[0].growth[d], 0.03 / 1.09, 0.003) << d;  // per day of the mean level
    EXPECT_LT(trend.curves[d].mean_error, 0.05) << d;
    EXPECT_GT(flat.curves[d].mean_error, 0.08) << d;
    EXPECT_NEAR(trend.curves[d].coverage, 0.95, 0.03) << d;
    EXPECT_LT(flat.curves[d].coverage, 0.8) << d;
  }
}

// Without a trend no growth is followed: none of the synthetic families' apps gets one.
TEST(BacktestTest, NoTrendWhereThereIsNone) {
  SyntheticParams families;
  families.outlier_day_share = 0.0;
  SyntheticHistory history = testing::PlanSyntheticHistory(families);
  Profiler profiler;
  testing::StreamSyntheticHistory(
      families, history,
      [&](int64_t t, const std::string& app, const std::string& container,
          const std::array<float, kNumDims>& usage) { profiler.Add(t, app, container, usage); });
  const ProfileSet set = profiler.Finish();
  int with_growth = 0;
  for (const AppProfile& p : set.apps) {
    for (int d = 0; d < kProfileDims; ++d) {
      if (p.growth[d] != 0.0f) {
        ++with_growth;
        ADD_FAILURE() << p.app << " " << DimName(static_cast<Dim>(d)) << " grows " << p.growth[d];
      }
    }
  }
  EXPECT_EQ(with_growth, 0);
}

}  // namespace
}  // namespace archimedes
