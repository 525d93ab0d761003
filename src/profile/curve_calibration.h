// Calibrating a profile's high curve and following its trend (issue 22; docs/profiles.md).
//
// The profiler keeps, per application and dimension, the count, sum and sum of squares of the
// samples of each time-of-day bin of each of its last days: a DayGrid. From it:
//  - FindTrend finds a day-over-day trend, followed only when a line fits the
//    days' levels and, day after day, predicted the next day better than the days' mean did;
//  - Detrended divides each day by its trend factor, so that the curves are of one level;
//  - HighQuantileScore is the q of high = mean + q × scale that covers the nominal share of a day
//    the curve has not seen: the empirical quantile of scores (sample − mean) ÷ scale of each day
//    against the others (leave one day out, the days being exchangeable without a trend) or, under
//    a trend, against the days before it only. A bin-day with several samples keeps only their
//    moments, so they stand as quantiles of a normal distribution with those moments.
#ifndef ARCHIMEDES_PROFILE_CURVE_CALIBRATION_H_
#define ARCHIMEDES_PROFILE_CURVE_CALIBRATION_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace archimedes {

// The samples of one bin of one day, shifted by the grid's reference (x − reference).
struct DaySums {
  double n = 0.0, sum = 0.0, squares = 0.0;
};

struct DayGrid {
  int bins = 0;
  int days = 0;                // ring slots
  double reference = 0.0;      // what the sums are shifted by
  std::vector<DaySums> cells;  // [bin × days + slot]; all zero for a slot not kept
  std::vector<int32_t> day;    // the day number each slot holds
  std::vector<bool> kept;      // slots that hold a day and are not outlier days
};

// Below this share of the app's level a bin's scale is not taken, so that a flat history does not
// turn the smallest wobble into a score of thousands.
inline constexpr double kScaleFloorShare = 0.01;

// The spread of samples with these shifted sums, at least `floor` (and never zero).
inline double Scale(double n, double sum, double squares, double floor) {
  const double mean = sum / n;
  return std::max({std::sqrt(std::max(0.0, squares / n - mean * mean)), floor, 1e-12});
}

// Each kept slot's level relative to the kept days' (NaN: under a quarter of its bins has data).
std::vector<double> DayLevels(const DayGrid& grid);

struct Trend {
  double growth = 0.0;         // relative to the mean level, per day; 0 = none followed
  std::vector<double> levels;  // DayLevels, when there were days enough to look for a trend
};

// The day-over-day trend of the grid, when it is to be followed.
Trend FindTrend(const DayGrid& grid);

// 1 + growth × (day − mean_day), within [0.5, 2].
double TrendFactor(double growth, double day, double mean_day);

// The grid with each day divided by TrendFactor(growth, its day, mean_day).
DayGrid Detrended(const DayGrid& grid, double growth, double mean_day);

// The `p` quantile of the scores of the grid's kept days (see above; forward scores under
// `trend`), with bins' scales floored at `floor`. NaN when fewer than 20 ÷ (1 − p) samples were
// scored: too few to say.
double HighQuantileScore(const DayGrid& grid, const Trend& trend, double floor, double p);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_CURVE_CALIBRATION_H_
