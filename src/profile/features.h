// Features of an application's daily curves (DESIGN §1.1): level, peakiness, the hour and strength
// of its daily cycle and its balance across dimensions, and the fixed-weight vector that
// classification clusters. Every feature is scale-free except `level`, so applications of very
// different sizes but the same shape land in the same class.
//
// Clustering vector (kFeatureVectorSize entries, docs/profiles.md); all shape, no size:
//   0,1  cpu daily cycle: amplitude × (cos, sin) of its peak hour on the 24 h circle
//   2,3  cpu second harmonic: amplitude × (cos, sin) of its peak on the 12 h circle
//   4    log(cpu peak ÷ mean) of the mean curve
//   5    cpu duty: share of the day above halfway between trough and peak
//   6    log(cpu high ÷ mean): burstiness of single samples
//   7    memory daily-cycle amplitude (capped at 1)
//   8    0.5 × (memory balance − cpu balance): memory per core relative to the fleet's
// Disk and network levels are features (balance) but not clustered: they vary independently of
// the shape in every fleet we have seen, and would only add noise to the classes.
#ifndef ARCHIMEDES_PROFILE_FEATURES_H_
#define ARCHIMEDES_PROFILE_FEATURES_H_

#include <array>
#include <span>
#include <string>

#include "model/curve.h"
#include "profile/profile.h"

namespace archimedes {

inline constexpr int kFeatureVectorSize = 9;
using FeatureVector = std::array<float, kFeatureVectorSize>;

// Every feature except `balance`, which needs the fleet (SetBalance).
AppFeatures ComputeFeatures(const std::array<DailyCurve, kNumDims>& mean,
                            const std::array<DailyCurve, kNumDims>& high);

// Per-dimension median level over `features` (0 for a dimension nobody uses).
std::array<float, kProfileDims> MedianLevels(std::span<const AppFeatures* const> features);
void SetBalance(AppFeatures& features, const std::array<float, kProfileDims>& median_levels);

FeatureVector ToFeatureVector(const AppFeatures& features);

// "CPU-heavy, daytime peak (14h), bursty" from features: a dimension is heavy when its balance is
// at least 0.4; the daily cycle is named when its amplitude is at least 0.15 (daytime when it
// peaks between 7h and 19h); "bursty" when high ÷ mean ≥ 1.5; "spiky" when the curve spends at
// most 12 % of the day above half its range with a peak ≥ 1.5 × mean.
std::string DescribeFeatures(const AppFeatures& features);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_FEATURES_H_
