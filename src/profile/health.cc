#include "profile/health.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace archimedes {

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();
// Share of the last day's windows that must have grown on every one of the days compared.
constexpr double kLeakGrowingShare = 0.9;
constexpr int kMaxLeakDays = 7;

// Seconds until `value`, growing by `rate` per second, reaches `limit`; 0 when already there and
// -1 when the limit is unknown or usage is not growing towards it.
int64_t LeadTime(double value, double rate, double limit) {
  if (limit <= 0.0) return -1;
  if (value >= limit) return 0;
  if (rate <= 0.0) return -1;
  return static_cast<int64_t>((limit - value) / rate);
}

}  // namespace

ContainerHealth::ContainerHealth(const HealthOptions& options) : window_s_(options.window_s) {
  if (options.leak_days < 1 || options.leak_days > kMaxLeakDays || options.window_s <= 0 ||
      kSecondsPerDay % options.window_s != 0) {
    throw std::invalid_argument(
        "HealthOptions: leak_days must be in [1, 7] and the window must divide a day");
  }
  memory_.assign(static_cast<size_t>((options.leak_days + 1) * kSecondsPerDay / options.window_s),
                 kMissing);
}

std::optional<HealthFinding> ContainerHealth::CheckLeak(const HealthExpectation& expected,
                                                        const HealthOptions& options) const {
  const int memory = static_cast<int>(Dim::kMemory);
  const double limit = expected.limit[memory];
  if (limit <= 0.0) return std::nullopt;  // nothing to reach: a leak warning could not say when
  // A day when every replica grows is a busy day, not this container's leak.
  if (expected.siblings >= options.min_siblings && expected.sibling_median[memory] > 0.0f &&
      window_mean_[memory] < options.leak_min_sibling_ratio * expected.sibling_median[memory]) {
    return std::nullopt;
  }
  const int64_t ring = static_cast<int64_t>(memory_.size());
  const int64_t per_day = kSecondsPerDay / window_s_;
  auto at = [&](int64_t w) { return memory_[((w % ring) + ring) % ring]; };
  // Each window of the last day against the same window on each of the days before: a leak
  // grows every day at every hour, while a busy day (an outlier) lifts its windows once.
  const int days = options.leak_days;
  std::array<double, kMaxLeakDays> growth{};
  double oldest = 0.0, last_day_peak = 0.0;
  int valid = 0, growing = 0;
  // More windows that did not grow than this and the share below cannot be reached: most
  // containers, which do not leak, are let go after a few windows.
  const double most_not_growing = (1.0 - kLeakGrowingShare) * static_cast<double>(per_day);
  for (int64_t j = 0; j < per_day; ++j) {
    const int64_t w = last_window_ - j;
    bool complete = true, grew = true;
    for (int k = 0; k <= days && complete; ++k) complete = !std::isnan(at(w - k * per_day));
    if (!complete) continue;
    ++valid;
    for (int k = 0; k < days; ++k) {
      const double step = at(w - k * per_day) - at(w - (k + 1) * per_day);
      growth[k] += step;
      grew = grew && step > 0.0;
    }
    growing += grew;
    if (valid - growing > most_not_growing) return std::nullopt;
    oldest += at(w - days * per_day);
    last_day_peak = std::max<double>(last_day_peak, at(w));
  }
  // Half a day of evidence at least, and growth in nearly all of it.
  if (2 * int64_t{valid} < per_day || growing < kLeakGrowingShare * valid || oldest <= 0.0) {
    return std::nullopt;
  }
  // The slowest day's mean growth is the rate the extrapolation can count on.
  const double slowest = *std::min_element(growth.begin(), growth.begin() + days) / valid;
  if (slowest < options.leak_min_daily_growth * oldest / valid) return std::nullopt;
  oldest /= valid;
  const int64_t surely_within = LeadTime(last_day_peak, slowest / kSecondsPerDay, limit);
  if (surely_within < 0 || surely_within > options.leak_horizon_s) return std::nullopt;
  // The lead time itself is the best estimate: at the last day's growth (a young leak's older
  // days still grew less).
  const int64_t lead = LeadTime(last_day_peak, growth[0] / valid / kSecondsPerDay, limit);
  return HealthFinding{WarningKind::kMemoryLeak, Dim::kMemory, lead,
                       static_cast<float>(last_day_peak), static_cast<float>(oldest)};
}

