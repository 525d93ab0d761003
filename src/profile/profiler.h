// The profiler (DESIGN §1.1): streams usage samples of containers and learns, per application, the
// daily curves, features, class, right-sized request and health warnings that make up a
// ProfileSet.
//
// Streaming and memory. Per application it keeps, for each of the last `max_days` days it has seen
// (a ring indexed by day number; samples older than the ring's oldest day still feed the
// right-sizing histogram and the health checks but not the curves), per dimension and bin, the
// count, sum and sum of squares of the samples of all replicas. That is
// bins × max_days × (4 × 8 + 2) bytes per application (≈ 69 KB at 288 bins × 7 days), plus a
// decaying histogram per dimension and a fixed-size health state per container: memory grows with
// applications and containers, never with samples. An application whose trace gives window maxima
// keeps their sums and sums of squares too (twice the floats).
//
// Curves. For each dimension, days whose level departs from the other days' (ratio to the per-bin
// median of the days more than max(25 %, 4 robust standard deviations) away from the typical
// ratio) are outlier days and left out — at most a quarter of the days, the most extreme first,
// and only with 4 or more days. Over the days kept, a bin's mean is the mean of its samples and its
// high quantile is mean + z × scale, the scale being the standard deviation of the bin's samples.
// Calibrated (the default), z is the empirical high quantile of scores of days the curve has not
// seen, and the curves follow a day-over-day trend to the day after the last one seen
// (curve_calibration.h); the scale is then at least 1 % of the app's level. Uncalibrated, z is
// the normal quantile and there is no trend.
// Where window maxima are given, the high quantile is the larger of that and the same over the
// maxima, and the right-sizing histogram and the peak take the maxima. Bins without samples are
// interpolated from their neighbours on the daily circle.
//
// Classes come from clustering.h over features.h vectors; complementarity and hints from
// complementarity.h; recommendations from right_sizing.h; warnings from health.h, with the app
// profile learnt so far and the sibling replicas as the expectation. Sibling comparisons need the
// input roughly in time order across containers (as the simulator writes it); input grouped by
// container is still profiled correctly, it only gets profile-based health checks.
#ifndef ARCHIMEDES_PROFILE_PROFILER_H_
#define ARCHIMEDES_PROFILE_PROFILER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/curve.h"
#include "model/workload.h"
#include "profile/curve_calibration.h"
#include "profile/health.h"
#include "profile/profile.h"
#include "profile/right_sizing.h"

namespace archimedes {

struct ProfileOptions {
  int bins = DailyCurve::kDefaultBins;
  int max_days = 7;
  double high_quantile = 0.95;
  // Empirical high quantile and trend (see above); false = the normal approximation over a flat
  // history, which the simulator's golden reports were measured with.
  bool calibrated = true;
  int max_classes = 10;
  uint64_t seed = 1;
  bool normalized = false;  // the input is in normalised shares (recorded in the ProfileSet)
  RightSizingOptions right_sizing;
  HealthOptions health;
};

class Profiler {
 public:
  // Throws std::invalid_argument when bins does not divide a day, max_days is outside [1, 366],
  // high_quantile is outside (0.5, 1), the health window does not divide a day or the leak rule's
  // days are outside [1, 7].
  explicit Profiler(ProfileOptions options = {});

  // Dense ids for hot loops; created on first use.
  int ContainerIndex(std::string_view app, std::string_view container);

  // Optional knowledge about an application, before or after its samples. The request (per
  // replica) enables savings; `replicas` > 0 overrides the number of containers seen when the
  // savings are counted. The limit (per replica, 0 = none) is what health lead times aim at; the
  // request stands in for it when no limit is set.
  void SetRequest(std::string_view app, const std::array<double, kNumDims>& request,
                  int replicas = 0);
  void SetLimit(std::string_view app, const std::array<double, kNumDims>& limit);
  // The capacity of the fleet's largest node per dimension (0 = unknown), in the input's units: no
  // recommendation goes above it. The per-application form names the largest node that could host
  // that application (its own machine, the nodes its selector admits); where it is known (> 0) it
  // replaces the fleet's for that application.
  void SetLargestNode(const std::array<double, kNumDims>& capacity) { largest_node_ = capacity; }
  void SetLargestNode(std::string_view app, const std::array<double, kNumDims>& capacity);
  // Requests and replica counts of every service of a scenario, keyed by the service's app.
  void SetRequests(const Scenario& scenario);

