// `archimedes profile` on the real usage traces, as a user runs it.
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"
#include "support/shared_data.h"

namespace archimedes {
namespace {

std::string ProfileOutput(const std::string& trace) {
  const testing::CommandResult result = testing::RunArchimedes("profile --trace " + trace);
  EXPECT_EQ(result.status, 0) << result.output;
  return result.output;
}

TEST(ProfileCliTest, ProfilesEveryRealTraceWithUsageSeries) {
  ARCHIMEDES_REQUIRE_SHARED("traces/datacenter-aggregates/azure_v2");
  ARCHIMEDES_REQUIRE_SHARED("traces/google-v2019-instance-usage");
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_usage.csv");
  std::string aggregates = ProfileOutput(testing::SharedPath("traces/datacenter-aggregates"));
  EXPECT_NE(aggregates.find("profiled 3 applications"), std::string::npos) << aggregates;
  for (const char* app : {"alibaba2018", "google2019", "azure2019"}) {
    EXPECT_NE(aggregates.find(app), std::string::npos) << app;
  }
  std::string google =
      ProfileOutput("google2019:" + testing::SharedPath("traces/google-v2019-instance-usage"));
  EXPECT_NE(google.find("profiled 2 applications"), std::string::npos) << google;
  std::string alibaba =
      ProfileOutput(testing::SharedPath("traces/alibaba-v2018/machine_usage.csv"));
  EXPECT_NE(alibaba.find("profiled 16 applications"), std::string::npos) << alibaba;
}

// Machines at 85-98 % memory: p99 × 1.2 would be more than the machine; the advice stops at the
// machine and says so. Google's memory advice stops at the trace's own memory_limit.
TEST(ProfileCliTest, AdviceNeverExceedsTheMachineOrTheLimit) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_usage.csv");
  ARCHIMEDES_REQUIRE_SHARED("traces/google-v2019-instance-usage");
  std::string alibaba =
      ProfileOutput(testing::SharedPath("traces/alibaba-v2018/machine_usage.csv") + " --top 16");
  EXPECT_NE(alibaba.find("memory 1 [more than the largest node: needs 1."), std::string::npos)
      << alibaba;
  std::string google = ProfileOutput(
      "google2019:" + testing::SharedPath("traces/google-v2019-instance-usage") + " --top 2");
  EXPECT_NE(google.find("[limit too low: needs"), std::string::npos) << google;
}

}  // namespace
}  // namespace archimedes
