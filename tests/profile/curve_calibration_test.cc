#include "profile/curve_calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace archimedes {
namespace {

// One sample per bin and day: `value(bin, day)`, on `days` consecutive days from day 10.
DayGrid GridOfSamples(int bins, int days, const std::function<double(int, int)>& value) {
  DayGrid grid{.bins = bins,
               .days = days,
               .reference = 0.0,
               .cells = std::vector<DaySums>(static_cast<size_t>(bins) * days),
               .day = std::vector<int32_t>(days),
               .kept = std::vector<bool>(days, true)};
  for (int s = 0; s < days; ++s) grid.day[s] = 10 + s;
  for (int b = 0; b < bins; ++b) {
    for (int s = 0; s < days; ++s) {
      const double x = value(b, s);
      grid.cells[static_cast<size_t>(b) * days + s] = {.n = 1, .sum = x, .squares = x * x};
    }
  }
  return grid;
}

TEST(CurveCalibrationTest, LeaveOneDayOutIsTheEmpiricalQuantileOfTheScores) {
  // Every bin's 7 days are 100 + the 7 draws in some order, so each bin scores the same 7 days,
  // each against the other 6: q at 6/7 is the second largest of those 7 scores (to the 1/32
  // resolution of the histogram), far from any normal quantile.
  const double draws[7] = {0, 1, 2, 3, 4, 6, 30};
  const DayGrid grid =
      GridOfSamples(288, 7, [&](int b, int s) { return 100 + draws[(s + b) % 7]; });
  std::vector<double> scores;
  for (int s = 0; s < 7; ++s) {
    double sum = 0, squares = 0;
    for (int o = 0; o < 7; ++o) {
      if (o == s) continue;
      sum += 100 + draws[o];
      squares += (100 + draws[o]) * (100 + draws[o]);
    }
    scores.push_back((100 + draws[s] - sum / 6) / Scale(6, sum, squares, 1.0));
  }
  std::sort(scores.begin(), scores.end());
  const double q = HighQuantileScore(grid, Trend{}, 1.0, 6.0 / 7.0);
  EXPECT_GE(q, scores[5]);
  EXPECT_LE(q, scores[5] + 1.0 / 32);
  EXPECT_LT(q, scores[6]);
}

TEST(CurveCalibrationTest, TooFewSamplesSayNothing) {
  const DayGrid grid = GridOfSamples(4, 3, [](int b, int s) { return b + s; });
  EXPECT_TRUE(std::isnan(HighQuantileScore(grid, Trend{}, 1.0, 0.95)));
}

TEST(CurveCalibrationTest, AClearTrendIsFollowedAndDetrended) {
  // 2 % a day on a daily cycle.
  const DayGrid grid = GridOfSamples(
      96, 7, [](int b, int s) { return (1 + 0.5 * std::sin(b / 15.0)) * (1 + 0.02 * s) * 100; });
  const Trend trend = FindTrend(grid);
  const double growth = trend.growth;
  EXPECT_NEAR(growth, 0.02 / 1.06, 0.001);  // per day, of the mean level (day 3's)
  const DayGrid level = Detrended(grid, growth, 13.0);
  for (int s = 0; s < 7; ++s) {
    EXPECT_NEAR(level.cells[s].sum, grid.cells[3].sum, 0.01) << s;  // every day at day 3's level
  }
  // Forward scores of a clean trend are near zero: the high curve hugs the mean.
  const double q = HighQuantileScore(grid, trend, 0.01, 0.5);
  EXPECT_FALSE(std::isnan(q));
  EXPECT_LT(std::abs(q), 1.0);
}

TEST(CurveCalibrationTest, NoTrendInNoiseOrAZigZag) {
  const DayGrid zigzag =
      GridOfSamples(96, 7, [](int b, int s) { return 100.0 + (s % 2) * 10 + b; });
  EXPECT_EQ(FindTrend(zigzag).growth, 0.0);
  // Levels that rise then fall back fit no line well enough.
  const double hump[7] = {100, 104, 108, 110, 108, 104, 100};
  const DayGrid humped = GridOfSamples(96, 7, [&](int b, int s) { return hump[s] + b; });
  EXPECT_EQ(FindTrend(humped).growth, 0.0);
  // Three days are too few to call a line a trend.
  const DayGrid short_rise = GridOfSamples(96, 3, [](int b, int s) { return 100.0 + 5 * s + b; });
  EXPECT_EQ(FindTrend(short_rise).growth, 0.0);
}

}  // namespace
}  // namespace archimedes
