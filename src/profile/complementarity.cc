#include "profile/complementarity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace archimedes {

namespace {

float ShapePeak(const DailyCurve& shape) { return shape.bins() > 0 ? shape.Peak() : 0.0f; }

int PeakHour(const DailyCurve& curve) {
  std::span<const float> v = curve.values();
  auto peak = std::max_element(v.begin(), v.end());
  return static_cast<int>((peak - v.begin()) * curve.bin_seconds() / 3600);
}

}  // namespace

ClassPair Complementarity(const ProfileClass& a, const ProfileClass& b) {
  ClassPair pair;
  pair.a = a.id;
  pair.b = b.id;
  double total = 0.0;
  int used = 0;
  for (int d = 0; d < kProfileDims; ++d) {
    const DailyCurve& sa = a.high_shape[d];
    const DailyCurve& sb = b.high_shape[d];
    if (a.level[d] <= 0.0f || b.level[d] <= 0.0f || sa.bins() != sb.bins()) continue;
    double peak_a = 0.0, peak_b = 0.0, peak_sum = 0.0;
    for (int t = 0; t < sa.bins(); ++t) {
      double x = static_cast<double>(a.level[d]) * sa[t];
      double y = static_cast<double>(b.level[d]) * sb[t];
      peak_a = std::max(peak_a, x);
      peak_b = std::max(peak_b, y);
      peak_sum = std::max(peak_sum, x + y);
    }
    if (peak_a + peak_b <= 0.0) continue;
    pair.peak_reduction[d] = static_cast<float>(1.0 - peak_sum / (peak_a + peak_b));
    total += pair.peak_reduction[d];
    ++used;
  }
  pair.score = used > 0 ? static_cast<float>(total / used) : 0.0f;
  return pair;
}

std::vector<ClassPair> ComplementarityTable(const std::vector<ProfileClass>& classes) {
  std::vector<ClassPair> table;
  for (size_t i = 0; i < classes.size(); ++i) {
    for (size_t j = i; j < classes.size(); ++j)
      table.push_back(Complementarity(classes[i], classes[j]));
  }
  return table;
}

std::vector<PlacementHint> PlacementHints(const std::vector<ProfileClass>& classes,
                                          const std::vector<ClassPair>& table) {
  auto find = [&](int id) -> const ProfileClass& {
    return *std::find_if(classes.begin(), classes.end(),
                         [id](const ProfileClass& c) { return c.id == id; });
  };
  std::vector<PlacementHint> hints;
  char buffer[200];
  for (const ClassPair& pair : table) {
    const ProfileClass& a = find(pair.a);
    const ProfileClass& b = find(pair.b);
    int strongest =
        static_cast<int>(std::max_element(pair.peak_reduction.begin(), pair.peak_reduction.end()) -
                         pair.peak_reduction.begin());
    if (pair.score >= kAffinityScore || pair.peak_reduction[strongest] >= kAffinityReduction) {
      int best = static_cast<int>(
          std::max_element(pair.peak_reduction.begin(), pair.peak_reduction.end()) -
          pair.peak_reduction.begin());
      std::snprintf(buffer, sizeof buffer,
                    "co-locating lowers the peak by %.0f%% on average, %s by %.0f%% (peaks at %dh "
                    "and %dh)",
                    100.0 * pair.score, std::string(DimName(static_cast<Dim>(best))).c_str(),
                    100.0 * pair.peak_reduction[best], PeakHour(a.high_shape[best]),
                    PeakHour(b.high_shape[best]));
      hints.push_back({pair.a, pair.b, HintKind::kAffinity, pair.score, buffer});
      continue;
    }
    for (int d = 0; d < kProfileDims; ++d) {
      if (a.level[d] <= 0.0f || b.level[d] <= 0.0f) continue;
      float mean_a = a.high_shape[d].Mean(), mean_b = b.high_shape[d].Mean();
      bool peaky = mean_a > 0.0f && mean_b > 0.0f &&
                   ShapePeak(a.high_shape[d]) >= kPeakyRatio * mean_a &&
                   ShapePeak(b.high_shape[d]) >= kPeakyRatio * mean_b;
      if (peaky && pair.peak_reduction[d] < kAntiAffinityReduction) {
        std::snprintf(buffer, sizeof buffer,
                      "%s peaks stack (at %dh and %dh): co-locating lowers the peak by only %.1f%%",
                      std::string(DimName(static_cast<Dim>(d))).c_str(), PeakHour(a.high_shape[d]),
                      PeakHour(b.high_shape[d]), 100.0 * pair.peak_reduction[d]);
        hints.push_back({pair.a, pair.b, HintKind::kAntiAffinity, pair.peak_reduction[d], buffer});
        break;
      }
    }
  }
  return hints;
}

}  // namespace archimedes
