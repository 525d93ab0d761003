#include "model/curve.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace archimedes {

DailyCurve::DailyCurve(int bins, float value) {
  if (bins <= 0 || kSecondsPerDay % bins != 0) {
    throw std::invalid_argument("a daily curve needs a bin count that divides 86400, got " +
                                std::to_string(bins));
  }
  values_.assign(bins, value);
}

DailyCurve::DailyCurve(std::vector<float> values) : values_(std::move(values)) {
  if (values_.empty() || kSecondsPerDay % static_cast<int64_t>(values_.size()) != 0) {
    throw std::invalid_argument("a daily curve needs a bin count that divides 86400, got " +
                                std::to_string(values_.size()));
  }
}

int DailyCurve::BinAt(int64_t t) const {
  int64_t in_day = t % kSecondsPerDay;
  if (in_day < 0) in_day += kSecondsPerDay;
  return static_cast<int>(in_day / bin_seconds());
}

float DailyCurve::Peak() const { return *std::max_element(values_.begin(), values_.end()); }

float DailyCurve::Mean() const {
  return std::accumulate(values_.begin(), values_.end(), 0.0f) / static_cast<float>(bins());
}

int64_t UsagePattern::period_seconds() const { return step_seconds * samples(); }

float UsagePattern::At(Dim dim, int64_t t) const {
  const std::vector<float>& v = values[static_cast<int>(dim)];
  if (v.empty()) return 0.0f;
  int64_t i = (t / step_seconds) % static_cast<int64_t>(v.size());
  if (i < 0) i += static_cast<int64_t>(v.size());
  return v[i];
}

std::array<float, kNumDims> UsagePattern::Peak() const {
  std::array<float, kNumDims> peak{};
  for (int d = 0; d < kNumDims; ++d) {
    if (!values[d].empty()) peak[d] = *std::max_element(values[d].begin(), values[d].end());
  }
  return peak;
}

UsagePattern PatternFromCurves(const std::array<DailyCurve, kNumDims>& curves) {
  UsagePattern p;
  p.step_seconds = curves[0].bin_seconds();
  for (int d = 0; d < kNumDims; ++d) {
    if (curves[d].bins() != curves[0].bins()) {
      throw std::invalid_argument("daily curves of one pattern must have the same bin count");
    }
    p.values[d].assign(curves[d].values().begin(), curves[d].values().end());
  }
  return p;
}

}  // namespace archimedes