bool ContainerHealth::Add(int64_t time, const std::array<float, kNumDims>& usage) {
  int64_t window = time / window_s_ - (time % window_s_ < 0 ? 1 : 0);
  bool closed = false;
  if (window != open_window_) {
    if (open_count_ > 0) {
      for (int d = 0; d < kProfileDims; ++d) {
        window_mean_[d] = static_cast<float>(open_sum_[d] / open_count_);
      }
      const int64_t ring = static_cast<int64_t>(memory_.size());
      // Windows without samples since the last close are gaps, not zeros.
      for (int64_t w = std::max(last_window_ + 1, open_window_ - ring + 1); w < open_window_; ++w) {
        memory_[((w % ring) + ring) % ring] = kMissing;
      }
      memory_[((open_window_ % ring) + ring) % ring] = window_mean_[static_cast<int>(Dim::kMemory)];
      recent_[recent_count_ % kRecent] = window_mean_;
      recent_window_[recent_count_ % kRecent] = open_window_;
      ++recent_count_;
      last_window_ = open_window_;
      closed = true;
    }
    open_window_ = window;
    open_sum_ = {};
    open_count_ = 0;
  }
  for (int d = 0; d < kProfileDims; ++d) open_sum_[d] += usage[d];
  ++open_count_;
  return closed;
}

std::optional<std::array<float, kProfileDims>> ContainerHealth::MeanOf(int64_t window) const {
  if (window == open_window_ && open_count_ > 0) {
    std::array<float, kProfileDims> mean{};
    for (int d = 0; d < kProfileDims; ++d) {
      mean[d] = static_cast<float>(open_sum_[d] / open_count_);
    }
    return mean;
  }
  if (window == last_window_) return window_mean_;
  return std::nullopt;
}

std::optional<HealthFinding> ContainerHealth::Check(const HealthExpectation& expected,
                                                    const HealthOptions& options) {
  const int cpu = static_cast<int>(Dim::kCpu);

  // Trend per second of each dimension over the recent windows, for lead times.
  std::array<double, kProfileDims> rate{};
  if (recent_count_ >= 2) {
    int64_t newest = (recent_count_ - 1) % kRecent;
    int64_t oldest = recent_count_ >= kRecent ? recent_count_ % kRecent : 0;
    double span = static_cast<double>(recent_window_[newest] - recent_window_[oldest]) * window_s_;
    if (span > 0) {
      for (int d = 0; d < kProfileDims; ++d)
        rate[d] = (recent_[newest][d] - recent_[oldest][d]) / span;
    }
  }

  auto raise = [&](WarningKind kind, int dim, double growth,
                   float reference) -> std::optional<HealthFinding> {
    bool& raised = raised_[static_cast<int>(kind)];
    if (raised) return std::nullopt;
    raised = true;
    return HealthFinding{kind, static_cast<Dim>(dim),
                         LeadTime(window_mean_[dim], growth, expected.limit[dim]),
                         window_mean_[dim], reference};
  };

  bool& leak_raised = raised_[static_cast<int>(WarningKind::kMemoryLeak)];
  if (!leak_raised) {
    if (std::optional<HealthFinding> leak = CheckLeak(expected, options)) {
      leak_raised = true;
      return leak;
    }
  }

  // Ratios to the siblings (when there are enough of them) find divergence on any dimension.
  const bool with_siblings = expected.siblings >= options.min_siblings;
  int divergent_dim = -1;
  double divergent_score = 0.0;
  for (int d = 0; d < kProfileDims; ++d) {
    float reference = with_siblings ? expected.sibling_median[d] : expected.profile_high[d];
    if (reference <= 0.0f) continue;  // nothing to compare with
    double ratio = window_mean_[d] / reference;
    double score = std::abs(std::log(std::max(ratio, 1e-9)));
    // Above the siblings but within what the app's replicas reach at this time of day (its high
    // quantile) is a burst of a bursty app, not a replica gone its own way.
    bool within_bursts = with_siblings && window_mean_[d] <= expected.profile_high[d];
    bool diverges = (ratio >= options.divergence_ratio && !within_bursts) ||
                    (with_siblings && ratio <= 1.0 / options.divergence_ratio);
    if (diverges && score > divergent_score) {
      divergent_score = score;
      divergent_dim = d;
    }
  }

  // CPU stuck high: CPU alone far above what this time of day usually needs.
  float cpu_now = window_mean_[cpu];
  bool cpu_high = expected.profile_high[cpu] > 0.0f &&
                  cpu_now >= options.stuck_ratio * expected.profile_high[cpu] &&
                  (!with_siblings || cpu_now >= options.stuck_ratio * expected.sibling_median[cpu]);
  bool others_in_line = divergent_dim < 0 || divergent_dim == cpu;
  for (int d = 0; d < kProfileDims; ++d) {
    if (d == cpu) continue;
    if (with_siblings) {
      if (expected.sibling_median[d] <= 0.0f) continue;
      double ratio = window_mean_[d] / expected.sibling_median[d];
      if (ratio >= options.stuck_ratio || ratio <= 1.0 / options.stuck_ratio)
        others_in_line = false;
    } else if (expected.profile_high[d] > 0.0f &&
               window_mean_[d] >= options.stuck_ratio * expected.profile_high[d]) {
      // Without siblings, a day when every dimension runs high is a busy day, not a stuck CPU.
      others_in_line = false;
    }
  }
  stuck_streak_ = cpu_high && others_in_line ? stuck_streak_ + 1 : 0;
  if (stuck_streak_ >= options.confirm_windows) {
    if (auto f = raise(WarningKind::kCpuStuckHigh, cpu, rate[cpu], expected.profile_high[cpu])) {
      return f;
    }
  }

  divergent_streak_ =
      divergent_dim >= 0 && !(cpu_high && others_in_line) ? divergent_streak_ + 1 : 0;
  if (divergent_streak_ >= options.confirm_windows) {
    float reference = with_siblings ? expected.sibling_median[divergent_dim]
                                    : expected.profile_high[divergent_dim];
    if (auto f =
            raise(WarningKind::kDivergentReplica, divergent_dim, rate[divergent_dim], reference)) {
      return f;
    }
  }
  return std::nullopt;
}

