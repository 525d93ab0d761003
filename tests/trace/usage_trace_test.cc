#include "trace/usage_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/shared_data.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

TEST(UsageTraceTest, UnknownSpecsSayWhatIsAccepted) {
  try {
    ReadUsageTrace("nosuch:/nowhere", [](const std::vector<UsageSeries>&) {});
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unknown usage trace; use google2019:DIR"));
  }
}

TEST(UsageTraceTest, AggregatesComeAsOneBatchOfThreeProviders) {
  ARCHIMEDES_REQUIRE_SHARED("traces/datacenter-aggregates");
  std::vector<std::vector<std::string>> batches;
  ReadUsageTrace(testing::SharedPath("traces/datacenter-aggregates"),
                 [&](const std::vector<UsageSeries>& series) {
                   batches.emplace_back();
                   for (const UsageSeries& s : series) batches.back().push_back(s.app);
                 });
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_THAT(batches[0], ::testing::ElementsAre("alibaba2018", "google2019", "azure2019"));
}

TEST(UsageTraceTest, GoogleJobsComeOneBatchPerJobFolder) {
  ARCHIMEDES_REQUIRE_SHARED("traces/google-v2019-instance-usage");
  int batches = 0;
  ReadUsageTrace("google2019:" + testing::SharedPath("traces/google-v2019-instance-usage"),
                 [&](const std::vector<UsageSeries>& series) {
                   ++batches;
                   ASSERT_FALSE(series.empty());
                   for (const UsageSeries& s : series) EXPECT_EQ(s.app, series.front().app);
                 });
  EXPECT_GT(batches, 1);
}

}  // namespace
}  // namespace archimedes
