#include "profile/curve_calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace archimedes {

namespace {

// A trend is followed only when the day levels lie on it (R²) over enough days and it moves the
// level visibly over the history.
constexpr int kMinTrendDays = 4;
constexpr double kMinTrendFit = 0.8;
constexpr double kMinTrendChange = 0.01;
// Forward scores start once this many days precede the scored one: a line through two days
// extrapolates little but its own noise.
constexpr size_t kMinDaysBefore = 3;
// Below this many scored samples per sample expected above the quantile, it is noise.
constexpr double kMinTailSamples = 20.0;

// Φ⁻¹((i + 0.5) ÷ 16), i = 0…15: a bin-day's samples, of which only the moments are kept.
constexpr int kSlices = 16;
constexpr std::array<double, kSlices> kSliceQuantiles = {
    -1.8627, -1.3180, -1.0100, -0.7764, -0.5791, -0.4023, -0.2372, -0.0784,
    0.0784,  0.2372,  0.4023,  0.5791,  0.7764,  1.0100,  1.3180,  1.8627};

// Weights of scores in 1/32 buckets over [−8, 24); scores beyond land in the end buckets.
class ScoreHistogram {
 public:
  // The scores of a bin-day's samples against `predicted` ÷ `scale`.
  void AddDay(const DayGrid& grid, const DaySums& day, double predicted, double scale) {
    const double shifted_mean = day.sum / day.n;
    const double mean = grid.reference + shifted_mean;
    const double spread =
        day.n == 1.0 ? 0.0
                     : std::sqrt(std::max(0.0, day.squares / day.n - shifted_mean * shifted_mean));
    // Bucket positions: (score − kLow) × kPerUnit, one division per day.
    const double per_unit = kPerUnit / scale;
    const double offset = (mean - predicted) * per_unit - kLow * kPerUnit;
    if (spread == 0.0) {
      Add(offset, day.n);
      return;
    }
    for (double z : kSliceQuantiles) Add(offset + z * spread * per_unit, day.n / kSlices);
  }

  // The score below which a share p of the weight lies, interpolated within its bucket; NaN when
  // too few samples were scored.
  double Quantile(double p) const {
    if (total_ < kMinTailSamples / (1.0 - p)) return std::numeric_limits<double>::quiet_NaN();
    const double target = p * total_;
    double below = 0.0;
    for (int b = 0; b < kBuckets; ++b) {
      if (below + weight_[b] >= target && weight_[b] > 0.0) {
        return kLow + (b + (target - below) / weight_[b]) / kPerUnit;
      }
      below += weight_[b];
    }
    return kLow + kBuckets / kPerUnit;
  }

 private:
  void Add(double position, double weight) {
    weight_[static_cast<int>(std::clamp(position, 0.0, kBuckets - 1.0))] += weight;
    total_ += weight;
  }

