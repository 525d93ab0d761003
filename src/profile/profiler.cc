#include "profile/profiler.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "model/parallel_map.h"
#include "model/quantile.h"
#include "profile/clustering.h"
#include "profile/complementarity.h"
#include "profile/curve_calibration.h"
#include "profile/features.h"

namespace archimedes {

namespace {

constexpr int32_t kEmptyDay = INT32_MIN;
constexpr int kMaxDays = 366;
// Siblings compared per window: enough for a stable median, bounded for apps with many replicas.
constexpr int kMaxSiblingsCompared = 64;
// Outlier days: at least this relative departure, and at least this many robust deviations.
constexpr double kOutlierDayRatio = 0.25;
constexpr double kOutlierDaySigmas = 4.0;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// Fills bins without data (NaN) by linear interpolation between their nearest neighbours with data
// on the daily circle; all zero when no bin has data.
void FillGaps(std::vector<float>& v) {
  const int n = static_cast<int>(v.size());
  int first = -1;
  for (int b = 0; b < n && first < 0; ++b) {
    if (!std::isnan(v[b])) first = b;
  }
  if (first < 0) {
    std::fill(v.begin(), v.end(), 0.0f);
    return;
  }
  int previous = first;
  for (int step = 1; step <= n; ++step) {
    int b = (first + step) % n;
    if (std::isnan(v[b])) continue;
    int gap = (b - previous + n) % n;
    if (gap == 0) gap = n;
    for (int k = 1; k < gap; ++k) {
      float t = static_cast<float>(k) / gap;
      v[(previous + k) % n] = v[previous] * (1 - t) + v[b] * t;
    }
    previous = b;
  }
}

}  // namespace

double NormalQuantile(double p) {
  double lo = -10.0, hi = 10.0;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

Profiler::Profiler(ProfileOptions options) : options_(options) {
  if (options_.bins <= 0 || kSecondsPerDay % options_.bins != 0) {
    throw std::invalid_argument("profile bins must divide 86400, got " +
                                std::to_string(options_.bins));
  }
  if (options_.max_days < 1 || options_.max_days > kMaxDays) {
    throw std::invalid_argument("profile days must be in [1, 366], got " +
                                std::to_string(options_.max_days));
  }
  if (!(options_.high_quantile > 0.5 && options_.high_quantile < 1.0)) {
    throw std::invalid_argument("the high quantile must be in (0.5, 1)");
  }
  if (options_.health.window_s <= 0 || kSecondsPerDay % options_.health.window_s != 0) {
    throw std::invalid_argument("the health window must divide 86400 seconds");
  }
  if (options_.health.leak_days < 1 || options_.health.leak_days > 7) {
    throw std::invalid_argument("the health leak rule's days of growth must be in [1, 7]");
  }
  z_ = NormalQuantile(options_.high_quantile);
  bin_seconds_ = kSecondsPerDay / options_.bins;
}

int Profiler::AppIndex(std::string_view app) {
  key_.assign(app);
  auto [it, inserted] = app_index_.try_emplace(key_, static_cast<int>(apps_.size()));
  if (inserted) {
    apps_.emplace_back();
    apps_.back().name = key_;
  }
  return it->second;
}

int Profiler::ContainerIndex(std::string_view app, std::string_view container) {
  int a = AppIndex(app);
  key_.assign(app);
  key_.push_back('\0');
  key_.append(container);
  auto [it, inserted] = container_index_.try_emplace(key_, static_cast<int>(containers_.size()));
  if (inserted) {
    containers_.push_back(Container{std::string(container), a, ContainerHealth(options_.health)});
    apps_[a].containers.push_back(it->second);
  }
  return it->second;
}

void Profiler::SetRequest(std::string_view app, const std::array<double, kNumDims>& request,
                          int replicas) {
  App& a = apps_[AppIndex(app)];
  a.has_request = true;
  a.request = request;
  a.replicas = replicas;
}

void Profiler::SetLimit(std::string_view app, const std::array<double, kNumDims>& limit) {
  apps_[AppIndex(app)].limit = limit;
}

void Profiler::SetLargestNode(std::string_view app, const std::array<double, kNumDims>& capacity) {
  apps_[AppIndex(app)].largest_node = capacity;
}

std::array<double, kNumDims> Profiler::HealthLimit(const App& app) {
  std::array<double, kNumDims> limit{};
  for (int d = 0; d < kNumDims; ++d) {
    limit[d] = app.limit[d] > 0.0 ? app.limit[d] : (app.has_request ? app.request[d] : 0.0);
  }
  return limit;
}

double Profiler::UsagePercentile(std::string_view app, Dim dim, double p) const {
  auto it = app_index_.find(std::string(app));
  const int d = static_cast<int>(dim);
  if (it == app_index_.end() || d >= kProfileDims) return 0.0;
  return apps_[it->second].histogram[d].Percentile(p);
}

std::array<double, kNumDims> Profiler::HealthLimit(std::string_view app) const {
  auto it = app_index_.find(std::string(app));
  return it == app_index_.end() ? std::array<double, kNumDims>{} : HealthLimit(apps_[it->second]);
}

void Profiler::SetRequests(const Scenario& scenario) {
  for (const Service& s : scenario.workload.services) {
    std::array<double, kNumDims> request{}, limit{};
    for (int d = 0; d < kNumDims; ++d) {
      request[d] = static_cast<double>(s.requests.amount[d]);
      limit[d] = static_cast<double>(s.limits.amount[d]);
    }
    const std::string& app = AppName(s);
    SetRequest(app, request, s.replicas);
    if (!s.limits.IsZero()) SetLimit(app, limit);
  }
}

void Profiler::ClearSlot(App& app, int slot) const {
  const int days = options_.max_days;
  for (int b = 0; b < options_.bins; ++b) {
    size_t cell = static_cast<size_t>(b) * days + slot;
    app.count[cell] = 0;
    for (int d = 0; d < kProfileDims; ++d) {
      app.sum[cell * kProfileDims + d] = 0.0f;
      app.sum_squares[cell * kProfileDims + d] = 0.0f;
      if (!app.max_sum.empty()) {
        app.max_sum[cell * kProfileDims + d] = 0.0f;
        app.max_squares[cell * kProfileDims + d] = 0.0f;
      }
    }
  }
}

void Profiler::AddSample(int container, int64_t time, const std::array<float, kNumDims>& usage,
                         const std::array<float, kNumDims>* window_max) {
  Container& c = containers_[container];
  App& app = apps_[c.app];
  const int days = options_.max_days;
  const size_t cells = static_cast<size_t>(options_.bins) * days;
  if (app.samples == 0) {
    app.slot_day.assign(days, kEmptyDay);
    app.count.assign(cells, 0);
    app.sum.assign(cells * kProfileDims, 0.0f);
    app.sum_squares.assign(cells * kProfileDims, 0.0f);
    for (int d = 0; d < kProfileDims; ++d) app.reference[d] = usage[d];
  }
  // What the sample reached within its window: its maximum where given, else its average.
  std::array<float, kNumDims> reached = usage;
  if (window_max) {
    for (int d = 0; d < kProfileDims; ++d) {
      if ((*window_max)[d] < 0.0f) continue;
      reached[d] = std::max(usage[d], (*window_max)[d]);
      app.has_window_max[d] = true;
    }
    if (app.max_sum.empty()) {
      // Earlier samples' maxima were their averages.
      app.max_sum = app.sum;
      app.max_squares = app.sum_squares;
    }
  }
  ++app.samples;
  ++samples_;

  int64_t day = FloorDiv(time, kSecondsPerDay);
  int bin = static_cast<int>((time - day * kSecondsPerDay) / bin_seconds_);
  int slot = static_cast<int>(((day % days) + days) % days);
  int32_t& held = app.slot_day[slot];
  if (held < day) {
    ClearSlot(app, slot);
    held = static_cast<int32_t>(day);
  }
  if (held == day) {
    size_t cell = static_cast<size_t>(bin) * days + slot;
    if (app.count[cell] < UINT16_MAX) {
      ++app.count[cell];
      float* sum = &app.sum[cell * kProfileDims];
      float* squares = &app.sum_squares[cell * kProfileDims];
      for (int d = 0; d < kProfileDims; ++d) {
        float x = usage[d] - app.reference[d];
        sum[d] += x;
        squares[d] += x * x;
      }
      if (!app.max_sum.empty()) {
        float* max_sum = &app.max_sum[cell * kProfileDims];
        float* max_squares = &app.max_squares[cell * kProfileDims];
        for (int d = 0; d < kProfileDims; ++d) {
          float x = reached[d] - app.reference[d];
          max_sum[d] += x;
          max_squares[d] += x * x;
        }
      }
    }
  }
  for (int d = 0; d < kProfileDims; ++d) {
    app.peak[d] = std::max(app.peak[d], reached[d]);
    app.histogram[d].Add(reached[d], time, options_.right_sizing.half_life_s);
  }
  if (c.health.Add(time, usage)) CheckHealth(container);
}

void Profiler::PrefetchRecord(int container) const {
  const auto* record = reinterpret_cast<const char*>(&apps_[containers_[container].app]);
  for (size_t offset = 0; offset < sizeof(App); offset += 64) __builtin_prefetch(record + offset);
}

void Profiler::PrefetchData(int container, int64_t time) const {
  const App& app = apps_[containers_[container].app];
  if (app.samples == 0) return;
  const int days = options_.max_days;
  const int64_t day = FloorDiv(time, kSecondsPerDay);
  const int bin = static_cast<int>((time - day * kSecondsPerDay) / bin_seconds_);
  const int slot = static_cast<int>(((day % days) + days) % days);
  const size_t cell = static_cast<size_t>(bin) * days + slot;
  __builtin_prefetch(&app.count[cell], 1);
  __builtin_prefetch(&app.sum[cell * kProfileDims], 1);
  __builtin_prefetch(&app.sum_squares[cell * kProfileDims], 1);
  for (const DecayingHistogram& histogram : app.histogram) histogram.Prefetch();
}

bool Profiler::ProfileSoFar(const App& app, int bin, std::array<float, kProfileDims>& mean,
                            std::array<float, kProfileDims>& high) const {
  const int days = options_.max_days;
  double n = 0.0;
  std::array<double, kProfileDims> sum{}, squares{};
  for (int s = 0; s < days; ++s) {
    size_t cell = static_cast<size_t>(bin) * days + s;
    if (app.count[cell] == 0) continue;
    n += app.count[cell];
    for (int d = 0; d < kProfileDims; ++d) {
      sum[d] += app.sum[cell * kProfileDims + d];
      squares[d] += app.sum_squares[cell * kProfileDims + d];
    }
  }
  for (int d = 0; d < kProfileDims; ++d) {
    if (n == 0.0) {
      mean[d] = high[d] = 0.0f;
      continue;
    }
    double m = sum[d] / n;
    double sd = std::sqrt(std::max(0.0, squares[d] / n - m * m));
    mean[d] = static_cast<float>(std::max(0.0, m + app.reference[d]));
    high[d] = static_cast<float>(std::max(0.0, m + app.reference[d] + z_ * sd));
  }
  return n > 0.0;
}

void Profiler::CheckHealth(int container) {
  Container& c = containers_[container];
  const App& app = apps_[c.app];
  const int64_t window = c.health.last_window();
  // The window's mean is compared with the profile averaged over the window's bins: a spike that
  // fills part of the window is then part of the expectation too.
  const int64_t start = window * options_.health.window_s;
  const int first_bin =
      static_cast<int>((start - FloorDiv(start, kSecondsPerDay) * kSecondsPerDay) / bin_seconds_);
  const int window_bins =
      static_cast<int>(std::max<int64_t>(1, options_.health.window_s / bin_seconds_));
  HealthExpectation expected;
  int bins_with_data = 0;
  for (int i = 0; i < window_bins; ++i) {
    std::array<float, kProfileDims> mean, high;
    if (!ProfileSoFar(app, (first_bin + i) % options_.bins, mean, high)) continue;
    ++bins_with_data;
    for (int d = 0; d < kProfileDims; ++d) {
      expected.profile_mean[d] += mean[d];
      expected.profile_high[d] += high[d];
    }
  }
  for (int d = 0; d < kProfileDims && bins_with_data > 0; ++d) {
    expected.profile_mean[d] /= static_cast<float>(bins_with_data);
    expected.profile_high[d] /= static_cast<float>(bins_with_data);
  }
  const std::array<double, kNumDims> limit = HealthLimit(app);
  for (int d = 0; d < kProfileDims; ++d) expected.limit[d] = limit[d];

  int siblings = 0;
  scratch_.clear();
  for (int other : app.containers) {
    if (other == container || siblings == kMaxSiblingsCompared) continue;
    // The same window only: a sibling's window before or after it would make a bursty app's
    // replicas look apart at every burst's edge.
    std::optional<std::array<float, kProfileDims>> mean = containers_[other].health.MeanOf(window);
    if (!mean) continue;
    ++siblings;
    scratch_.insert(scratch_.end(), mean->begin(), mean->end());
  }
  expected.siblings = siblings;
  if (siblings > 0) {
    std::vector<float> column(siblings);
    for (int d = 0; d < kProfileDims; ++d) {
      for (int i = 0; i < siblings; ++i)
        column[i] = scratch_[static_cast<size_t>(i) * kProfileDims + d];
      expected.sibling_median[d] = Median(column);
    }
  }

  std::optional<HealthFinding> finding = c.health.Check(expected, options_.health);
  if (!finding) return;
  HealthWarning w;
  w.app = app.name;
  w.container = c.name;
  w.kind = finding->kind;
  w.dim = finding->dim;
  w.time = c.health.window_end();
  w.lead_time_s = finding->lead_time_s;
  w.value = finding->value;
  w.expected = finding->expected;
  char buffer[200];
  switch (finding->kind) {
    case WarningKind::kMemoryLeak:
      std::snprintf(buffer, sizeof buffer,
                    "memory grew at nearly every hour on each of the last %d days (%.4g %d days "
                    "ago, day peak now %.4g); at the slowest day's growth it reaches the limit "
                    "within %d days",
                    options_.health.leak_days, finding->expected, options_.health.leak_days,
                    finding->value,
                    static_cast<int>(options_.health.leak_horizon_s / kSecondsPerDay));
      break;
    case WarningKind::kCpuStuckHigh:
      std::snprintf(buffer, sizeof buffer,
                    "cpu %.4g held above %.2f x the profile's high quantile (%.4g) for %d windows",
                    finding->value, options_.health.stuck_ratio, finding->expected,
                    options_.health.confirm_windows);
      break;
    case WarningKind::kDivergentReplica:
      std::snprintf(buffer, sizeof buffer, "%s %.4g vs %.4g expected (%s) for %d windows",
                    std::string(DimName(finding->dim)).c_str(), finding->value, finding->expected,
                    siblings >= options_.health.min_siblings ? "median of sibling replicas"
                                                             : "profile high quantile",
                    options_.health.confirm_windows);
      break;
  }
  w.detail = buffer;
  warnings_.push_back(std::move(w));
}

std::vector<bool> Profiler::KeptDays(const App& app, int d) const {
  const int days = options_.max_days;
  const int bins = options_.bins;
  std::vector<float> day_values, ratios;
  std::vector<bool> kept(days, true);
  // Day level relative to the per-bin median of the days: an outlier day is off in most bins.
  std::vector<double> ratio_sum(days, 0.0);
  std::vector<int> ratio_bins(days, 0);
  for (int b = 0; b < bins; ++b) {
    day_values.clear();
    for (int s = 0; s < days; ++s) {
      size_t cell = static_cast<size_t>(b) * days + s;
      if (app.count[cell] > 0) {
        day_values.push_back(app.reference[d] + app.sum[cell * kProfileDims + d] / app.count[cell]);
      }
    }
    if (day_values.size() < 4) continue;
    float median = Median(day_values);
    if (median <= 0.0f) continue;
    for (int s = 0; s < days; ++s) {
      size_t cell = static_cast<size_t>(b) * days + s;
      if (app.count[cell] == 0) continue;
      ratio_sum[s] +=
          (app.reference[d] + app.sum[cell * kProfileDims + d] / app.count[cell]) / median;
      ++ratio_bins[s];
    }
  }
  for (int s = 0; s < days; ++s) {
    if (ratio_bins[s] > 0) ratios.push_back(static_cast<float>(ratio_sum[s] / ratio_bins[s]));
  }
  if (ratios.size() < 4) return kept;
  float typical = Median(ratios);
  for (float& r : ratios) r = std::abs(r - typical);
  float spread = 1.4826f * Median(ratios);
  double threshold = std::max(kOutlierDayRatio, kOutlierDaySigmas * spread);
  int allowed = static_cast<int>(ratios.size() / 4);
  for (int round = 0; round < allowed; ++round) {
    int worst = -1;
    double worst_distance = threshold;
    for (int s = 0; s < days; ++s) {
      if (!kept[s] || ratio_bins[s] == 0) continue;
      double distance = std::abs(ratio_sum[s] / ratio_bins[s] - typical);
      if (distance > worst_distance) {
        worst_distance = distance;
        worst = s;
      }
    }
    if (worst < 0) break;
    kept[worst] = false;
  }
  return kept;
}

void Profiler::FillGrid(const App& app, int d, const std::vector<bool>& kept, bool window_max,
                        DayGrid& grid) const {
  const std::vector<float>& sums = window_max ? app.max_sum : app.sum;
  const std::vector<float>& squares = window_max ? app.max_squares : app.sum_squares;
  grid.bins = options_.bins;
  grid.days = options_.max_days;
  grid.reference = app.reference[d];
  grid.cells.resize(static_cast<size_t>(grid.bins) * grid.days);
  grid.day = app.slot_day;
  grid.kept.resize(grid.days);
  std::array<bool, kMaxDays> use{};  // grid.kept as plain bools, read for every cell
  for (int s = 0; s < grid.days; ++s) {
    use[s] = kept[s] && app.slot_day[s] != kEmptyDay;
    grid.kept[s] = use[s];
  }
  for (size_t cell = 0; cell < grid.cells.size(); ++cell) {
    const size_t slot = cell % grid.days;
    grid.cells[cell] = use[slot] && app.count[cell] != 0
                           ? DaySums{.n = static_cast<double>(app.count[cell]),
                                     .sum = sums[cell * kProfileDims + d],
                                     .squares = squares[cell * kProfileDims + d]}
                           : DaySums{};
  }
}

void Profiler::BuildCurves(const App& app, AppProfile& profile) const {
  const int days = options_.max_days;
  const int bins = options_.bins;
  std::vector<float> mean(bins), high(bins);
  profile.days = 0;
  int32_t last_day = INT32_MIN;
  double mean_day = 0.0;
  for (int s = 0; s < days; ++s) {
    if (app.slot_day[s] == kEmptyDay) continue;
    ++profile.days;
    last_day = std::max(last_day, app.slot_day[s]);
    mean_day += app.slot_day[s];
  }
  if (profile.days > 0) mean_day /= profile.days;

  for (int d = 0; d < kProfileDims; ++d) {
    const std::vector<bool> kept = KeptDays(app, d);
    const bool with_window_max = app.has_window_max[d];
    // Each thread keeps its grids from one dimension and application to the next.
    thread_local DayGrid grid, max_grid;
    FillGrid(app, d, kept, false, grid);
    if (with_window_max) FillGrid(app, d, kept, true, max_grid);
    // Calibrated curves follow a trend g: each day is divided by its factor, and the curves
    // describe the day after the last one seen.
    const Trend trend = options_.calibrated ? FindTrend(grid) : Trend{};
    const double growth = trend.growth;
    profile.growth[d] = static_cast<float>(growth);
    const double ahead = TrendFactor(growth, last_day + 1, mean_day);
    // Without a trend the grids are their own level (and copying them is most of the cost here).
    DayGrid detrended, max_detrended;
    if (growth != 0.0) {
      detrended = Detrended(grid, growth, mean_day);
      if (with_window_max) max_detrended = Detrended(max_grid, growth, mean_day);
    }
    const DayGrid& level = growth != 0.0 ? detrended : grid;
    const DayGrid& max_level = growth != 0.0 ? max_detrended : max_grid;

    const double reference = app.reference[d];
    double floor = 0.0, z = z_, z_max = z_;
    if (options_.calibrated) {
      double n = 0.0, sum = 0.0;
      for (const DaySums& c : level.cells) {
        n += c.n;
        sum += c.sum;
      }
      floor = n > 0.0 ? kScaleFloorShare * std::abs(sum / n + reference) : 0.0;
      const double p = options_.high_quantile;
      const double empirical = HighQuantileScore(grid, trend, floor, p);
      if (!std::isnan(empirical)) z = empirical;
      if (with_window_max) {
        const double peaks = HighQuantileScore(max_grid, trend, floor, p);
        if (!std::isnan(peaks)) z_max = peaks;
      }
    }

    for (int b = 0; b < bins; ++b) {
      double n = 0.0, sum = 0.0, squares = 0.0, max_sum = 0.0, max_squares = 0.0;
      for (int s = 0; s < days; ++s) {
        const size_t cell = static_cast<size_t>(b) * days + s;
        const DaySums& c = level.cells[cell];
        if (c.n == 0.0) continue;
        n += c.n;
        sum += c.sum;
        squares += c.squares;
        if (with_window_max) {
          max_sum += max_level.cells[cell].sum;
          max_squares += max_level.cells[cell].squares;
        }
      }
      if (n == 0.0) {
        mean[b] = high[b] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      double m = sum / n;
      const double scale = options_.calibrated ? Scale(n, sum, squares, floor)
                                               : std::sqrt(std::max(0.0, squares / n - m * m));
      mean[b] = static_cast<float>(std::max(0.0, (m + reference) * ahead));
      double h = m + reference + z * scale;
      if (with_window_max) {
        // The high quantile of what the windows reached, not of their averages.
        double max_mean = max_sum / n;
        const double max_scale =
            options_.calibrated ? Scale(n, max_sum, max_squares, floor)
                                : std::sqrt(std::max(0.0, max_squares / n - max_mean * max_mean));
        h = std::max(h, max_mean + reference + z_max * max_scale);
      }
      high[b] = static_cast<float>(std::max<double>(mean[b], h * ahead));
    }
    FillGaps(mean);
    FillGaps(high);
    profile.mean[d] = DailyCurve(mean);
    profile.high[d] = DailyCurve(high);
  }
  for (int d = kProfileDims; d < kNumDims; ++d) {
    profile.mean[d] = DailyCurve(bins);
    profile.high[d] = DailyCurve(bins);
  }
}

ProfileSet Profiler::Finish() const {
  ProfileSet set;
  set.bins = options_.bins;
  set.high_quantile = options_.high_quantile;
  set.normalized = options_.normalized;

  std::vector<const App*> apps;
  for (const App& a : apps_) {
    if (a.samples > 0) apps.push_back(&a);
  }
  std::sort(apps.begin(), apps.end(), [](const App* x, const App* y) { return x->name < y->name; });
  // An application's curves and advice depend on its own samples only, and they are most of the
  // work here: the apps are shared among the cores.
  const int count = static_cast<int>(apps.size());
  set.apps = ParallelMap(count, DefaultThreads(count), [&](int i) {
    const App& a = *apps[i];
    AppProfile p;
    p.app = a.name;
    p.containers = static_cast<int>(a.containers.size());
    p.samples = a.samples;
    BuildCurves(a, p);
    p.features = ComputeFeatures(p.mean, p.high);
    p.peak = a.peak;
    for (int d = 0; d < kProfileDims; ++d) {
      p.needed[d] =
          Recommend(a.histogram[d], static_cast<Dim>(d), a.peak[d], options_.right_sizing);
      const double node = a.largest_node[d] > 0.0 ? a.largest_node[d] : largest_node_[d];
      BoundedAdvice advice = BoundAdvice(p.needed[d], a.limit[d], node);
      p.recommended[d] = advice.recommended;
      p.bound[d] = advice.bound;
    }
    p.has_request = a.has_request;
    p.request = a.request;
    p.replicas = a.replicas > 0 ? a.replicas : p.containers;
    return p;
  });
  for (const AppProfile& p : set.apps) {
    if (!p.has_request) continue;
    for (int d = 0; d < kProfileDims; ++d) {
      set.freed[d] += (p.request[d] - p.recommended[d]) * p.replicas;
    }
  }
  if (set.apps.empty()) return set;

  // Balance needs the fleet; then cluster.
  std::vector<const AppFeatures*> features;
  for (const AppProfile& p : set.apps) features.push_back(&p.features);
  std::array<float, kProfileDims> medians = MedianLevels(features);
  std::vector<float> points;
  points.reserve(set.apps.size() * kFeatureVectorSize);
  for (AppProfile& p : set.apps) {
    SetBalance(p.features, medians);
    FeatureVector v = ToFeatureVector(p.features);
    points.insert(points.end(), v.begin(), v.end());
  }
  Clustering clustering =
      ChooseClusters(points, kFeatureVectorSize, options_.max_classes, options_.seed);
  set.class_criterion = clustering.criterion;

  // Class ids by decreasing size, so that class 0 is the most common shape.
  std::vector<int> members(clustering.k, 0);
  for (int label : clustering.labels) ++members[label];
  std::vector<int> order(clustering.k);
  for (int i = 0; i < clustering.k; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return members[x] > members[y]; });
  std::vector<int> id_of(clustering.k);
  for (int i = 0; i < clustering.k; ++i) id_of[order[i]] = i;

  set.classes.resize(clustering.k);
  std::vector<std::vector<float>> levels(static_cast<size_t>(clustering.k) * kProfileDims);
  std::vector<std::array<std::vector<double>, kProfileDims>> mean_sum(clustering.k),
      high_sum(clustering.k);
  std::vector<std::array<int, kProfileDims>> shape_count(clustering.k);
  // Scalar features average well over members; cycle amplitude and hour come from the class's
  // shape instead, since members with unrelated peak hours should not add up to a cycle.
  std::vector<AppFeatures> feature_sum(clustering.k);
  for (int c = 0; c < clustering.k; ++c) {
    for (int d = 0; d < kProfileDims; ++d) {
      mean_sum[c][d].assign(options_.bins, 0.0);
      high_sum[c][d].assign(options_.bins, 0.0);
    }
    shape_count[c] = {};
  }
  for (size_t i = 0; i < set.apps.size(); ++i) {
    AppProfile& p = set.apps[i];
    int c = id_of[clustering.labels[i]];
    p.class_id = c;
    for (int d = 0; d < kProfileDims; ++d) {
      AppFeatures& sum = feature_sum[c];
      sum.balance[d] += p.features.balance[d];
      sum.burstiness[d] += p.features.burstiness[d];
      sum.duty[d] += p.features.duty[d];
      sum.peak_to_mean[d] += p.features.peak_to_mean[d];
      float level = p.features.level[d];
      if (level <= 0.0f) continue;
      levels[static_cast<size_t>(c) * kProfileDims + d].push_back(level);
      ++shape_count[c][d];
      for (int b = 0; b < options_.bins; ++b) {
        mean_sum[c][d][b] += p.mean[d][b] / level;
        high_sum[c][d][b] += p.high[d][b] / level;
      }
    }
  }
  for (int raw = 0; raw < clustering.k; ++raw) {
    int c = id_of[raw];
    ProfileClass& pc = set.classes[c];
    pc.id = c;
    pc.members = members[raw];
    pc.centroid.assign(
        clustering.centroids.begin() + static_cast<size_t>(raw) * kFeatureVectorSize,
        clustering.centroids.begin() + static_cast<size_t>(raw + 1) * kFeatureVectorSize);
    for (int d = 0; d < kNumDims; ++d) {
      std::vector<float> m(options_.bins, 0.0f), h(options_.bins, 0.0f);
      if (d < kProfileDims && shape_count[c][d] > 0) {
        for (int b = 0; b < options_.bins; ++b) {
          m[b] = static_cast<float>(mean_sum[c][d][b] / shape_count[c][d]);
          h[b] = static_cast<float>(high_sum[c][d][b] / shape_count[c][d]);
        }
        pc.level[d] = Median(levels[static_cast<size_t>(c) * kProfileDims + d]);
      }
      pc.mean_shape[d] = DailyCurve(std::move(m));
      pc.high_shape[d] = DailyCurve(std::move(h));
    }
    AppFeatures shape = ComputeFeatures(pc.mean_shape, pc.high_shape);
    const float n = static_cast<float>(std::max(1, pc.members));
    for (int d = 0; d < kProfileDims; ++d) {
      shape.balance[d] = feature_sum[c].balance[d] / n;
      shape.burstiness[d] = feature_sum[c].burstiness[d] / n;
      shape.duty[d] = feature_sum[c].duty[d] / n;
      shape.peak_to_mean[d] = feature_sum[c].peak_to_mean[d] / n;
    }
    pc.description = DescribeFeatures(shape);
  }

  set.complementarity = ComplementarityTable(set.classes);
  set.hints = PlacementHints(set.classes, set.complementarity);
  set.warnings = warnings_;
  std::stable_sort(set.warnings.begin(), set.warnings.end(),
                   [](const HealthWarning& x, const HealthWarning& y) { return x.time < y.time; });
  return set;
}

}  // namespace archimedes
