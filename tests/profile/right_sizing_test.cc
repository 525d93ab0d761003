#include "profile/right_sizing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "profile/profiler.h"
#include "profile/synthetic_history.h"

namespace archimedes {
namespace {

using testing::GenerateSyntheticHistory;
using testing::SyntheticParams;

TEST(RightSizingTest, PercentileOfADecayingHistogram) {
  DecayingHistogram h;
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.Percentile(0.9), 0.0);
  for (int i = 1; i <= 100; ++i) h.Add(i, 0, 86'400);
  EXPECT_NEAR(h.Percentile(0.5), 50.0, 50.0 * 0.06);
  EXPECT_NEAR(h.Percentile(0.99), 99.0, 99.0 * 0.06);
  // A day later, samples of 1000 weigh twice as much as the old ones.
  for (int i = 0; i < 100; ++i) h.Add(1000, 86'400, 86'400);
  EXPECT_NEAR(h.Percentile(0.5), 1000.0, 1000.0 * 0.06);
  EXPECT_GT(h.Percentile(0.3), 50.0);
}

TEST(RightSizingTest, OldSamplesKeepWorkingAfterRescaling) {
  DecayingHistogram h;
  for (int64_t day = 0; day < 200; ++day) h.Add(10.0, day * 86'400, 86'400);
  EXPECT_NEAR(h.Percentile(0.5), 10.0, 0.6);
}

TEST(RightSizingTest, MemoryIsNeverBelowThePeak) {
  DecayingHistogram h;
  for (int i = 0; i < 1000; ++i) h.Add(100.0, i, 86'400);
  RightSizingOptions options;
  EXPECT_GE(Recommend(h, Dim::kMemory, 500.0, options), 500.0);
  EXPECT_LT(Recommend(h, Dim::kCpu, 500.0, options), 500.0);
}

// Train on days 1–5, test on days 6–7: the recommendation covers the per-bin p99 of the replicas'
// usage in at least 99 % of the held-back bins.
TEST(RightSizingTest, RecommendationsCoverHeldBackDays) {
  SyntheticParams params;
  params.apps = 60;
  params.outlier_day_share = 0.0;  // an incident on a test day is not what sizing is judged on
  Profiler profiler;
  // [app][dim][bin of the test days] → the replicas' samples.
  std::map<std::string, std::array<std::map<int64_t, std::vector<float>>, kProfileDims>> test;
  std::map<std::string, int64_t> requests_ignored;
  GenerateSyntheticHistory(params,
                           [&](int64_t t, const std::string& app, const std::string& container,
                               const std::array<float, kNumDims>& usage) {
                             if (t < 5 * kSecondsPerDay) {
                               profiler.Add(t, app, container, usage);
                             } else {
                               for (int d = 0; d < kProfileDims; ++d)
                                 test[app][d][t / 300].push_back(usage[d]);
                             }
                           });
  ProfileSet set = profiler.Finish();
  std::array<int64_t, kProfileDims> covered{}, bins{};
  for (const auto& [app, dims] : test) {
    const AppProfile* p = set.Find(app);
    ASSERT_NE(p, nullptr);
    for (int d = 0; d < kProfileDims; ++d) {
      for (const auto& [bin, samples] : dims[d]) {
        std::vector<float> v = samples;
        size_t rank = static_cast<size_t>(std::ceil(0.99 * v.size()));
        std::nth_element(v.begin(), v.begin() + (rank - 1), v.end());
        ++bins[d];
        covered[d] += v[rank - 1] <= p->recommended[d];
      }
    }
  }
  for (int d = 0; d < kProfileDims; ++d) {
    double coverage = static_cast<double>(covered[d]) / bins[d];
    std::printf("right-sizing coverage of held-back p99, %s: %.4f of %lld bins\n",
                std::string(DimName(static_cast<Dim>(d))).c_str(), coverage,
                static_cast<long long>(bins[d]));
    EXPECT_GE(coverage, 0.99) << DimName(static_cast<Dim>(d));
  }
}

TEST(RightSizingTest, AdviceStopsAtTheLimitAndTheLargestNode) {
  EXPECT_EQ(BoundAdvice(5, 10, 20).bound, AdviceBound::kNone);
  EXPECT_EQ(BoundAdvice(5, 10, 20).recommended, 5);
  EXPECT_EQ(BoundAdvice(5, 0, 0).recommended, 5);  // nothing known, nothing cut
  BoundedAdvice limited = BoundAdvice(12, 10, 20);
  EXPECT_EQ(limited.bound, AdviceBound::kLimit);
  EXPECT_EQ(limited.recommended, 10);
  BoundedAdvice too_big = BoundAdvice(25, 0, 20);
  EXPECT_EQ(too_big.bound, AdviceBound::kNode);
  EXPECT_EQ(too_big.recommended, 20);
  // A limit as large as the node: raising it would not help, so the node is named.
  EXPECT_EQ(BoundAdvice(25, 20, 20).bound, AdviceBound::kNode);
  EXPECT_EQ(BoundAdvice(25, 30, 20).bound, AdviceBound::kNode);
  EXPECT_EQ(BoundAdvice(25, 10, 20).bound, AdviceBound::kLimit);
}

// A machine whose memory sits at 85-98 % of its capacity: p99 × 1.2 would ask for more than the
// machine (Alibaba 2018); the advice stops at the machine and says what it needed.
TEST(RightSizingTest, ProfilerNeverAdvisesMoreThanTheMachine) {
  Profiler profiler;
  profiler.SetLimit("m", {1, 1, 1, 1, 0});
  profiler.SetLargestNode({1, 1, 1, 1, 0});
  for (int64_t t = 0; t < 3 * kSecondsPerDay; t += 300) {
    float memory = 0.85f + 0.13f * static_cast<float>((t / 300) % 10) / 9.0f;
    profiler.Add(t, "m", "m", {0.3f, memory, 0.01f, 0.2f, 0});
  }
  ProfileSet set = profiler.Finish();
  const AppProfile* m = set.Find("m");
  ASSERT_NE(m, nullptr);
  const int memory = static_cast<int>(Dim::kMemory), cpu = static_cast<int>(Dim::kCpu);
  EXPECT_EQ(m->recommended[memory], 1.0);
  EXPECT_EQ(m->bound[memory], AdviceBound::kNode);
  EXPECT_GT(m->needed[memory], 1.1);
  EXPECT_EQ(m->bound[cpu], AdviceBound::kNone);
  EXPECT_EQ(m->needed[cpu], m->recommended[cpu]);
  for (int d = 0; d < kProfileDims; ++d) EXPECT_LE(m->recommended[d], 1.0);
}

// Where an application's own largest node is known (its machine, the nodes its selector admits),
// it bounds the advice instead of the fleet's; the others keep the fleet's.
TEST(RightSizingTest, AnAppsOwnLargestNodeReplacesTheFleets) {
  Profiler profiler;
  profiler.SetLargestNode({64'000, 64e9, 0, 0, 0});
  profiler.SetLargestNode("pinned", {8'000, 8e9, 0, 0, 0});
  for (int64_t t = 0; t < 2 * kSecondsPerDay; t += 300) {
    for (const char* app : {"pinned", "free"}) profiler.Add(t, app, app, {1000, 7.9e9, 0, 0, 0});
  }
  ProfileSet set = profiler.Finish();
  const int memory = static_cast<int>(Dim::kMemory), cpu = static_cast<int>(Dim::kCpu);
  const AppProfile* pinned = set.Find("pinned");
  const AppProfile* free = set.Find("free");
  ASSERT_NE(pinned, nullptr);
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(pinned->bound[memory], AdviceBound::kNode);
  EXPECT_EQ(pinned->recommended[memory], 8e9);
  EXPECT_GT(pinned->needed[memory], 9e9);
  EXPECT_EQ(pinned->bound[cpu], AdviceBound::kNone);
  EXPECT_EQ(free->bound[memory], AdviceBound::kNone);
  EXPECT_EQ(free->recommended[memory], pinned->needed[memory]);
}

TEST(RightSizingTest, SavingsCountReplicasAndRequests) {
  Profiler profiler;
  profiler.SetRequest("web", {4000, 8e9, 0, 0, 0}, 10);
  for (int64_t t = 0; t < kSecondsPerDay; t += 300) {
    profiler.Add(t, "web", "web-0", {1000, 2e9f, 0, 0, 0});
  }
  ProfileSet set = profiler.Finish();
  const AppProfile* web = set.Find("web");
  ASSERT_NE(web, nullptr);
  EXPECT_NEAR(web->recommended[0], 1200.0, 1200.0 * 0.06);
  EXPECT_EQ(web->replicas, 10);
  EXPECT_NEAR(set.freed[0], (4000.0 - web->recommended[0]) * 10, 1.0);
  EXPECT_GE(web->recommended[1], 2e9);
}

}  // namespace
}  // namespace archimedes
