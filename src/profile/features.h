// Features of an application's daily curves (DESIGN §1.1): level, peakiness, the hour and strength
// of its daily cycle and its balance across dimensions, and the fixed-weight vector that
// classification clusters. Every feature is scale-free except `level`, so applications of very
// different sizes but the same shape land in the same class.
//
// Clustering vector (kFeatureVectorSize entries, docs/profiles.md):
//   0,1  cpu daily cycle: amplitude × (cos, sin) of its peak hour on the 24 h circle
//   2,3  memory daily cycle, the same, × 0.5
//   4    log(cpu peak ÷ mean) of the mean curve
//   5    2 × log(cpu high ÷ mean): burstiness of single samples
//   6-9  balance of cpu, memory (× 0.7 each) and disk, network (× 0.25 each)
#ifndef ARCHIMEDES_PROFILE_FEATURES_H_
#define ARCHIMEDES_PROFILE_FEATURES_H_

#include <array>
#include <span>
#include <string>

#include "model/curve.h"
#include "profile/profile.h"

namespace archimedes {

inline constexpr int kFeatureVectorSize = 10;
using FeatureVector = std::array<float, kFeatureVectorSize>;

// Every feature except `balance`, which needs the fleet (SetBalance).
AppFeatures ComputeFeatures(const std::array<DailyCurve, kNumDims>& mean,
                            const std::array<DailyCurve, kNumDims>& high);

// Per-dimension median level over `features` (0 for a dimension nobody uses).
std::array<float, kProfileDims> MedianLevels(std::span<const AppFeatures* const> features);
void SetBalance(AppFeatures& features, const std::array<float, kProfileDims>& median_levels);

FeatureVector ToFeatureVector(const AppFeatures& features);

// "CPU-heavy, daytime peak (14h), bursty" from the member-averaged features of a class.
std::string DescribeFeatures(const AppFeatures& features);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_FEATURES_H_
