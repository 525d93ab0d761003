#include "profile/clustering.h"

#include <gtest/gtest.h>

#include <random>

namespace archimedes {
namespace {

std::vector<float> Blobs(int per_blob, int blobs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.1f);
  std::vector<float> points;
  for (int i = 0; i < per_blob * blobs; ++i) {
    int b = i % blobs;
    points.push_back(static_cast<float>(b * 3) + noise(rng));
    points.push_back(static_cast<float>((b % 2) * 2) + noise(rng));
  }
  return points;
}

TEST(ClusteringTest, AdjustedRandIndex) {
  std::vector<int> a = {0, 0, 1, 1, 2, 2};
  std::vector<int> relabelled = {5, 5, 3, 3, 9, 9};
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(a, relabelled), 1.0);
  std::vector<int> b = {0, 0, 0, 1, 1, 1};
  EXPECT_LT(AdjustedRandIndex(a, b), 0.5);
  // Known value: sklearn's adjusted_rand_score([0,0,1,1],[0,0,1,2]) == 0.5714285714.
  std::vector<int> c = {0, 0, 1, 1}, d = {0, 0, 1, 2};
  EXPECT_NEAR(AdjustedRandIndex(c, d), 0.5714285714, 1e-9);
}

TEST(ClusteringTest, ChoosesTheNumberOfBlobsDeterministically) {
  std::vector<float> points = Blobs(40, 4, 1);
  Clustering first = ChooseClusters(points, 2, 8, 42);
  Clustering second = ChooseClusters(points, 2, 8, 42);
  EXPECT_EQ(first.k, 4);
  EXPECT_EQ(first.labels, second.labels);
  std::vector<int> truth;
  truth.reserve(160);
  for (int i = 0; i < 160; ++i) truth.push_back(i % 4);
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(truth, first.labels), 1.0);
  EXPECT_GT(first.silhouette, 0.8);
}

TEST(ClusteringTest, DataWithoutStructureIsOneClass) {
  std::vector<float> same(40, 1.0f);
  Clustering c = ChooseClusters(same, 1, 6, 1);
  EXPECT_EQ(c.k, 1);
  EXPECT_NE(c.criterion.find("one class"), std::string::npos);
}

TEST(ClusteringTest, FewPointsAreTheirOwnClasses) {
  std::vector<float> points = {0, 0, 5, 5, 0, 0};
  Clustering c = ChooseClusters(points, 2, 6, 1);
  EXPECT_EQ(c.k, 2);
  EXPECT_EQ(c.labels, (std::vector<int>{0, 1, 0}));
}

TEST(ClusteringTest, KMeansRejectsBadK) {
  std::vector<float> points = {0, 1};
  EXPECT_THROW(KMeans(points, 1, 3, 1), std::invalid_argument);
}

}  // namespace
}  // namespace archimedes
