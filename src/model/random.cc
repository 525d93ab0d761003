#include "model/random.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace archimedes {

int64_t Random::UniformInt(int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(Uniform() * static_cast<double>(hi - lo + 1));
}

double Random::LogUniform(double lo, double hi) {
  return std::exp(Uniform(std::log(lo), std::log(hi)));
}

double Random::Normal() {
  const double u1 = 1.0 - Uniform();  // (0, 1], so the logarithm is finite
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Random::LogNormal(double median, double sigma) {
  return median * std::exp(sigma * Normal());
}

double Random::Pareto(double scale, double alpha) {
  return scale * std::pow(1.0 - Uniform(), -1.0 / alpha);
}

int64_t Random::Poisson(double mean) {
  if (mean > 50) return std::max<int64_t>(0, std::llround(mean + std::sqrt(mean) * Normal()));
  const double limit = std::exp(-mean);
  int64_t k = 0;
  for (double p = Uniform(); p > limit; p *= Uniform()) ++k;
  return k;
}

int Random::Pick(const std::vector<double>& cumulative) {
  const double x = Uniform() * cumulative.back();
  auto it = std::upper_bound(cumulative.begin(), cumulative.end(), x);
  return static_cast<int>(
      std::min<std::ptrdiff_t>(it - cumulative.begin(), std::ssize(cumulative) - 1));
}

}  // namespace archimedes
