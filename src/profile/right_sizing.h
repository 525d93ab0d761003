// Right-sizing (DESIGN §1.1): a recommended per-replica request from usage history, in the spirit
// of the Kubernetes VPA recommender and Google's Autopilot: a histogram of usage samples whose
// weights decay exponentially with age (half-life one day by default), read at a high percentile,
// plus a safety margin. Memory is never recommended below its observed peak, because running out of
// it kills the container instead of slowing it down.
//
// Buckets grow geometrically (5 % per bucket from 1e-9 up), so the recommendation is resolved to
// 5 % whatever the units (millicores, bytes or normalised shares), and a histogram only stores the
// buckets between its smallest and largest sample.
#ifndef ARCHIMEDES_PROFILE_RIGHT_SIZING_H_
#define ARCHIMEDES_PROFILE_RIGHT_SIZING_H_

#include <cstdint>
#include <vector>

#include "model/resources.h"
#include "profile/profile.h"

namespace archimedes {

struct RightSizingOptions {
  double percentile = 0.99;
  double safety_margin = 0.2;  // recommendation = percentile × (1 + margin)
  int64_t half_life_s = 86'400;
};

class DecayingHistogram {
 public:
  // Adds `value` (≥ 0) observed at `time`; later samples weigh 2^(Δt / half_life) more.
  void Add(double value, int64_t time, int64_t half_life_s);
  // The upper edge of the bucket that holds the p-th share of the weight; 0 when empty.
  double Percentile(double p) const;
  bool empty() const { return total_ == 0.0; }
  // Starts loading the buckets (Profiler::Prefetch).
  void Prefetch() const { __builtin_prefetch(weights_.data(), 1); }

 private:
  int first_bucket_ = 0;
  std::vector<float> weights_;  // weights_[i] belongs to bucket first_bucket_ + i
  double total_ = 0.0;
  int64_t reference_time_ = 0;
};

// The right-sized request for one dimension of one application.
double Recommend(const DecayingHistogram& usage, Dim dim, double observed_peak,
                 const RightSizingOptions& options);

// A recommendation no higher than reality allows: `needed` capped at the container's `limit` and at
// the `largest_node` (0 = unknown), with what cut it (AdviceBound). Advising more than a node
// holds, or more than the limit lets a container take, is advice nobody can follow.
struct BoundedAdvice {
  double recommended = 0.0;
  AdviceBound bound = AdviceBound::kNone;
};
BoundedAdvice BoundAdvice(double needed, double limit, double largest_node);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_RIGHT_SIZING_H_
