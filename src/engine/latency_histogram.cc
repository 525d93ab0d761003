#include "engine/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace archimedes {

void LatencyHistogram::Add(double microseconds) {
  double ns = std::max(microseconds * 1000.0, 1.0);
  int bucket = static_cast<int>(std::log10(ns) * 50.0);
  buckets_[std::clamp(bucket, 0, kBuckets - 1)]++;
  ++count_;
}

double LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  int64_t target = static_cast<int64_t>(std::ceil(q * static_cast<double>(count_)));
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= target) return std::pow(10.0, (i + 0.5) / 50.0) / 1000.0;  // bucket middle, µs
  }
  return std::pow(10.0, kBuckets / 50.0) / 1000.0;
}

}  // namespace archimedes
