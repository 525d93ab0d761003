// LatencyHistogram (engine/latency_histogram.h): percentiles within a bucket's width (±2.3 %) from
// a microsecond to the seconds a planner call over an overloaded queue can take.
#include <gtest/gtest.h>

#include "engine/latency_histogram.h"

namespace archimedes {
namespace {

TEST(LatencyHistogramTest, PercentilesFromMicrosecondsToSeconds) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(0.5), 0.0);
  for (int i = 0; i < 98; ++i) h.Add(1.0);
  h.Add(150'000.0);    // 150 ms
  h.Add(4'000'000.0);  // 4 s
  EXPECT_EQ(h.count(), 100);
  EXPECT_NEAR(h.Percentile(0.5), 1.0, 0.03);
  EXPECT_NEAR(h.Percentile(0.99), 150'000.0, 150'000.0 * 0.03);
  EXPECT_NEAR(h.Percentile(1.0), 4'000'000.0, 4'000'000.0 * 0.03);
}

}  // namespace
}  // namespace archimedes
