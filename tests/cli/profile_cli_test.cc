// `archimedes profile` on the real usage traces, as a user runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

// Learning on the first part of a history and scoring on the rest, as a user runs it: four
// replicas with a daily cycle, one leaking from day 2 towards its 5 GB limit (the request stands
// in for it), which it reaches on day 7; and the real traces, where no container reaches its
// limit and nothing is warned.
TEST(ProfileCliTest, BacktestScoresWarningsOnTheRest) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "archimedes_profile_backtest";
  std::filesystem::create_directories(dir);
  {
    std::ofstream history(dir / "history.csv");
    history << "time,app,container,cpu,memory,disk,network\n";
    for (int64_t t = 0; t < 8 * 86'400; t += 300) {
      const double cycle = 1.0 + 0.1 * std::sin(2 * 3.14159265 * static_cast<double>(t) / 86'400);
      for (int r = 0; r < 4; ++r) {
        double memory = 1e9 * cycle;
        if (r == 0 && t > 2 * 86'400)
          memory += 0.8e9 * static_cast<double>(t - 2 * 86'400) / 86'400;
        history << t << ",web,web-" << r << "," << 500 * cycle << "," << memory << ",0,0\n";
      }
    }
    std::ofstream requests(dir / "requests.csv");
    requests << "app,cpu,memory,disk,network\nweb,4,5000000000,1Mi,1Mi\n";
  }
  const testing::CommandResult result = testing::RunArchimedes(
      "profile --history " + (dir / "history.csv").string() + " --requests " +
      (dir / "requests.csv").string() + " --backtest 5d12h");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("memory-leak                1          1     100.0%"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("memory 1 (100.0% warned)"), std::string::npos) << result.output;

  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_usage.csv");
  ARCHIMEDES_REQUIRE_SHARED("traces/google-v2019-instance-usage");
  for (const std::string& trace :
       {testing::SharedPath("traces/alibaba-v2018/machine_usage.csv") + " --backtest 4d",
        "google2019:" + testing::SharedPath("traces/google-v2019-instance-usage/113") +
            " --backtest 16d",
        "google2019:" + testing::SharedPath("traces/google-v2019-instance-usage/382") +
            " --backtest 12d"}) {
    std::string output = ProfileOutput(trace);
    EXPECT_NE(output.find("health warnings: 0"), std::string::npos) << output;
    EXPECT_NE(output.find("backtest: learned before"), std::string::npos) << output;
    EXPECT_NE(output.find("mean over"), std::string::npos) << output;  // advice against VPA's
  }
}

}  // namespace
}  // namespace archimedes
