// `archimedes profile` as a user runs it: on the real usage traces and on small histories.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

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

// The line of `output` that starts with `prefix`, or "".
std::string LineStartingWith(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

// A small history against a scenario that knows the fleet and the limits: `api` may only run on
// the 8 GiB node (its selector) and uses 7.2-7.9 GiB, so the rule's advice (over 9 GiB) is more
// than any node that could host it, though the fleet has a 64 GiB node; `db` needs more than its 2
// GiB memory limit; `web` is advised as the rule says. Every output says so, and the profiles file,
// with or without the bounds, is what `simulate --profiles` reads.
TEST(ProfileCliTest, AdviceStopsAtTheLargestHostingNodeAndTheLimit) {
  const std::string history = testing::TempPath("history.csv"),
                    scenario = testing::TempPath("scenario.json"),
                    profiles = testing::TempPath("profiles.json"),
                    old_profiles = testing::TempPath("old-profiles.json"),
                    json = testing::TempPath("report.json"),
                    html = testing::TempPath("report.html");
  {
    std::ofstream out(history);
    out << "time,app,container,cpu,memory,disk,network\n";
    for (int64_t t = 0; t < int64_t{3} * 86'400; t += 300) {
      const double wave = static_cast<double>((t / 300) % 8) / 7.0;  // 0..1
      const double gib = 1024.0 * 1024 * 1024;
      out << t << ",api,api-0,1000," << (7.2 + 0.7 * wave) * gib << ",0,0\n";
      out << t << ",db,db-0,400," << (1.8 + 0.15 * wave) * gib << ",0,0\n";
      out << t << ",web,web-0,200," << 300.0 * 1024 * 1024 << ",0,0\n";
    }
    std::ofstream(scenario) << R"({"name": "bounded", "duration": "2h",
      "nodes": [
        {"name": "small-1", "capacity": {"cpu": "8", "memory": "8Gi"}, "labels": {"pool": "small"}},
        {"name": "big-1", "capacity": {"cpu": "32", "memory": "64Gi"}}],
      "services": [
        {"name": "api", "requests": {"cpu": "2", "memory": "4Gi"}, "node_selector": {"pool": "small"}},
        {"name": "db", "requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
        {"name": "web", "requests": {"cpu": "1", "memory": "1Gi"}}]})";
  }
  const testing::CommandResult result =
      testing::RunArchimedes("profile --quiet --history " + history + " --scenario " + scenario +
                             " --out " + profiles + " --json " + json + " --report " + html);
  ASSERT_EQ(result.status, 0) << result.output;
  // Nothing freed in a dimension prints as zero, not "-0.0" (a rounding of a tiny negative).
  EXPECT_THAT(result.output, ::testing::Not(::testing::HasSubstr("-0.0"))) << result.output;
  EXPECT_THAT(LineStartingWith(result.output, "  api "),
              ::testing::HasSubstr("memory 8.0Gi (request 4.0Gi) [more than the largest node: "
                                   "needs 9."))
      << result.output;
  EXPECT_THAT(LineStartingWith(result.output, "  db "),
              ::testing::HasSubstr("memory 2.0Gi (request 1.0Gi) [limit too low: needs 2."))
      << result.output;
  const std::string web = LineStartingWith(result.output, "  web ");
  EXPECT_THAT(web, ::testing::HasSubstr("Mi (request 1.0Gi)"));  // p99 + 20 %: about 360Mi
  EXPECT_EQ(web.find('['), std::string::npos) << web;

  std::ifstream json_in(json), profiles_in(profiles), html_in(html);
  const nlohmann::json report = nlohmann::json::parse(json_in);
  nlohmann::json file = nlohmann::json::parse(profiles_in);
  const std::string page((std::istreambuf_iterator<char>(html_in)), {});
  const double gib = 1024.0 * 1024 * 1024;
  for (const nlohmann::json* doc : std::initializer_list<const nlohmann::json*>{&report, &file}) {
    std::map<std::string, nlohmann::json> apps;
    for (const nlohmann::json& app : (*doc)["applications"]) apps[app["app"]] = app;
    ASSERT_EQ(apps.size(), 3u) << *doc;
    EXPECT_EQ(apps["api"]["bounded"]["memory"]["by"], "node");
    EXPECT_GT(apps["api"]["bounded"]["memory"]["needed"].get<double>(), 9 * gib);
    EXPECT_DOUBLE_EQ(apps["api"]["recommended"]["memory"].get<double>(), 8 * gib);
    EXPECT_FALSE(apps["api"]["bounded"].contains("cpu"));
    EXPECT_EQ(apps["db"]["bounded"]["memory"]["by"], "limit");
    EXPECT_DOUBLE_EQ(apps["db"]["recommended"]["memory"].get<double>(), 2 * gib);
    EXPECT_FALSE(apps["web"].contains("bounded"));
  }
  EXPECT_THAT(page, ::testing::HasSubstr("8.0Gi (more than the largest node: needs 9."));
  EXPECT_THAT(page, ::testing::HasSubstr("2.0Gi (limit too low: needs 2."));

  // A file written before the bounds existed has no "bounded": it still loads.
  for (nlohmann::json& app : file["applications"]) app.erase("bounded");
  std::ofstream(old_profiles) << file.dump();
  for (const std::string& path : {profiles, old_profiles}) {
    const testing::CommandResult simulated =
        testing::RunArchimedes("simulate --quiet --scenario " + scenario + " --profiles " + path +
                               " --policy archimedes --warmup 0");
    EXPECT_EQ(simulated.status, 0) << path << ": " << simulated.output;
  }
  for (const std::string& path : {history, scenario, profiles, old_profiles, json, html}) {
    std::filesystem::remove(path);
  }
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
  EXPECT_NE(result.output.find("curves on the held-back part"), std::string::npos) << result.output;

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

// Alibaba 2018 machine usage, learnt on days 0-4 and scored on day 5 (docs/profiles.md): the
// calibrated high curve covers its nominal 95 % within 2 points where the normal approximation
// does not, memory errs on the safe side, and the network's daily rise is followed.
TEST(ProfileCliTest, CalibratedCurvesHoldOnAlibaba2018sLastDay) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_usage.csv");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "archimedes_profile_curves";
  std::filesystem::create_directories(dir);
  std::map<std::string, nlohmann::json> curves;
  for (const char* mode : {"calibrated", "normal"}) {
    const std::string json = (dir / (std::string(mode) + ".json")).string();
    const testing::CommandResult result = testing::RunArchimedes(
        "profile --trace " + testing::SharedPath("traces/alibaba-v2018/machine_usage.csv") +
        " --backtest 5d --curves " + mode + " --json " + json);
    ASSERT_EQ(result.status, 0) << result.output;
    std::ifstream in(json);
    curves[mode] = nlohmann::json::parse(in)["backtest"]["curves"];
  }
  std::filesystem::remove_all(dir);
  for (const char* dim : {"cpu", "disk", "network"}) {
    EXPECT_NEAR(curves["calibrated"][dim]["coverage"].get<double>(), 0.95, 0.02) << dim;
    EXPECT_LT(curves["normal"][dim]["coverage"].get<double>(), 0.93) << dim;
  }
  EXPECT_GE(curves["calibrated"]["memory"]["coverage"].get<double>(), 0.95);
  EXPECT_LT(curves["calibrated"]["network"]["mean_error"].get<double>(), 0.02);
  EXPECT_GT(curves["normal"]["network"]["mean_error"].get<double>(), 0.05);

  const testing::CommandResult bad =
      testing::RunArchimedes("profile --history x.csv --curves flat");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--curves"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace archimedes
