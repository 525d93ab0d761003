#include "model/quantile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/random.h"

namespace archimedes {
namespace {

TEST(QuantileTest, RankIsTheCeilingOfQTimesN) {
  EXPECT_EQ(NearestRankIndex(288, 0.99), 285u);  // two of 288 bins lie above a day's p99
  EXPECT_EQ(NearestRankIndex(100, 0.99), 98u);
  EXPECT_EQ(NearestRankIndex(4, 0.5), 1u);
  EXPECT_EQ(NearestRankIndex(5, 0.5), 2u);
  EXPECT_EQ(NearestRankIndex(1, 0.99), 0u);
}

TEST(QuantileTest, RankIsClampedToTheValues) {
  EXPECT_EQ(NearestRankIndex(10, 0.0), 0u);
  EXPECT_EQ(NearestRankIndex(10, -1.0), 0u);
  EXPECT_EQ(NearestRankIndex(10, 1.0), 9u);
  EXPECT_EQ(NearestRankIndex(10, 2.0), 9u);
}

TEST(QuantileTest, QuantileIsTheValueAtTheRankInSortedOrder) {
  Random random(7);
  for (int n : {1, 2, 3, 10, 288, 1001}) {
    std::vector<double> values(n);
    for (double& v : values) v = random.Uniform(-5, 5);
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 1.0}) {
      EXPECT_EQ(Quantile(values, q), sorted[NearestRankIndex(n, q)]) << n << " values, q " << q;
      std::vector<float> floats(values.begin(), values.end());
      EXPECT_EQ(Quantile(floats, q), static_cast<float>(sorted[NearestRankIndex(n, q)]));
    }
  }
}

TEST(QuantileTest, NoValuesGiveZero) {
  EXPECT_EQ(Quantile(std::vector<double>{}, 0.5), 0.0);
  EXPECT_EQ(Quantile(std::vector<float>{}, 0.5), 0.0f);
  EXPECT_EQ(WeightedQuantile({}, 0.5), 0.0);
}

TEST(QuantileTest, UnitWeightsGiveTheUnweightedQuantile) {
  Random random(11);
  std::vector<double> values(97);
  for (double& v : values) v = std::round(random.Uniform(0, 20));  // with ties
  std::vector<std::pair<double, double>> samples;
  samples.reserve(values.size());
  for (double v : values) samples.push_back({v, 1.0});
  for (double q : {0.0, 0.1, 0.5, 0.73, 0.99, 1.0}) {
    EXPECT_EQ(WeightedQuantile(samples, q), Quantile(values, q)) << q;
  }
}

TEST(QuantileTest, WeightsCountAsRepeatedValues) {
  const std::vector<std::pair<double, double>> samples = {{2.0, 3.0}, {1.0, 1.0}};
  EXPECT_EQ(WeightedQuantile(samples, 0.25), 1.0);  // the 1st of 1, 2, 2, 2
  EXPECT_EQ(WeightedQuantile(samples, 0.26), 2.0);
  EXPECT_EQ(WeightedQuantile(samples, 1.0), 2.0);
  EXPECT_EQ(WeightedQuantile({{5.0, 0.0}, {1.0, 2.0}}, 1.0), 1.0);  // weightless reaches nothing
}

TEST(QuantileTest, MedianIsTheMiddleOrTheUpperOfTwoMiddles) {
  std::vector<float> odd = {5, 1, 4, 2, 3};
  EXPECT_EQ(Median(odd), 3.0f);
  std::vector<float> even = {4, 1, 3, 2};
  EXPECT_EQ(Median(even), 3.0f);
  EXPECT_EQ(Quantile(std::vector<float>{4, 1, 3, 2}, 0.5), 2.0f) << "the lower middle";
  EXPECT_EQ(even[2], 3.0f) << "reordered in place around the median";
  std::vector<float> none;
  EXPECT_EQ(Median(none), 0.0f);
}

}  // namespace
}  // namespace archimedes
