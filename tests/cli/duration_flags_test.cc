// Every time flag takes the one duration grammar (model/duration.h) or, as before it, a bare
// number in its unit: real runs of the command, a spelling against its bare equivalent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/command.h"

namespace archimedes {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using testing::TempPath;

// Runs `archimedes <args> --json FILE` and returns what it wrote.
nlohmann::json JsonOf(const std::string& args) {
  const std::string path = TempPath("run.json");
  const CommandResult r = testing::RunArchimedes(args + " --quiet --json " + path);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
  nlohmann::json doc;
  if (r.status == 0) doc = nlohmann::json::parse(std::ifstream(path));
  std::filesystem::remove(path);
  return doc;
}

int64_t WarmupOf(const std::string& warmup) {
  const nlohmann::json doc =
      JsonOf("simulate --nodes 5 --days 1 --policy k8s-default --warmup " + warmup);
  return doc.is_null() ? -1 : doc["scenario"]["warmup_s"].get<int64_t>();
}

TEST(DurationFlagsTest, WarmupTakesADurationOrBareSeconds) {
  EXPECT_EQ(WarmupOf("6h"), 21600);
  EXPECT_EQ(WarmupOf("21600"), 21600);
  EXPECT_EQ(WarmupOf("1h30m"), 5400);
  EXPECT_EQ(WarmupOf("0"), 0);
  EXPECT_EQ(WarmupOf("0s"), 0);
}

// The fault simulation is deterministic: the same settings spelled two ways give the same
// report, and other settings another, so the flags are read and not ignored.
TEST(DurationFlagsTest, FaultsTimeFlagsReadDurationsAsTheirBareValues) {
  const std::string run = "faults --nodes 20 --days 1 --seed 3";
  const nlohmann::json spelled =
      JsonOf(run +
             " --reboot-median 1h --api-cut-median 20m --pod-cut-median 1h30m "
             "--isolation-median 5m --flap-median 1h --grace 50s --toleration 2m "
             "--probe-period 2s --probe-timeout-ms 2s --heartbeat-grace 1m --restart 1m");
  const nlohmann::json bare =
      JsonOf(run +
             " --reboot-median 3600 --api-cut-median 1200 --pod-cut-median 5400 "
             "--isolation-median 300 --flap-median 3600 --grace 50 --toleration 120 "
             "--probe-period 2 --probe-timeout-ms 2000 --heartbeat-grace 60 --restart 60");
  const nlohmann::json defaults = JsonOf(run);
  ASSERT_FALSE(spelled.is_null());
  EXPECT_EQ(spelled, bare);
  EXPECT_NE(spelled, defaults);
}

double SecondsToRun(const std::string& args) {
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = testing::RunArchimedes(args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(DurationFlagsTest, MagiDurationEndsTheProcessOnTimeEitherWay) {
  // An address of the test's own on loopback: a port of 127.0.0.1 may be any parallel test's
  // client end at that moment (the kernel's ephemeral ports).
  const std::string health = "magi --serve-health 127.81." + std::to_string(getpid() / 250 % 250) +
                             "." + std::to_string(getpid() % 250 + 1) + ":20000 --duration ";
  const double spelled = SecondsToRun(health + "1s");
  EXPECT_GE(spelled, 0.9);
  EXPECT_LT(spelled, 5);
  const double bare = SecondsToRun(health + "1");
  EXPECT_GE(bare, 0.9);
  EXPECT_LT(bare, 5);
}

// A member with every time flag spelled as a duration starts, finds no store, and stops at the
// end of --duration.
TEST(DurationFlagsTest, MagiMemberTakesEveryTimeFlagAsADuration) {
  const std::string nodes = TempPath("nodes.json");
  std::ofstream(nodes) << R"({"nodes": [{"name": "a", "address": "127.0.0.1:1"}]})";
  const double seconds = SecondsToRun(
      "magi --id 1 --pod pod-a --store http://127.0.0.1:1 --members 1=pod-a,2=pod-b,3=pod-c "
      "--nodes " +
      nodes +
      " --window 2m --vote-ttl 30s --heartbeat-grace 30s --lease-ttl 5s --probe-interval-ms 1s "
      "--probe-timeout-ms 1s --duration 2s");
  EXPECT_GE(seconds, 1.9);
  EXPECT_LT(seconds, 8);
}

// A usage error: exit status 2 and one line naming the command, the flag and the problem.
std::string UsageError(const std::string& args) {
  const CommandResult r = testing::RunArchimedes(args);
  EXPECT_EQ(r.status, 2) << r.output;
  return r.output.substr(0, r.output.find('\n'));
}

TEST(DurationFlagsTest, WhatIsNotADurationOrOutOfRangeIsAUsageError) {
  EXPECT_EQ(UsageError("simulate --warmup 1.5"),
            "archimedes simulate: --warmup: \"1.5\" is not a duration (write 90s, 30m, 2h or 1d)");
  EXPECT_EQ(UsageError("replay --server http://127.0.0.1:1 --warmup 5x"),
            "archimedes replay: --warmup: \"5x\" is not a duration (write 90s, 30m, 2h or 1d)");
  EXPECT_EQ(UsageError("simulate --warmup 367d"),
            "archimedes simulate: --warmup: 367d is outside [0s, 366d]");
  EXPECT_EQ(UsageError("simulate --warmup -1m"),
            "archimedes simulate: --warmup: -1m is outside [0s, 366d]");
  EXPECT_EQ(UsageError("faults --grace 0s"),
            "archimedes faults: --grace: 0s is outside [1s, 366d]");
  EXPECT_EQ(UsageError("faults --probe-timeout-ms 500ms"),
            "archimedes faults: --probe-timeout-ms: \"500ms\" is not a duration (write 500, 2s or "
            "1m)");
  EXPECT_EQ(UsageError("magi --probe-interval-ms 0"),
            "archimedes magi: --probe-interval-ms: 0 is outside [1 ms, 1d]");
  EXPECT_EQ(UsageError("magi --window 99999999999999999999"),
            "archimedes magi: --window: 99999999999999999999 is outside [1s, 366d]");
}

TEST(DurationFlagsTest, HelpNamesTheGrammarTheUnitAndTheDefault) {
  const CommandResult faults = testing::RunArchimedes("faults --help");
  EXPECT_THAT(faults.output, HasSubstr("--toleration DURATION in [0s, 366d]=5m"));
  EXPECT_THAT(faults.output, HasSubstr("--probe-timeout-ms DURATION in [1 ms, 366d]=500"));
  EXPECT_THAT(faults.output, HasSubstr("(a bare number is milliseconds)"));
  const CommandResult simulate = testing::RunArchimedes("simulate --help");
  EXPECT_THAT(simulate.output, HasSubstr("--warmup DURATION in [0s, 366d]=1d"));
  EXPECT_THAT(simulate.output, HasSubstr("(a bare number is seconds)"));
}

}  // namespace
}  // namespace archimedes
