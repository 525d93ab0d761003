// Periodic usage curves. A DailyCurve is one dimension over one day in equal bins (DESIGN §2:
// default 288 bins of 5 minutes); a UsagePattern is a per-dimension series of any length, replayed
// periodically, which is how a service's per-replica usage is described (a daily shape is a pattern
// one day long, a recorded trace is a pattern as long as the recording).
#ifndef ARCHIMEDES_MODEL_CURVE_H_
#define ARCHIMEDES_MODEL_CURVE_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/resources.h"

namespace archimedes {

inline constexpr int64_t kSecondsPerDay = 86'400;

class DailyCurve {
 public:
  static constexpr int kDefaultBins = 288;

  DailyCurve() : DailyCurve(kDefaultBins) {}
  // `bins` must divide 86,400 (throws std::invalid_argument otherwise).
  explicit DailyCurve(int bins, float value = 0.0f);
  explicit DailyCurve(std::vector<float> values);

  int bins() const { return static_cast<int>(values_.size()); }
  int64_t bin_seconds() const { return kSecondsPerDay / bins(); }
  // The bin that holds time `t` (seconds; periodic over a day, negative times wrap).
  int BinAt(int64_t t) const;
  float At(int64_t t) const { return values_[BinAt(t)]; }
  float& operator[](int bin) { return values_[bin]; }
  float operator[](int bin) const { return values_[bin]; }
  std::span<const float> values() const { return values_; }

  float Peak() const;
  float Mean() const;

 private:
  std::vector<float> values_;
};

// Per-replica usage of a service over time, in canonical units per dimension (floats).
struct UsagePattern {
  int64_t step_seconds = 300;
  // values[dim][i] is the usage during [i*step, (i+1)*step) of the pattern's period.
  std::array<std::vector<float>, kNumDims> values;
  // Relative standard deviation of per-replica, per-sample noise (lognormal-ish multiplier).
  float noise = 0.0f;
  // Probability per sample that a replica bursts, and the factor its CPU is multiplied by then.
  float burst_probability = 0.0f;
  float burst_factor = 1.0f;
  // Memory leaks, per container incarnation (a restarted or replacement container starts clean):
  // a leak begins after an exponentially distributed age with `leak_per_day` leaks per day of
  // container age, and from then on adds `leak_rate` (canonical memory units per second) to the
  // replica's memory until the container ends.
  float leak_per_day = 0.0f;
  float leak_rate = 0.0f;

  int64_t period_seconds() const;
  int samples() const { return static_cast<int>(values[0].size()); }
  // Mean usage at time `t` (periodic), without noise. Zero for an empty pattern.
  float At(Dim dim, int64_t t) const;
  // Highest value of the mean pattern per dimension.
  std::array<float, kNumDims> Peak() const;
};

// A pattern one day long built from per-dimension daily curves (all with the same bin count).
UsagePattern PatternFromCurves(const std::array<DailyCurve, kNumDims>& curves);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_CURVE_H_
