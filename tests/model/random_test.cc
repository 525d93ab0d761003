#include "model/random.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace archimedes {
namespace {

TEST(RandomTest, IsMersenneTwisterSeededWithTheSeedAsGiven) {
  // The sequences of every generated scenario and k-means seeding rest on this engine.
  std::mt19937_64 engine(42);
  Random random(42);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(random.Next(), engine());
  EXPECT_EQ(Random(5).Uniform(), UnitInterval(std::mt19937_64(5)()));
}

TEST(RandomTest, SplitMix64IsTheReferenceFinaliser) {
  // The first outputs of Vigna's splitmix64 from state 0 (the finaliser of 0, then of the golden
  // gamma).
  EXPECT_EQ(SplitMix64(0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(SplitMix64(0x9e3779b97f4a7c15ULL), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(HashUniform(0), UnitInterval(0xe220a8397b1dcdafULL));
  EXPECT_EQ(UnitInterval(~uint64_t{0}), 1.0 - 0x1.0p-53);
  EXPECT_EQ(UnitInterval(0), 0.0);
}

TEST(RandomTest, DrawsStayInTheirRanges) {
  Random random(3);
  bool low = false, high = false;
  for (int i = 0; i < 10'000; ++i) {
    const double u = random.Uniform(2.0, 3.0);
    ASSERT_GE(u, 2.0);
    ASSERT_LT(u, 3.0);
    const int64_t k = random.UniformInt(-2, 2);
    ASSERT_GE(k, -2);
    ASSERT_LE(k, 2);
    low |= k == -2;
    high |= k == 2;
    const double l = random.LogUniform(1.0, 100.0);
    ASSERT_GE(l, 1.0);
    ASSERT_LT(l, 100.0 * (1 + 1e-12));
    ASSERT_GE(random.Pareto(5.0, 1.5), 5.0);
    ASSERT_GE(random.Poisson(3.0), 0);
  }
  EXPECT_TRUE(low && high) << "both ends of UniformInt are reachable";
}

TEST(RandomTest, DistributionsHaveTheirMeans) {
  Random random(9);
  const int n = 100'000;
  double normal = 0, normal_sq = 0, poisson = 0, big_poisson = 0, log_normal_below = 0;
  for (int i = 0; i < n; ++i) {
    const double z = random.Normal();
    normal += z;
    normal_sq += z * z;
    poisson += static_cast<double>(random.Poisson(2.5));
    big_poisson += static_cast<double>(random.Poisson(80.0));
    log_normal_below += random.LogNormal(10.0, 0.7) < 10.0;
  }
  EXPECT_NEAR(normal / n, 0.0, 0.02);
  EXPECT_NEAR(normal_sq / n, 1.0, 0.02);
  EXPECT_NEAR(poisson / n, 2.5, 0.03);
  EXPECT_NEAR(big_poisson / n, 80.0, 0.2);
  EXPECT_NEAR(log_normal_below / n, 0.5, 0.01) << "the median is the median";
}

TEST(RandomTest, PickFollowsTheIncrements) {
  Random random(1);
  const std::vector<double> cumulative = {1.0, 1.0, 4.0};  // weights 1, 0, 3
  std::vector<int> counts(3);
  for (int i = 0; i < 40'000; ++i) ++counts[random.Pick(cumulative)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0] / 40'000.0, 0.25, 0.01);
}

TEST(RandomTest, TheSameSeedGivesTheSameDraws) {
  Random a(123), b(123), c(124);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const double x = a.Normal();
    ASSERT_EQ(x, b.Normal());
    differs |= x != c.Normal();
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace archimedes
