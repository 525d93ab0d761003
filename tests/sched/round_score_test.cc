#include <cmath>
#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "sched/framework.h"

namespace archimedes {
namespace {

TEST(RoundScoreTest, RoundsAsLlroundDoes) {
  for (double x : {0.0,
                   -0.0,
                   0.5,
                   -0.5,
                   1.5,
                   -1.5,
                   2.5,
                   49.5,
                   50.4999999999,
                   99.5,
                   100.0,
                   std::nextafter(0.5, 0.0),
                   std::nextafter(0.5, 1.0),
                   std::nextafter(-0.5, 0.0),
                   std::nextafter(-0.5, -1.0),
                   0x1p52 - 0.5,
                   -0x1p52 + 0.5,
                   0x1p52,
                   0x1p53 + 2,
                   -0x1p60}) {
    EXPECT_EQ(RoundScore(x), std::llround(x)) << x;
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> score(-200.0, 200.0);
  for (int i = 0; i < 100000; ++i) {
    const double x = score(rng);
    ASSERT_EQ(RoundScore(x), std::llround(x)) << x;
    const double half = std::floor(x) + 0.5;  // exactly halfway
    ASSERT_EQ(RoundScore(half), std::llround(half)) << half;
  }
}

}  // namespace
}  // namespace archimedes