  static constexpr double kLow = -8.0;
  static constexpr double kPerUnit = 32.0;
  static constexpr int kBuckets = 1024;
  std::array<double, kBuckets> weight_{};
  double total_ = 0.0;
};

struct LineFit {
  int days = 0;
  double mean_day = 0.0;
  double growth = 0.0;  // slope ÷ mean level, per day
  double r2 = 0.0;
  double span = 0.0;  // days between the first and the last
};

// Least squares of the levels (NaN = none) of the slots in `use` against their days.
LineFit FitLevels(const DayGrid& grid, const std::vector<double>& levels,
                  const std::vector<bool>& use) {
  LineFit fit;
  double level_mean = 0.0, first = 0.0, last = 0.0;
  for (int s = 0; s < grid.days; ++s) {
    if (!use[s] || std::isnan(levels[s])) continue;
    const double day = grid.day[s];
    first = fit.days == 0 ? day : std::min(first, day);
    last = fit.days == 0 ? day : std::max(last, day);
    ++fit.days;
    fit.mean_day += day;
    level_mean += levels[s];
  }
  if (fit.days < 2) return fit;
  fit.mean_day /= fit.days;
  level_mean /= fit.days;
  fit.span = last - first;
  double tt = 0.0, tr = 0.0, rr = 0.0;
  for (int s = 0; s < grid.days; ++s) {
    if (!use[s] || std::isnan(levels[s])) continue;
    const double t = grid.day[s] - fit.mean_day, r = levels[s] - level_mean;
    tt += t * t;
    tr += t * r;
    rr += r * r;
  }
  if (tt == 0.0 || level_mean <= 0.0) return fit;
  fit.growth = tr / tt / level_mean;
  fit.r2 = rr > 0.0 ? tr * tr / (tt * rr) : 0.0;
  return fit;
}

// The kept slots with a level, oldest day first.
std::vector<int> DaysInOrder(const DayGrid& grid, const std::vector<double>* levels) {
  std::vector<int> order;
  for (int s = 0; s < grid.days; ++s) {
    if (grid.kept[s] && (levels == nullptr || !std::isnan((*levels)[s]))) order.push_back(s);
  }
  std::sort(order.begin(), order.end(), [&](int x, int y) { return grid.day[x] < grid.day[y]; });
  return order;
}

double CellMean(const DayGrid& grid, const DaySums& c) { return grid.reference + c.sum / c.n; }

// Each kept day against the bin's other kept days.
double LeaveOneDayOut(const DayGrid& grid, double floor, double p) {
  ScoreHistogram histogram;
  for (int b = 0; b < grid.bins; ++b) {
    const DaySums* row = &grid.cells[static_cast<size_t>(b) * grid.days];
    DaySums total;
    for (int s = 0; s < grid.days; ++s) {
      total.n += row[s].n;
      total.sum += row[s].sum;
      total.squares += row[s].squares;
    }
    for (int s = 0; s < grid.days; ++s) {
      const DaySums& c = row[s];
      if (c.n == 0.0) continue;
      const double n = total.n - c.n;
      if (n < 2.0) continue;  // one sample has no spread to score against
      const double others = total.sum - c.sum;
      histogram.AddDay(grid, c, grid.reference + others / n,
                       Scale(n, others, total.squares - c.squares, floor));
    }
  }
  return histogram.Quantile(p);
}

// Each kept day against the days before it, detrended and carried to its day by the line through
// those days only.
double Forward(const DayGrid& grid, const std::vector<double>& levels, double floor, double p) {
  ScoreHistogram histogram;
  const std::vector<int> order = DaysInOrder(grid, nullptr);
  std::vector<bool> before(grid.days, false);
  for (size_t k = 0; k < order.size(); ++k) {
    const int target = order[k];
    if (k >= kMinDaysBefore) {
      const LineFit fit = FitLevels(grid, levels, before);
      const double ahead = TrendFactor(fit.growth, grid.day[target], fit.mean_day);
      for (int b = 0; b < grid.bins; ++b) {
        const DaySums* row = &grid.cells[static_cast<size_t>(b) * grid.days];
        if (row[target].n == 0.0) continue;
        // Detrended raw values x ÷ f, from the shifted sums of x − reference.
        double n = 0.0, sum = 0.0, squares = 0.0;
        for (int s = 0; s < grid.days; ++s) {
          const DaySums& c = row[s];
          if (!before[s] || c.n == 0.0) continue;
          const double f = TrendFactor(fit.growth, grid.day[s], fit.mean_day);
          const double raw_sum = c.sum + c.n * grid.reference;
          const double raw_squares =
              c.squares + 2.0 * grid.reference * c.sum + c.n * grid.reference * grid.reference;
          n += c.n;
          sum += raw_sum / f;
          squares += raw_squares / (f * f);
        }
        if (n == 0.0) continue;
        histogram.AddDay(grid, row[target], sum / n * ahead,
                         Scale(n, sum, squares, floor / ahead) * ahead);
      }
    }
    before[target] = true;
  }
  return histogram.Quantile(p);
}

// The relative day-over-day growth of the levels, when the trend is to be followed; else 0.
double FollowedGrowth(const DayGrid& grid, const std::vector<double>& levels);

}  // namespace