  // One sample of a container; times of one container must not decrease.
  void Add(int container, int64_t time, const std::array<float, kNumDims>& usage) {
    AddSample(container, time, usage, nullptr);
  }
  void Add(int64_t time, std::string_view app, std::string_view container,
           const std::array<float, kNumDims>& usage) {
    AddSample(ContainerIndex(app, container), time, usage, nullptr);
  }
  // Starts loading what a sample of `container` at `time` will touch: a caller that knows the
  // samples to come calls it a few samples ahead. A fleet's profiles outgrow the cache, and each
  // sample touches its app's state in several places, so that otherwise every sample waits for
  // memory several times in a row.
  // Data(): the sample's own bins and histogram buckets, which are found through the app's record
  // that Record() loads: callers ask for the record twice as far ahead.
  void PrefetchRecord(int container) const;
  void PrefetchData(int container, int64_t time) const;
  // A sample whose trace also gives the maximum within its window (Google 2019's max_cpu_usage):
  // the high curve and the right-sized request then follow the peaks that the window's average
  // hides. `window_max[d]` < 0 = not given for d (the average stands in for it).
  void AddWithWindowMax(int container, int64_t time, const std::array<float, kNumDims>& usage,
                        const std::array<float, kNumDims>& window_max) {
    AddSample(container, time, usage, &window_max);
  }

  // The `p`-th percentile of the app's decaying usage histogram in `dim` (what right-sizing reads,
  // so that other rules can be compared on the same history); 0 when the app has no samples.
  double UsagePercentile(std::string_view app, Dim dim, double p) const;

  // What health lead times aim at for `app` per dimension: its limit, else its request (0 = none).
  std::array<double, kNumDims> HealthLimit(std::string_view app) const;

  int64_t samples() const { return samples_; }
  int num_apps() const { return static_cast<int>(apps_.size()); }
  int num_containers() const { return static_cast<int>(containers_.size()); }

  // Builds the profiles of every application with samples.
  ProfileSet Finish() const;

 private:
  struct App {
    std::string name;
    std::vector<int32_t> slot_day;  // day held by each ring slot; INT32_MIN = empty
    std::vector<float> sum;         // [(bin × max_days + slot) × 4 + dim], minus `reference`
    std::vector<float> sum_squares;
    std::vector<uint16_t> count;  // [bin × max_days + slot]
    // Like sum and sum_squares, of the window maxima; empty until a sample brings one.
    std::vector<float> max_sum;
    std::vector<float> max_squares;
    std::array<bool, kProfileDims> has_window_max{};
    std::array<float, kProfileDims> reference{};
    std::array<float, kNumDims> peak{};
    std::array<DecayingHistogram, kProfileDims> histogram;
    std::vector<int> containers;
    int64_t samples = 0;
    bool has_request = false;
    std::array<double, kNumDims> request{};
    int replicas = 0;
    std::array<double, kNumDims> limit{};
    std::array<double, kNumDims> largest_node{};  // 0 = the fleet's
  };
  struct Container {
    std::string name;
    int app;
    ContainerHealth health;
  };

  int AppIndex(std::string_view app);
  void AddSample(int container, int64_t time, const std::array<float, kNumDims>& usage,
                 const std::array<float, kNumDims>* window_max);
  static std::array<double, kNumDims> HealthLimit(const App& app);
  void ClearSlot(App& app, int slot) const;
  // The app's mean and high quantile at `bin` over every day held, without outlier rejection;
  // false (and zeros) when the bin has no samples yet.
  bool ProfileSoFar(const App& app, int bin, std::array<float, kProfileDims>& mean,
                    std::array<float, kProfileDims>& high) const;
  void CheckHealth(int container);
  // Days of `dim` that are not outlier days, by ring slot.
  std::vector<bool> KeptDays(const App& app, int dim) const;
  // Fills `grid` with the day sums of `dim` (of the window maxima with `window_max`); slots not
  // `kept` are empty.
  void FillGrid(const App& app, int dim, const std::vector<bool>& kept, bool window_max,
                DayGrid& grid) const;
  void BuildCurves(const App& app, AppProfile& profile) const;

  ProfileOptions options_;
  double z_;  // standard normal quantile of options_.high_quantile
  int64_t bin_seconds_;
  std::unordered_map<std::string, int> app_index_;
  std::unordered_map<std::string, int> container_index_;  // app '\0' container
  std::string key_;
  std::vector<App> apps_;
  std::vector<Container> containers_;
  std::vector<HealthWarning> warnings_;
  std::vector<float> scratch_;
  int64_t samples_ = 0;
  std::array<double, kNumDims> largest_node_{};
};

// The standard normal quantile: Φ⁻¹(p) for p in (0, 1).
double NormalQuantile(double p);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_PROFILER_H_
