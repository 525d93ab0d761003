// Warnings judged by outcome (issue 22): a profiler learns on a history's first part and warns;
// the rest of the history, fed here, says which warnings came true.
//
// An incident is a container at its limit: its usage averaged over a health window (30 min by
// default, so that one burst sample is not an incident) at `at_limit` (99 %) or more of the limit
// in some dimension, anywhere in the rest of the history. The limit is the one the learner's
// health lead times aim at (Profiler::HealthLimit: the app's limit, else its request); a container
// without one has no incidents.
//
// A warning comes true when its container has an incident in the warning's dimension (any
// dimension for divergent-replica, whose cure is the same whatever diverged). Per kind: precision
// = warnings that came true ÷ warnings, with the lead time from each warning to its incident.
// Recall = containers with an incident that had some warning before the split ÷ containers with
// an incident, per dimension of the incident. Containers warned about more than once count once
// per kind (the first warning).
//
// Right-sizing is judged on the same held-back part, side by side with the Kubernetes VPA
// recommender's rule on the same learning part (p90 of the decaying usage histogram × 1.15; VPA
// takes memory's p90 over daily peaks, approximated here by the samples): per app and dimension
// (cpu, memory), the coverage (share of held-back samples at or below the advice, to the
// histogram's 5 % resolution; of what the sample's window reached where the trace gives window
// maxima) and the slack (advice ÷ mean held-back usage) of each, with the least slack that 99 %
// coverage of the held-back part allows.
//
// The curves are judged there too, per dimension: the share of held-back samples at or below the
// app's high curve at their time of day (to compare with the nominal high quantile; what the
// sample's window reached where the trace gives window maxima, as the high curve follows them),
// over the whole rest and over its first day, and the mean curve's error, Σ |sample − mean curve|
// ÷ Σ sample.
#ifndef ARCHIMEDES_PROFILE_BACKTEST_H_
#define ARCHIMEDES_PROFILE_BACKTEST_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile/profile.h"
#include "profile/profiler.h"
#include "profile/right_sizing.h"

namespace archimedes {

struct BacktestKindScore {
  int warnings = 0;
  int came_true = 0;
  std::vector<float> lead_hours;  // per warning that came true: incident time − warning time
};

// One application's advice for one dimension, scored on the held-back part.
struct AdviceScore {
  std::string app;
  Dim dim = Dim::kCpu;
  double advice = 0.0;  // Archimedes' recommendation (bounded)
  double vpa = 0.0;     // VPA's rule on the same learning part
  double coverage = 0.0, vpa_coverage = 0.0;
  double slack = 0.0, vpa_slack = 0.0;
  // The least slack of any advice covering 99 % of the held-back samples (their p99 ÷ mean).
  double least_slack = 0.0;
};

// The learner's curves on the held-back samples of one dimension, pooled over the apps.
struct CurveScore {
  int64_t samples = 0;
  double coverage = 0.0;      // share of samples at or below the high curve
  double app_coverage = 0.0;  // the same per app, averaged over the apps
  int64_t first_day_samples = 0;
  double first_day_coverage = 0.0;  // of the samples in the day after the split
  double mean_error = 0.0;          // Σ |sample − mean curve| ÷ Σ sample
};

struct BacktestScore {
  int64_t split = 0;
  int containers = 0;                         // containers seen after the split
  int with_limit = 0;                         // of which have a known limit
  std::array<BacktestKindScore, 3> kinds;     // by WarningKind
  std::array<int, kProfileDims> incidents{};  // containers with an incident, per dimension
  std::array<int, kProfileDims> warned{};     // of which had a warning before the split
  std::vector<AdviceScore> advice;            // apps with held-back samples, by app then dimension
  std::array<CurveScore, kProfileDims> curves;
};

class Backtest {
 public:
  // `learner` gives the limits; samples at or after `split` go to Add, earlier ones to the learner.
  Backtest(const Profiler& learner, int64_t split, int64_t window_s = 1800, double at_limit = 0.99);

  int64_t split() const { return split_; }

  // One sample of the rest of the history (time ≥ split; times of one container non-decreasing),
  // with the maxima within its window where the trace gives them (< 0: not given).
  void Add(int64_t time, std::string_view app, std::string_view container,
           const std::array<float, kNumDims>& usage,
           const std::array<float, kNumDims>* window_max = nullptr);

  // Scores the learner's warnings (profiles.warnings) and advice against the rest.
  BacktestScore Score(const ProfileSet& profiles) const;

 private:
  struct Container {
    std::array<double, kProfileDims> limit{};
    int64_t window = INT64_MIN;
    std::array<double, kProfileDims> sum{};
    int count = 0;
    std::array<int64_t, kProfileDims> incident{};  // first window end at the limit; -1 = none
  };
  void CloseWindow(Container& c) const;
  void ScoreCurves(const ProfileSet& profiles, BacktestScore& score) const;

  // Held-back usage of one application: in cpu and memory for scoring advice, and every sample
  // for the curves.
  struct HeldBack {
    std::array<DecayingHistogram, 2> reached_histogram;  // of `reached`; each sample weighs 1
    std::array<double, 2> sum{};                         // of the samples (the windows' averages)
    std::array<float, 2> max{};  // advice at or above it covers everything, whatever the buckets
    // Every held-back sample, for the curves (which are known only when the learner finishes).
    std::vector<int64_t> times;
    std::vector<std::array<float, kProfileDims>> samples;
    std::vector<std::array<float, kProfileDims>> reached;  // the window's maximum, else the sample
  };

  const Profiler& learner_;
  std::unordered_map<std::string, HeldBack> held_back_;  // by app
  int64_t split_;
  int64_t window_s_;
  double at_limit_;
  std::unordered_map<std::string, Container> containers_;  // app '\0' container
  std::string key_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_BACKTEST_H_
