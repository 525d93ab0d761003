// `archimedes replay` against a real `archimedes serve` on loopback (virtual clock): the report
// equals `simulate`'s for the same scenario, seed and policy, wall time and latency aside.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/command.h"
#include "support/serve_process.h"

namespace archimedes {
namespace {

using testing::RunArchimedes;
using testing::ServeProcess;
using testing::TempPath;

// The smallest a generated scenario is (a day); a light batch load keeps the requests few.
constexpr char kScenario[] = "--nodes 3 --days 1 --warmup 21600 --seed 1 --set batch_load=0.2";

// The figures, without what is measured rather than simulated (as scripts/golden.sh strips them).
nlohmann::json Figures(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("report");
  for (auto& [policy, metrics] : doc.at("policies").items()) {
    metrics.erase("wall_seconds");
    for (const char* latency : {"latency_us", "planner_latency_us", "replan_latency_us"}) {
      metrics.at(latency).erase("p50");
      metrics.at(latency).erase("p99");
    }
  }
  return doc;
}

// `flags` go to all three: the server, simulate and the replay; `replay_flags` to the replay
// only; `scenario` to simulate and the replay. Returns the replay's wall time.
double ExpectReplayEqualsSimulate(const std::string& policy, const std::string& flags = "",
                                  const std::string& replay_flags = "",
                                  const std::string& scenario = kScenario) {
  const std::string data = TempPath("data");
  std::filesystem::remove_all(data);
  std::vector<std::string> server_flags = {"--policy", policy};
  std::istringstream words(flags);
  for (std::string word; words >> word;) server_flags.push_back(word);
  ServeProcess server(data, server_flags);
  const std::string simulated = TempPath("simulate.json");
  const std::string replayed = TempPath("replay.json");
  const std::string common = scenario + " --quiet --policy " + policy + " " + flags;
  const auto sim = RunArchimedes("simulate " + common + " --json " + simulated);
  EXPECT_EQ(sim.status, 0) << sim.output;
  const auto replay = RunArchimedes("replay " + common + " " + replay_flags +
                                    " --server http://127.0.0.1:" + std::to_string(server.port()) +
                                    " --json " + replayed);
  EXPECT_EQ(replay.status, 0) << replay.output;
  if (sim.status != 0 || replay.status != 0) return 0;
  EXPECT_EQ(Figures(replayed).dump(2), Figures(simulated).dump(2));
  std::ifstream in(replayed);
  return nlohmann::json::parse(in).at("policies").at(policy).at("wall_seconds").get<double>();
}

TEST(ReplayTest, EqualsSimulateUnderK8sDefault) { ExpectReplayEqualsSimulate("k8s-default"); }

// archimedes places by profiles and keeps room for the mix of task shapes: the replay sets on the
// server (PUT /v1/priors) what simulate gives its engine, the warm-up day's profiles and the mix.
TEST(ReplayTest, EqualsSimulateUnderArchimedes) { ExpectReplayEqualsSimulate("archimedes"); }

// The example scenario's node-a2 fails at 20 h and recovers at 21 h 30 m: the server ends what ran
// there (its agent is told, the replay's copy of the fleet follows) and places it again.
TEST(ReplayTest, PlaysTheScenariosNodeFailuresAsSimulateDoes) {
  ExpectReplayEqualsSimulate(
      "archimedes", "", "",
      "--scenario " + std::string(ARCHIMEDES_SOURCE_DIR) + "/examples/small-scenario.json");
}

// The server's --buffer reaches its engine: a buffer three times the default keeps the same
// figures as simulate's with that buffer.
TEST(ReplayTest, EqualsSimulateUnderReclaimWithItsBufferSet) {
  ExpectReplayEqualsSimulate("reclaim", "--buffer 0.3");
}

// --pace plays a day at 12 h per second: two seconds at least, whatever the machine's speed, and
// the same figures.
TEST(ReplayTest, PlaysAtThePaceAskedWithTheSameFigures) {
  EXPECT_GE(ExpectReplayEqualsSimulate("k8s-default", "", "--pace 12h"), 2.0);
}

TEST(ReplayTest, RefusesAServerOfAnotherPolicy) {
  const std::string data = TempPath("data");
  std::filesystem::remove_all(data);
  ServeProcess server(data, {"--policy", "k8s-binpack"});
  const auto replay = RunArchimedes(
      std::string("replay ") + kScenario +
      " --quiet --policy k8s-default --server http://127.0.0.1:" + std::to_string(server.port()));
  EXPECT_NE(replay.status, 0);
  EXPECT_NE(replay.output.find("runs with policy k8s-binpack, the replay needs k8s-default"),
            std::string::npos)
      << replay.output;
}

TEST(ReplayTest, RefusesAServerOfAnotherBuffer) {
  const std::string data = TempPath("data");
  std::filesystem::remove_all(data);
  ServeProcess server(data, {"--policy", "reclaim", "--buffer", "0.2"});
  const auto replay = RunArchimedes(
      std::string("replay ") + kScenario +
      " --quiet --policy reclaim --server http://127.0.0.1:" + std::to_string(server.port()));
  EXPECT_NE(replay.status, 0);
  EXPECT_NE(replay.output.find("runs with buffer 0.2, the replay needs 0.1"), std::string::npos)
      << replay.output;
}

}  // namespace
}  // namespace archimedes