MemoryTrend::MemoryTrend(const TrendOptions& options) {
  if (options.windows < 2 || options.windows > kMaxWindows || options.window_s <= 0) {
    throw std::invalid_argument("TrendOptions: windows must be in [2, 16], window_s positive");
  }
}

std::optional<HealthFinding> MemoryTrend::Add(int64_t time, float memory, float sibling_median,
                                              double limit, const TrendOptions& options) {
  const int64_t window = time / options.window_s;
  std::optional<HealthFinding> finding;
  if (window != open_window_ && open_count_ > 0) {
    const int slot = static_cast<int>(closed_ % kMaxWindows);
    memory_[slot] = static_cast<float>(open_memory_ / open_count_);
    siblings_[slot] = open_has_siblings_ ? static_cast<float>(open_siblings_ / open_count_)
                                         : std::numeric_limits<float>::quiet_NaN();
    window_[slot] = open_window_;
    ++closed_;
    finding = Judge(limit, options);
  }
  if (window != open_window_) {
    open_window_ = window;
    open_memory_ = open_siblings_ = 0;
    open_count_ = 0;
    open_has_siblings_ = true;
  }
  open_memory_ += memory;
  open_siblings_ += sibling_median;
  open_has_siblings_ = open_has_siblings_ && sibling_median > 0.0f;
  ++open_count_;
  return finding;
}

std::optional<HealthFinding> MemoryTrend::Judge(double limit, const TrendOptions& options) const {
  const int n = options.windows;
  if (closed_ < n) return std::nullopt;
  const int newest = static_cast<int>((closed_ - 1) % kMaxWindows);
  const int oldest = static_cast<int>((closed_ - n) % kMaxWindows);
  // Consecutive windows only: a gap (the container was not sampled) restarts the evidence.
  if (window_[newest] - window_[oldest] != n - 1) return std::nullopt;
  bool with_siblings = true;
  for (int i = 0; i < n; ++i) {
    with_siblings = with_siblings && !std::isnan(siblings_[(closed_ - n + i) % kMaxWindows]);
  }
  // Relative to the siblings, so that a replica that always runs above them does not look as if
  // it pulled away when a busy hour lifts them all.
  auto relative = [&](int i) {  // i = 0 oldest
    const int slot = static_cast<int>((closed_ - n + i) % kMaxWindows);
    return with_siblings ? memory_[slot] / siblings_[slot] : memory_[slot];
  };
  int growing = 0;
  for (int i = 1; i < n; ++i) growing += relative(i) > relative(i - 1);
  if (growing < options.min_growing_share * (n - 1)) return std::nullopt;
  // Noise can rise a few steps in a row, but not by this much in so short a time.
  const float base = with_siblings ? 1.0f : relative(0);
  if (base <= 0.0f || relative(n - 1) - relative(0) < options.min_excess * base) {
    return std::nullopt;
  }
  if (with_siblings && memory_[newest] < (1.0 + options.min_excess) * siblings_[newest]) {
    return std::nullopt;
  }
  // Least-squares slope over the windows from `first` to the newest.
  auto slope_from = [&](int first) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const int count = n - first;
    for (int i = first; i < n; ++i) {
      const double x = static_cast<double>(i) * static_cast<double>(options.window_s);
      const double y = memory_[(closed_ - n + i) % kMaxWindows];
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    return (count * sxy - sx * sy) / (count * sxx - sx * sx);
  };
  // A young leak has flat windows before it began; the newer half shows its real rate.
  const double slope = std::max(slope_from(0), slope_from(n / 2));
  if (slope <= 0.0) return std::nullopt;
  return HealthFinding{WarningKind::kMemoryLeak, Dim::kMemory,
                       LeadTime(memory_[newest], slope, limit), memory_[newest],
                       with_siblings ? siblings_[newest] : memory_[oldest]};
}

}  // namespace archimedes
