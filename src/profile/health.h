// Early warning about unhealthy containers (DESIGN §1.1), run online while the history streams in,
// so that each warning carries the time it could have been raised and, when the limit is known, an
// estimate of how long before the container reaches it.
//
// A container's samples are averaged over fixed windows (30 min by default). When a window closes
// it is compared with what the container's application leads one to expect:
//
//   memory-leak        growth sustained over days, which one outlier day cannot fake: in at least
//                      90 % of the last day's windows, memory exceeds the same window one day
//                      earlier, and that one the day before, over `leak_days` days (same time of
//                      day cancels the daily shape; a busy day lifts its windows once, not on two
//                      days running); each day's mean growth is at least `leak_min_daily_growth`
//                      of the oldest day's level; at the slowest day's growth, the last day's peak
//                      window reaches the limit within `leak_horizon_s` (so a leak is announced
//                      when it will matter, and never without a limit to reach; the lead time is
//                      at the last day's growth, the best estimate); and, with siblings, memory
//                      at least `leak_min_sibling_ratio` × their median (a day when every replica
//                      grows is a busy day, not a leak)
//   cpu-stuck-high     CPU above `stuck_ratio` × the application profile's high quantile for that
//                      time of day (and above the siblings' median as much, when there are any),
//                      while the other dimensions stay in line with the siblings
//   divergent-replica  any dimension `divergence_ratio` times above (and above the profile's high
//                      quantile, which a bursty app's replicas all reach) or below the median of
//                      the sibling replicas (at least `min_siblings` of them with the same window),
//                      or, without siblings, above `divergence_ratio` × the profile's high quantile
//
// cpu-stuck-high and divergent-replica must hold for `confirm_windows` consecutive windows. Each
// kind is raised at most once per container. State per container is fixed-size (`leak_days` + 1
// days of memory window means), so memory grows with containers, not samples.
#ifndef ARCHIMEDES_PROFILE_HEALTH_H_
#define ARCHIMEDES_PROFILE_HEALTH_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "profile/profile.h"

namespace archimedes {

struct HealthOptions {
  int64_t window_s = 1800;
  int confirm_windows = 3;
  double stuck_ratio = 1.3;
  double divergence_ratio = 2.0;
  int min_siblings = 3;
  int leak_days = 3;
  double leak_min_daily_growth = 0.05;
  int64_t leak_horizon_s = 7 * kSecondsPerDay;
  double leak_min_sibling_ratio = 1.25;
};

// What the application leads one to expect for one window of one container.
struct HealthExpectation {
  std::array<float, kProfileDims> profile_mean{};  // app profile at this time of day, so far
  std::array<float, kProfileDims> profile_high{};
  int siblings = 0;  // replicas with a window at the same time
  std::array<float, kProfileDims> sibling_median{};
  std::array<double, kProfileDims> limit{};  // 0 = unknown
};

// A finding of ContainerHealth::Check, without the container's names.
struct HealthFinding {
  WarningKind kind;
  Dim dim;
  int64_t lead_time_s;
  float value;
  float expected;
};

class ContainerHealth {
 public:
  // Throws std::invalid_argument when leak_days is outside [1, 7] or the window does not divide a
  // day.
  explicit ContainerHealth(const HealthOptions& options);

  // Adds a sample (times non-decreasing). Returns true when the sample starts a new window and so
  // closes the previous one, whose mean is then window_mean() until the next close.
  bool Add(int64_t time, const std::array<float, kNumDims>& usage);

  int64_t last_window() const { return last_window_; }  // index of the window closed last; -1
  int64_t window_end() const { return (last_window_ + 1) * window_s_; }
  const std::array<float, kProfileDims>& window_mean() const { return window_mean_; }
  // The mean of `window` if it is the window closed last or the one still open (its samples so
  // far), as siblings streamed in time order are compared.
  std::optional<std::array<float, kProfileDims>> MeanOf(int64_t window) const;

  // Judges the window that Add just closed. Returns a finding the first time a kind is confirmed.
  std::optional<HealthFinding> Check(const HealthExpectation& expected,
                                     const HealthOptions& options);

 private:
  int64_t window_s_;
  int64_t open_window_ = -1;
  std::array<double, kProfileDims> open_sum_{};
  int open_count_ = 0;
  int64_t last_window_ = -1;
  std::array<float, kProfileDims> window_mean_{};
  std::optional<HealthFinding> CheckLeak(const HealthExpectation& expected,
                                         const HealthOptions& options) const;

  std::vector<float> memory_;  // ring of window means over leak_days + 1 days; NaN = no data
  // The last kRecent window means (a ring, newest at recent_count_ - 1 modulo kRecent), for the
  // trend that estimates the lead time.
  static constexpr int kRecent = 4;
  std::array<std::array<float, kProfileDims>, kRecent> recent_{};
  std::array<int64_t, kRecent> recent_window_{};
  int64_t recent_count_ = 0;
  int stuck_streak_ = 0;
  int divergent_streak_ = 0;
  std::array<bool, 3> raised_{};
};

// Trend to the limit, the rule acted on while the scheduler runs: ContainerHealth's leak rule needs
// two days of history, this one warns within the hour. A container's memory samples are averaged
// over `window_s`; when a window closes, the last `windows` window means are judged:
//
//   memory-leak  the memory has pulled away from the sibling replicas' median: it is at least
//                `min_excess` of the median above it, its ratio to the median rose by at least
//                `min_excess` over the windows judged and in at least `min_growing_share` of the
//                steps between them (without siblings: the memory itself rose by `min_excess` of
//                its level, that often); the lead time is the time the memory takes to reach the
//                limit at its least-squares slope (the steeper of all the windows' and the newer
//                half's, as a young leak's older windows are still flat).
//
// Load that lifts every replica (a busy hour, a surge) moves the median with it and is not a
// leak. Findings repeat at every confirming window, so the caller can act once the lead time falls
// within its horizon. State is fixed-size per container.
struct TrendOptions {
  int64_t window_s = 300;
  int windows = 6;
  double min_growing_share = 0.8;
  double min_excess = 0.2;
};

class MemoryTrend {
 public:
  explicit MemoryTrend(const TrendOptions& options);

  // Adds a sample (times non-decreasing) of the container's memory and its siblings' median
  // memory (0 = no siblings) against memory `limit` (0 = unknown: the finding's lead time is -1).
  // Returns a finding when the sample closes a window that confirms a leak.
  std::optional<HealthFinding> Add(int64_t time, float memory, float sibling_median, double limit,
                                   const TrendOptions& options);

 private:
  std::optional<HealthFinding> Judge(double limit, const TrendOptions& options) const;

  static constexpr int kMaxWindows = 16;
  int64_t open_window_ = -1;
  double open_memory_ = 0, open_siblings_ = 0;
  int open_count_ = 0;
  bool open_has_siblings_ = true;
  // The closed window means, a ring; newest at (closed_ - 1) % kMaxWindows.
  std::array<float, kMaxWindows> memory_{};
  std::array<float, kMaxWindows> siblings_{};  // NaN for a window without siblings
  std::array<int64_t, kMaxWindows> window_{};
  int64_t closed_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_HEALTH_H_
