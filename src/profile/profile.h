// What profiling learns about a fleet (DESIGN §1.1, §2 "Profile"): per application and dimension a
// daily curve of mean and high-quantile usage, the features and class derived from it, a
// right-sized request, and for the fleet the classes, their pairwise complementarity, the
// placement hints that follow from it, and early health warnings about containers.
//
// Units are those of the input: canonical units (cpu millicores, memory bytes, disk and network
// bytes/s) for the native history, or shares when `normalized` is set (real traces that only
// publish normalised usage are profiled in their own units). GPU is not profiled; its curves are 0.
//
// trace/profile_file.h reads and writes a ProfileSet as the JSON file of docs/profiles.md.
#ifndef ARCHIMEDES_PROFILE_PROFILE_H_
#define ARCHIMEDES_PROFILE_PROFILE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/curve.h"
#include "model/resources.h"

namespace archimedes {

// cpu, memory, disk, network: the dimensions a usage history carries.
inline constexpr int kProfileDims = 4;

// Per-application numbers that describe the shape of its usage, derived from its curves.
struct AppFeatures {
  std::array<float, kProfileDims> level{};         // day mean of the mean curve
  std::array<float, kProfileDims> peak_to_mean{};  // peak of the mean curve ÷ level
  std::array<float, kProfileDims> burstiness{};    // day mean of the high curve ÷ level
  // First daily harmonic of the mean curve relative to level: its amplitude and the hour of day
  // (0–24, trace time modulo one day) at which it peaks.
  std::array<float, kProfileDims> amplitude{};
  std::array<float, kProfileDims> peak_hour{};
  // Second daily harmonic (two peaks a day): amplitude relative to level, and the hour (0–12) of
  // its first peak.
  std::array<float, kProfileDims> amplitude2{};
  std::array<float, kProfileDims> peak_hour2{};
  // Share of the day the mean curve spends above halfway between its trough and its peak: small
  // for short spikes, about half for a smooth cycle.
  std::array<float, kProfileDims> duty{};
  // log(level_d ÷ fleet median level_d), centred over the dimensions: >0 means the application
  // uses relatively more of d than the fleet's typical application does.
  std::array<float, kProfileDims> balance{};
};

// What cut a recommendation short: nothing, the container's limit (the advice is then "limit too
// low": the application needs more than it may take) or the largest node that could host it.
// When the limit equals the largest node, the node is named: raising the limit would not help.
enum class AdviceBound : uint8_t { kNone, kLimit, kNode };
std::string_view AdviceBoundName(AdviceBound bound);  // "none", "limit", "node"

struct AppProfile {
  std::string app;
  int class_id = 0;
  int containers = 0;  // distinct containers seen
  int64_t samples = 0;
  int days = 0;  // days that contributed to the curves (at most ProfileOptions::max_days)
  std::array<DailyCurve, kNumDims> mean;
  std::array<DailyCurve, kNumDims> high;
  AppFeatures features;
  std::array<float, kNumDims> peak{};  // highest sample seen
  // Day-over-day growth the curves follow, relative to the mean level (0 = no trend found).
  std::array<float, kNumDims> growth{};
  // Right-sized request per replica, never above the limit or the largest node; `needed` is what
  // the right-sizing rule asked for, and `bound` says what cut it where that was more.
  std::array<double, kNumDims> recommended{};
  std::array<AdviceBound, kNumDims> bound{};
  std::array<double, kNumDims> needed{};
  bool has_request = false;
  std::array<double, kNumDims> request{};  // current request per replica (when known)
  int replicas = 0;                        // replicas the savings are counted for
};

struct ProfileClass {
  int id = 0;
  std::string description;  // "CPU-heavy, daytime peak (14h)"
  int members = 0;
  // Member-averaged curves, each member's curve divided by its level (so the shape has mean 1),
  // and the median member level that scales them back to usage.
  std::array<DailyCurve, kNumDims> mean_shape;
  std::array<DailyCurve, kNumDims> high_shape;
  std::array<float, kNumDims> level{};
  std::vector<float> centroid;  // in the clustering feature space (docs/profiles.md)
};

// How much co-locating a typical member of class `a` with one of class `b` lowers the peak:
// 1 − peak(a + b) ÷ (peak(a) + peak(b)) per dimension, on the high curves scaled by each class's
// level. 0 = the peaks coincide, 0.5 = perfect complement of equal sizes.
struct ClassPair {
  int a = 0;
  int b = 0;
  std::array<float, kProfileDims> peak_reduction{};
  float score = 0.0f;  // level-weighted mean of peak_reduction over the dimensions
};

enum class HintKind : uint8_t { kAffinity, kAntiAffinity };
std::string_view HintKindName(HintKind kind);

struct PlacementHint {
  int a = 0;
  int b = 0;
  HintKind kind = HintKind::kAffinity;
  float score = 0.0f;
  std::string reason;
};

enum class WarningKind : uint8_t { kMemoryLeak, kCpuStuckHigh, kDivergentReplica };
std::string_view WarningKindName(WarningKind kind);

struct HealthWarning {
  std::string app;
  std::string container;
  WarningKind kind = WarningKind::kDivergentReplica;
  Dim dim = Dim::kCpu;
  int64_t time = 0;          // when the warning was raised (end of the evidence window)
  int64_t lead_time_s = -1;  // estimated time until the limit is reached; -1 = unknown
  float value = 0.0f;        // the container's usage that raised it
  float expected = 0.0f;     // what the profile or the siblings led to expect
  std::string detail;
};

struct ProfileSet {
  int bins = DailyCurve::kDefaultBins;
  double high_quantile = 0.95;
  bool normalized = false;
  std::string class_criterion;   // how the number of classes was chosen, with its score
  std::vector<AppProfile> apps;  // sorted by app name
  std::vector<ProfileClass> classes;
  std::vector<ClassPair> complementarity;  // every pair a ≤ b
  std::vector<PlacementHint> hints;
  std::vector<HealthWarning> warnings;  // in the order they were raised
  std::array<double, kNumDims> freed{};  // Σ (request − recommended) × replicas, apps with requests

  // The profile of `app`, or nullptr. O(log apps).
  const AppProfile* Find(std::string_view app) const;
  const ProfileClass* FindClass(int id) const;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_PROFILE_H_
