#include "model/quantile.h"

#include <algorithm>
#include <cmath>

namespace archimedes {
namespace {

template <typename T>
T NearestRank(std::vector<T>& values, double q) {
  if (values.empty()) return T{0};
  const auto k = static_cast<std::ptrdiff_t>(NearestRankIndex(values.size(), q));
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return values[k];
}

}  // namespace

size_t NearestRankIndex(size_t n, double q) {
  // Clamped as a double: a negative q must not reach the conversion to size_t.
  const double rank =
      std::clamp(std::ceil(q * static_cast<double>(n)), 1.0, static_cast<double>(n));
  return static_cast<size_t>(rank) - 1;
}

float Quantile(std::vector<float> values, double q) { return NearestRank(values, q); }

double Quantile(std::vector<double> values, double q) { return NearestRank(values, q); }

float Median(std::span<float> values) {
  if (values.empty()) return 0.0f;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

double WeightedQuantile(std::vector<std::pair<double, double>> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  double total = 0;
  for (const auto& [value, weight] : samples) total += weight;
  const double target = q * total;
  double seen = 0;
  for (const auto& [value, weight] : samples) {
    seen += weight;
    if (seen >= target) return value;
  }
  // Only a q above 1 gets here.
  return samples.back().first;
}

}  // namespace archimedes
