#include "profile/features.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "model/quantile.h"

namespace archimedes {

namespace {

// Below these, a daily cycle or a dimension's excess use is not worth naming.
constexpr float kCycleAmplitude = 0.15f;
constexpr float kHeavyBalance = 0.4f;
constexpr float kBurstyRatio = 1.5f;
constexpr float kSpikyPeakToMean = 1.5f;
constexpr float kSpikyDuty = 0.12f;

float SafeLog(float x) { return std::log(std::max(x, 1e-6f)); }

}  // namespace

AppFeatures ComputeFeatures(const std::array<DailyCurve, kNumDims>& mean,
                            const std::array<DailyCurve, kNumDims>& high) {
  AppFeatures f;
  for (int d = 0; d < kProfileDims; ++d) {
    std::span<const float> m = mean[d].values();
    const int bins = static_cast<int>(m.size());
    double sum = 0.0, high_sum = 0.0;
    std::array<double, 2> cos_sum{}, sin_sum{};
    float peak = 0.0f, trough = m.empty() ? 0.0f : m[0];
    for (int b = 0; b < bins; ++b) {
      double angle = 2.0 * std::numbers::pi * (b + 0.5) / bins;
      sum += m[b];
      for (int h = 0; h < 2; ++h) {
        cos_sum[h] += m[b] * std::cos((h + 1) * angle);
        sin_sum[h] += m[b] * std::sin((h + 1) * angle);
      }
      high_sum += high[d][b];
      peak = std::max(peak, m[b]);
      trough = std::min(trough, m[b]);
    }
    double level = sum / bins;
    f.level[d] = static_cast<float>(level);
    f.peak_to_mean[d] = f.burstiness[d] = 1.0f;
    if (level <= 0.0) continue;
    f.peak_to_mean[d] = static_cast<float>(peak / level);
    f.burstiness[d] = static_cast<float>(high_sum / bins / level);
    // Amplitude of harmonic h relative to the mean is 2|c_h| / c_0.
    f.amplitude[d] = static_cast<float>(2.0 * std::hypot(cos_sum[0], sin_sum[0]) / sum);
    f.amplitude2[d] = static_cast<float>(2.0 * std::hypot(cos_sum[1], sin_sum[1]) / sum);
    double hour = std::atan2(sin_sum[0], cos_sum[0]) / (2.0 * std::numbers::pi) * 24.0;
    f.peak_hour[d] = static_cast<float>(hour < 0 ? hour + 24.0 : hour);
    double hour2 = std::atan2(sin_sum[1], cos_sum[1]) / (2.0 * std::numbers::pi) * 12.0;
    f.peak_hour2[d] = static_cast<float>(hour2 < 0 ? hour2 + 12.0 : hour2);
    int above = 0;
    float middle = (peak + trough) / 2;
    for (float v : m) above += v > middle;
    f.duty[d] = peak > trough ? static_cast<float>(above) / bins : 0.5f;
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
    medians[d] = Median(levels);
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
  auto circle = [](float amplitude, float hour, float period, float* out) {
    double angle = hour / period * 2.0 * std::numbers::pi;
    out[0] = amplitude * static_cast<float>(std::cos(angle));
    out[1] = amplitude * static_cast<float>(std::sin(angle));
  };
  FeatureVector v{};
  circle(f.amplitude[cpu], f.peak_hour[cpu], 24.0f, &v[0]);
  circle(f.amplitude2[cpu], f.peak_hour2[cpu], 12.0f, &v[2]);
  v[4] = SafeLog(f.peak_to_mean[cpu]);
  v[5] = f.duty[cpu];
  v[6] = SafeLog(f.burstiness[cpu]);
  v[7] = std::min(f.amplitude[memory], 1.0f);
  v[8] = 0.5f * (f.balance[memory] - f.balance[cpu]);
  return v;
}

std::string DescribeFeatures(const AppFeatures& f) {
  static constexpr std::array<const char*, kProfileDims> kNames = {"CPU", "memory", "disk",
                                                                   "network"};
  std::string text;
  for (int d = 0; d < kProfileDims; ++d) {
    if (f.balance[d] < kHeavyBalance) continue;
    text += text.empty() ? kNames[d] : std::string(" and ") + kNames[d];
  }
  text += text.empty() ? "balanced" : "-heavy";
  const int cpu = static_cast<int>(Dim::kCpu);
  if (f.amplitude[cpu] >= kCycleAmplitude) {
    int hour = static_cast<int>(std::lround(f.peak_hour[cpu])) % 24;
    text += hour >= 7 && hour < 19 ? ", daytime peak (" : ", night peak (";
    text += std::to_string(hour) + "h)";
  } else {
    text += ", flat";
  }
  if (f.burstiness[cpu] >= kBurstyRatio) text += ", bursty";
  if (f.duty[cpu] <= kSpikyDuty && f.peak_to_mean[cpu] >= kSpikyPeakToMean) text += ", spiky";
  return text;
}

}  // namespace archimedes
