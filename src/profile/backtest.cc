#include "profile/backtest.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <stdexcept>

namespace archimedes {

Backtest::Backtest(const Profiler& learner, int64_t split, int64_t window_s, double at_limit)
    : learner_(learner), split_(split), window_s_(window_s), at_limit_(at_limit) {
  if (window_s <= 0) throw std::invalid_argument("the backtest window must be positive");
}

void Backtest::CloseWindow(Container& c) const {
  if (c.count == 0) return;
  for (int d = 0; d < kProfileDims; ++d) {
    if (c.incident[d] < 0 && c.limit[d] > 0.0 && c.sum[d] / c.count >= at_limit_ * c.limit[d]) {
      c.incident[d] = (c.window + 1) * window_s_;
    }
  }
  c.sum = {};
  c.count = 0;
}

void Backtest::Add(int64_t time, std::string_view app, std::string_view container,
                   const std::array<float, kNumDims>& usage,
                   const std::array<float, kNumDims>* window_max) {
  key_.assign(app);
  key_.push_back('\0');
  key_.append(container);
  auto [it, inserted] = containers_.try_emplace(key_);
  Container& c = it->second;
  if (inserted) {
    const std::array<double, kNumDims> limit = learner_.HealthLimit(app);
    for (int d = 0; d < kProfileDims; ++d) c.limit[d] = limit[d];
    c.incident.fill(-1);
  }
  const int64_t window = time / window_s_ - (time % window_s_ < 0 ? 1 : 0);
  if (window != c.window) {
    CloseWindow(c);
    c.window = window;
  }
  for (int d = 0; d < kProfileDims; ++d) c.sum[d] += usage[d];
  ++c.count;

  HeldBack& held = held_back_[std::string(app)];
  held.times.push_back(time);
  std::array<float, kProfileDims>& sample = held.samples.emplace_back();
  std::array<float, kProfileDims>& reached = held.reached.emplace_back();
  for (int d = 0; d < kProfileDims; ++d) {
    sample[d] = usage[d];
    reached[d] = window_max ? std::max(usage[d], (*window_max)[d]) : usage[d];
  }
  // Advice is to cover what the windows reached; its cost is against what they used on average.
  for (int d = 0; d < 2; ++d) {
    // One time for all: no decay, each sample weighs 1.
    held.reached_histogram[d].Add(reached[d], 0, 1);
    held.sum[d] += usage[d];
    held.max[d] = std::max(held.max[d], reached[d]);
  }
}

namespace {

// Share of the histogram's weight at or below `value`, to its bucket resolution: the largest p
// whose percentile is still at most `value` (percentiles grow with p); all of it at or above the
// largest sample `max`.
double ShareAtMost(const DecayingHistogram& h, float max, double value) {
  if (value >= max || h.Percentile(1.0) <= value) return 1.0;
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 30; ++i) {
    const double mid = (lo + hi) / 2;
    (h.Percentile(mid) <= value ? lo : hi) = mid;
  }
  return lo;
}

// The Kubernetes VPA recommender's target: p90 of the usage histogram with a 15 % safety margin.
constexpr double kVpaPercentile = 0.9;
constexpr double kVpaMargin = 0.15;

}  // namespace