std::vector<double> DayLevels(const DayGrid& grid) {
  // A day's level: the mean over its bins of its ratio to the bin's mean over the kept days (a
  // day left out has no samples in the grid).
  std::vector<double> ratio_sum(grid.days, 0.0), means(grid.days);
  std::vector<int> ratio_bins(grid.days, 0);
  for (int b = 0; b < grid.bins; ++b) {
    const DaySums* row = &grid.cells[static_cast<size_t>(b) * grid.days];
    double sum = 0.0;
    int with_data = 0;
    for (int s = 0; s < grid.days; ++s) {
      if (row[s].n == 0.0) continue;
      means[s] = CellMean(grid, row[s]);
      sum += means[s];
      ++with_data;
    }
    if (with_data < 2 || sum <= 0.0) continue;
    const double per_mean = with_data / sum;
    for (int s = 0; s < grid.days; ++s) {
      if (row[s].n == 0.0) continue;
      ratio_sum[s] += means[s] * per_mean;
      ++ratio_bins[s];
    }
  }
  std::vector<double> levels(grid.days, std::numeric_limits<double>::quiet_NaN());
  for (int s = 0; s < grid.days; ++s) {
    if (ratio_bins[s] * 4 >= grid.bins) levels[s] = ratio_sum[s] / ratio_bins[s];
  }
  return levels;
}

Trend FindTrend(const DayGrid& grid) {
  Trend trend;
  if (std::count(grid.kept.begin(), grid.kept.end(), true) < kMinTrendDays) return trend;
  trend.levels = DayLevels(grid);
  trend.growth = FollowedGrowth(grid, trend.levels);
  return trend;
}

namespace {

double FollowedGrowth(const DayGrid& grid, const std::vector<double>& levels) {
  const LineFit fit = FitLevels(grid, levels, grid.kept);
  if (fit.days < kMinTrendDays || fit.r2 < kMinTrendFit ||
      std::abs(fit.growth) * fit.span < kMinTrendChange) {
    return 0.0;
  }
  // And only when, day after day, the line through the days before predicted the next day's
  // level better than their mean did.
  const std::vector<int> order = DaysInOrder(grid, &levels);
  std::vector<bool> before(grid.days, false);
  double line_error = 0.0, flat_error = 0.0, level_sum = 0.0;
  for (size_t k = 0; k < order.size(); ++k) {
    const int s = order[k];
    if (k >= 2) {
      const LineFit past = FitLevels(grid, levels, before);
      const double flat = level_sum / static_cast<double>(k);
      const double line = flat * TrendFactor(past.growth, grid.day[s], past.mean_day);
      line_error += (levels[s] - line) * (levels[s] - line);
      flat_error += (levels[s] - flat) * (levels[s] - flat);
    }
    before[s] = true;
    level_sum += levels[s];
  }
  return line_error < flat_error ? fit.growth : 0.0;
}

}  // namespace

double TrendFactor(double growth, double day, double mean_day) {
  return growth == 0.0 ? 1.0 : std::clamp(1.0 + growth * (day - mean_day), 0.5, 2.0);
}

DayGrid Detrended(const DayGrid& grid, double growth, double mean_day) {
  DayGrid out = grid;
  if (growth == 0.0) return out;
  for (int s = 0; s < grid.days; ++s) {
    const double f = TrendFactor(growth, grid.day[s], mean_day);
    // x ÷ f − reference = (x − reference) ÷ f + shift.
    const double shift = grid.reference * (1.0 / f - 1.0);
    for (int b = 0; b < grid.bins; ++b) {
      DaySums& c = out.cells[static_cast<size_t>(b) * grid.days + s];
      if (c.n == 0.0) continue;
      const DaySums& raw = grid.cells[static_cast<size_t>(b) * grid.days + s];
      c.sum = raw.sum / f + raw.n * shift;
      c.squares = raw.squares / (f * f) + 2.0 * shift * raw.sum / f + raw.n * shift * shift;
    }
  }
  return out;
}

double HighQuantileScore(const DayGrid& grid, const Trend& trend, double floor, double p) {
  return trend.growth == 0.0 ? LeaveOneDayOut(grid, floor, p)
                             : Forward(grid, trend.levels, floor, p);
}

}  // namespace archimedes
