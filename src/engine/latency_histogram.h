// Wall-clock time of the engine's decisions (DESIGN §5 "Scheduling latency": measured, never
// simulated), kept in a log-spaced histogram: O(1) memory for any number of decisions.
#ifndef ARCHIMEDES_ENGINE_LATENCY_HISTOGRAM_H_
#define ARCHIMEDES_ENGINE_LATENCY_HISTOGRAM_H_

#include <array>
#include <cstdint>

namespace archimedes {

class LatencyHistogram {
 public:
  void Add(double microseconds);
  double Percentile(double q) const;
  int64_t count() const { return count_; }

 private:
  // 10^(i/50) ns: covers 1 ns to 100 s (a planner call over an overloaded queue can take seconds)
  static constexpr int kBuckets = 550;
  std::array<int64_t, kBuckets> buckets_{};
  int64_t count_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_LATENCY_HISTOGRAM_H_
