#include "profile/features.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace archimedes {

namespace {

// Below these, a daily cycle or a dimension's excess use is not worth naming.
constexpr float kCycleAmplitude = 0.15f;
constexpr float kHeavyBalance = 0.4f;
constexpr float kBurstyRatio = 1.5f;
constexpr float kSpikyPeakToMean = 2.0f;

float SafeLog(float x) { return std::log(std::max(x, 1e-6f)); }

}  // namespace

AppFeatures ComputeFeatures(const std::array<DailyCurve, kNumDims>& mean,
                            const std::array<DailyCurve, kNumDims>& high) {
  AppFeatures f;
  for (int d = 0; d < kProfileDims; ++d) {
    std::span<const float> m = mean[d].values();
    const int bins = static_cast<int>(m.size());
    double sum = 0.0, cos_sum = 0.0, sin_sum = 0.0, high_sum = 0.0;
    float peak = 0.0f;
    for (int b = 0; b < bins; ++b) {
      double angle = 2.0 * std::numbers::pi * (b + 0.5) / bins;
      sum += m[b];
      cos_sum += m[b] * std::cos(angle);
      sin_sum += m[b] * std::sin(angle);
      high_sum += high[d][b];
      peak = std::max(peak, m[b]);
    }
    double level = sum / bins;
    f.level[d] = static_cast<float>(level);
    if (level <= 0.0) {
      f.peak_to_mean[d] = f.burstiness[d] = 1.0f;
      continue;
    }
    f.peak_to_mean[d] = static_cast<float>(peak / level);
    f.burstiness[d] = static_cast<float>(high_sum / bins / level);
    // Amplitude of the first harmonic relative to the mean: 2|c1| / c0.
    f.amplitude[d] = static_cast<float>(2.0 * std::hypot(cos_sum, sin_sum) / sum);
    double hour = std::atan2(sin_sum, cos_sum) / (2.0 * std::numbers::pi) * 24.0;
    f.peak_hour[d] = static_cast<float>(hour < 0 ? hour + 24.0 : hour);
  }
  return f;
}

std::array<float, kProfileDims> MedianLevels(std::span<const AppFeatures* const> features) {
  std::array<float, kProfileDims> medians{};
  std::vector<float> levels;
  for (int d = 0; d < kProfileDims; ++d) {
    levels.clear();
    for (const AppFeatures* f : features) {
      if (f->level[d] > 0.0f) levels.push_back(f->level[d]);
    }
    if (levels.empty()) continue;
    auto middle = levels.begin() + static_cast<std::ptrdiff_t>(levels.size() / 2);
    std::nth_element(levels.begin(), middle, levels.end());
    medians[d] = *middle;
  }
  return medians;
}

void SetBalance(AppFeatures& features, const std::array<float, kProfileDims>& median_levels) {
  double total = 0.0;
  int used = 0;
  for (int d = 0; d < kProfileDims; ++d) {
    features.balance[d] = 0.0f;
    if (median_levels[d] <= 0.0f || features.level[d] <= 0.0f) continue;
    features.balance[d] = SafeLog(features.level[d] / median_levels[d]);
    total += features.balance[d];
    ++used;
  }
  if (used == 0) return;
  for (int d = 0; d < kProfileDims; ++d) {
    if (median_levels[d] > 0.0f && features.level[d] > 0.0f) {
      features.balance[d] -= static_cast<float>(total / used);
    }
  }
}

FeatureVector ToFeatureVector(const AppFeatures& f) {
  const int cpu = static_cast<int>(Dim::kCpu);
  const int memory = static_cast<int>(Dim::kMemory);
  auto circle = [&](int d, float weight, float* out) {
    double angle = f.peak_hour[d] / 24.0 * 2.0 * std::numbers::pi;
    out[0] = weight * f.amplitude[d] * static_cast<float>(std::cos(angle));
    out[1] = weight * f.amplitude[d] * static_cast<float>(std::sin(angle));
  };
  FeatureVector v{};
  circle(cpu, 1.0f, &v[0]);
  circle(memory, 0.5f, &v[2]);
  v[4] = SafeLog(f.peak_to_mean[cpu]);
  v[5] = 2.0f * SafeLog(f.burstiness[cpu]);
  v[6] = 0.7f * f.balance[cpu];
  v[7] = 0.7f * f.balance[memory];
  v[8] = 0.25f * f.balance[static_cast<int>(Dim::kDisk)];
  v[9] = 0.25f * f.balance[static_cast<int>(Dim::kNetwork)];
  return v;
}

std::string DescribeFeatures(const AppFeatures& f) {
  static constexpr std::array<const char*, kProfileDims> kHeavy = {
      "CPU-heavy", "memory-heavy", "disk-heavy", "network-heavy"};
  int heaviest = 0;
  for (int d = 1; d < kProfileDims; ++d) {
    if (f.balance[d] > f.balance[heaviest]) heaviest = d;
  }
  std::string text = f.balance[heaviest] >= kHeavyBalance ? kHeavy[heaviest] : "balanced";
  const int cpu = static_cast<int>(Dim::kCpu);
  if (f.amplitude[cpu] >= kCycleAmplitude) {
    int hour = static_cast<int>(std::lround(f.peak_hour[cpu])) % 24;
    text += hour >= 7 && hour < 19 ? ", daytime peak (" : ", night peak (";
    text += std::to_string(hour) + "h)";
  } else {
    text += ", flat";
  }
  if (f.burstiness[cpu] >= kBurstyRatio || f.peak_to_mean[cpu] >= kSpikyPeakToMean) {
    text += ", spiky";
  }
  return text;
}

}  // namespace archimedes