BacktestScore Backtest::Score(const ProfileSet& profiles) const {
  const std::vector<HealthWarning>& warnings = profiles.warnings;
  BacktestScore score;
  score.split = split_;
  // Windows still open at the end of the history count as closed.
  std::unordered_map<std::string, Container> closed = containers_;
  for (auto& [key, c] : closed) {
    CloseWindow(c);
    ++score.containers;
    bool with_limit = false;
    for (double l : c.limit) with_limit |= l > 0.0;
    score.with_limit += with_limit;
  }

  // The first warning of each kind per container; and which containers had any warning.
  std::map<std::pair<std::string, int>, const HealthWarning*> first;
  std::map<std::string, bool> warned;
  std::string key;
  for (const HealthWarning& w : warnings) {
    if (w.time > split_) continue;  // raised after the learning part: not the learner's
    key = w.app + '\0' + w.container;
    first.try_emplace({key, static_cast<int>(w.kind)}, &w);
    warned[key] = true;
  }
  for (const auto& [id, w] : first) {
    BacktestKindScore& kind = score.kinds[id.second];
    ++kind.warnings;
    auto it = closed.find(id.first);
    if (it == closed.end()) continue;  // not seen after the split: nothing came true
    int64_t incident = -1;
    for (int d = 0; d < kProfileDims; ++d) {
      if (w->kind != WarningKind::kDivergentReplica && d != static_cast<int>(w->dim)) continue;
      if (it->second.incident[d] >= 0 && (incident < 0 || it->second.incident[d] < incident)) {
        incident = it->second.incident[d];
      }
    }
    if (incident < 0) continue;
    ++kind.came_true;
    kind.lead_hours.push_back(static_cast<float>(incident - w->time) / 3600.0f);
  }
  for (const auto& [id, c] : closed) {
    for (int d = 0; d < kProfileDims; ++d) {
      if (c.incident[d] < 0) continue;
      ++score.incidents[d];
      score.warned[d] += warned.count(id) > 0;
    }
  }

  for (const AppProfile& p : profiles.apps) {
    auto it = held_back_.find(p.app);
    if (it == held_back_.end() || it->second.samples.empty()) continue;
    const HeldBack& held = it->second;
    for (int d = 0; d < 2; ++d) {
      const Dim dim = static_cast<Dim>(d);
      const double mean = held.sum[d] / static_cast<double>(held.samples.size());
      AdviceScore a{.app = p.app, .dim = dim, .advice = p.recommended[d]};
      a.vpa = learner_.UsagePercentile(p.app, dim, kVpaPercentile) * (1.0 + kVpaMargin);
      a.coverage = ShareAtMost(held.reached_histogram[d], held.max[d], a.advice);
      a.vpa_coverage = ShareAtMost(held.reached_histogram[d], held.max[d], a.vpa);
      a.slack = mean > 0.0 ? a.advice / mean : 0.0;
      a.vpa_slack = mean > 0.0 ? a.vpa / mean : 0.0;
      // No advice covering 99 % of the held-back samples can have less slack than their p99.
      a.least_slack = mean > 0.0 ? held.reached_histogram[d].Percentile(0.99) / mean : 0.0;
      score.advice.push_back(std::move(a));
    }
  }
  ScoreCurves(profiles, score);
  return score;
}

void Backtest::ScoreCurves(const ProfileSet& profiles, BacktestScore& score) const {
  std::array<double, kProfileDims> covered{}, error{}, usage{}, app_coverage{};
  std::array<int64_t, kProfileDims> first_day_covered{};
  int apps = 0;
  for (const AppProfile& p : profiles.apps) {
    auto it = held_back_.find(p.app);
    if (it == held_back_.end() || it->second.samples.empty()) continue;
    const HeldBack& held = it->second;
    const auto n = static_cast<int64_t>(held.samples.size());
    std::array<int64_t, kProfileDims> app_covered{};
    for (int64_t i = 0; i < n; ++i) {
      const int bin = p.mean[0].BinAt(held.times[i]);  // every curve has the set's bins
      const bool first_day = held.times[i] < split_ + kSecondsPerDay;
      for (int d = 0; d < kProfileDims; ++d) {
        const bool covers = held.reached[i][d] <= p.high[d][bin];
        app_covered[d] += covers;
        first_day_covered[d] += first_day && covers;
        score.curves[d].first_day_samples += first_day;
        const float x = held.samples[i][d];
        error[d] += std::abs(x - p.mean[d][bin]);
        usage[d] += x;
      }
    }
    for (int d = 0; d < kProfileDims; ++d) {
      covered[d] += static_cast<double>(app_covered[d]);
      score.curves[d].samples += n;
      app_coverage[d] += static_cast<double>(app_covered[d]) / static_cast<double>(n);
    }
    ++apps;
  }
  for (int d = 0; d < kProfileDims; ++d) {
    CurveScore& curve = score.curves[d];
    if (usage[d] == 0.0) curve = CurveScore{};  // the history does not give this dimension
    if (curve.samples == 0) continue;
    curve.coverage = covered[d] / static_cast<double>(curve.samples);
    curve.app_coverage = app_coverage[d] / apps;
    curve.mean_error = usage[d] > 0.0 ? error[d] / usage[d] : 0.0;
    if (curve.first_day_samples > 0) {
      curve.first_day_coverage =
          static_cast<double>(first_day_covered[d]) / static_cast<double>(curve.first_day_samples);
    }
  }
}

}  // namespace archimedes
