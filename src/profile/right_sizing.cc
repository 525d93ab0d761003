#include "profile/right_sizing.h"

#include <algorithm>
#include <cmath>

namespace archimedes {

namespace {

constexpr double kSmallest = 1e-9;
constexpr double kRatio = 1.05;
const double kLogRatio = std::log(kRatio);
// Weights are kept relative to a reference time; past this exponent they are rescaled so that
// floats neither overflow nor lose the old samples entirely.
constexpr double kMaxExponent = 60.0;

int BucketOf(double value) {
  if (value <= kSmallest) return 0;
  return 1 + static_cast<int>(std::log(value / kSmallest) / kLogRatio);
}

double UpperEdge(int bucket) { return kSmallest * std::pow(kRatio, bucket); }

}  // namespace

void DecayingHistogram::Add(double value, int64_t time, int64_t half_life_s) {
  if (weights_.empty()) reference_time_ = time;
  double exponent = static_cast<double>(time - reference_time_) / static_cast<double>(half_life_s);
  if (exponent > kMaxExponent) {
    double shift = std::floor(exponent);
    float scale = static_cast<float>(std::exp2(-shift));
    for (float& w : weights_) w *= scale;
    total_ *= scale;
    reference_time_ += static_cast<int64_t>(shift) * half_life_s;
    exponent -= shift;
  }
  double weight = std::exp2(exponent);
  int bucket = BucketOf(value);
  if (weights_.empty()) {
    first_bucket_ = bucket;
    weights_.assign(1, 0.0f);
  } else if (bucket < first_bucket_) {
    weights_.insert(weights_.begin(), first_bucket_ - bucket, 0.0f);
    first_bucket_ = bucket;
  } else if (bucket >= first_bucket_ + static_cast<int>(weights_.size())) {
    weights_.resize(bucket - first_bucket_ + 1, 0.0f);
  }
  weights_[bucket - first_bucket_] += static_cast<float>(weight);
  total_ += weight;
}

double DecayingHistogram::Percentile(double p) const {
  if (weights_.empty() || total_ <= 0.0) return 0.0;
  double target = std::clamp(p, 0.0, 1.0) * total_;
  double seen = 0.0;
  for (size_t i = 0; i < weights_.size(); ++i) {
    seen += weights_[i];
    if (seen >= target) return UpperEdge(first_bucket_ + static_cast<int>(i));
  }
  return UpperEdge(first_bucket_ + static_cast<int>(weights_.size()) - 1);
}

double Recommend(const DecayingHistogram& usage, Dim dim, double observed_peak,
                 const RightSizingOptions& options) {
  double recommended = usage.Percentile(options.percentile) * (1.0 + options.safety_margin);
  if (dim == Dim::kMemory) recommended = std::max(recommended, observed_peak);
  return recommended;
}

BoundedAdvice BoundAdvice(double needed, double limit, double largest_node) {
  if (largest_node > 0.0 && needed > largest_node && (limit <= 0.0 || largest_node <= limit)) {
    return {largest_node, AdviceBound::kNode};
  }
  if (limit > 0.0 && needed > limit) return {limit, AdviceBound::kLimit};
  return {needed, AdviceBound::kNone};
}

}  // namespace archimedes
