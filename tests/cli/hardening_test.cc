// Issue 19's reproductions, each a regression test named after what it found: crashes, runs
// without end, silent garbage and raw library messages, all from broken input. Every case must end
// quickly with exit status 1 and the project's own message naming the input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/command.h"

namespace archimedes {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempPath;

std::string TempFile(const std::string& name, const std::string& content) {
  std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Runs the command and checks that it refused the input as the project refuses: status 1 (no
// signal, no exit 0), its own message, no library's.
CommandResult Refused(const std::string& args) {
  const CommandResult r = testing::RunArchimedes(args);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("archimedes: "));
  EXPECT_THAT(r.output, Not(HasSubstr("json.exception")));
  EXPECT_THAT(r.output, Not(HasSubstr("unexpected error")));
  return r;
}

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

const std::string kOneNode = R"("nodes": [{"name": "n", "capacity": {"cpu": 4, "memory": "8Gi"}}])";

TEST(HardeningTest, JobsFileNested100000DeepIsAnErrorNotACrash) {
  const std::string jobs = TempFile("deep.json", Nested(100000));
  EXPECT_THAT(Refused("simulate --nodes 5 --days 2 --jobs " + jobs).output,
              HasSubstr("deep.json: [0][0][0]"));
}

TEST(HardeningTest, ScenarioFileNested100000DeepIsAnErrorNotACrash) {
  const std::string scenario = TempFile("deep.json", "{\"name\": " + Nested(100000) + "}");
  EXPECT_THAT(Refused("simulate --scenario " + scenario).output, HasSubstr("name[0][0]"));
}

TEST(HardeningTest, FaultsFileNested100000DeepIsAnErrorNotACrash) {
  const std::string faults = TempFile("deep.json", Nested(100000));
  EXPECT_THAT(Refused("faults --nodes 20 --days 1 --faults " + faults).output,
              HasSubstr("nested deeper than 64 levels"));
}

TEST(HardeningTest, ScenarioDurationOf100000000DaysIsAnError) {
  const std::string scenario =
      TempFile("long.json", R"({"duration": "100000000d", )" + kOneNode + "}");
  EXPECT_THAT(Refused("simulate --scenario " + scenario).output,
              HasSubstr("duration: 100000000d is above the maximum 366d"));
}

TEST(HardeningTest, OneBillionReplicasIsAnError) {
  const std::string scenario =
      TempFile("replicas.json",
               "{" + kOneNode +
                   R"(, "services": [{"name": "s", "replicas": 1e9, "requests": {"cpu": 1}}]})");
  EXPECT_THAT(Refused("simulate --scenario " + scenario).output,
              HasSubstr("services[0].replicas: 1000000000 is above the maximum 10000"));
}

// A command line the parser refuses: a usage error's exit status, 2, a short message naming the
// command, and where its options are listed.
CommandResult RefusedByTheParser(const std::string& args) {
  const CommandResult r = testing::RunArchimedes(args);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_LT(r.output.size(), 400u) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--help' for the options")) << r.output;
  return r;
}

TEST(HardeningTest, WarmupOf999999999SecondsIsAnError) {
  EXPECT_THAT(RefusedByTheParser("simulate --nodes 5 --days 2 --warmup 999999999").output,
              HasSubstr("archimedes simulate: --warmup: 999999999 is outside [0s, 366d]"));
}

TEST(HardeningTest, OneDayWithTheDefaultWarmupMeasuresNothingAndSaysSo) {
  EXPECT_THAT(Refused("simulate --nodes 5 --days 1").output,
              HasSubstr("nothing would be measured"));
}

// The range was 309 digits long.
TEST(HardeningTest, NodesZeroNamesTheRangeInFewWords) {
  EXPECT_THAT(RefusedByTheParser("simulate --nodes 0").output,
              HasSubstr("--nodes: 0 is outside [1, 100000]"));
  EXPECT_THAT(RefusedByTheParser("simulate --days 367").output,
              HasSubstr("--days: 367 is outside [1, 366]"));
  EXPECT_THAT(RefusedByTheParser("faults --nodes 99999999999999999999").output,
              HasSubstr("--nodes: \"99999999999999999999\" is outside [1, 100000]"));
  EXPECT_THAT(RefusedByTheParser("replay --server http://127.0.0.1:1 --days 0").output,
              HasSubstr("--days: 0 is outside [1, 366]"));
  EXPECT_THAT(RefusedByTheParser("replay --server http://127.0.0.1:1 --nodes 1.5").output,
              HasSubstr("--nodes: \"1.5\" is not a whole number"));
}

// A burst buffer only for policies that keep one, and only within [0, 0.9].
TEST(HardeningTest, ABufferIsRefusedWhereItCannotApply) {
  EXPECT_THAT(Refused("simulate --nodes 5 --policy k8s-default,k8s-binpack --buffer 0.2").output,
              HasSubstr("--buffer: none of the policies run keeps a burst buffer"));
  EXPECT_THAT(Refused("simulate --nodes 5 --policy reclaim --buffer 1.5").output,
              HasSubstr("a burst buffer of 1.5 is outside [0, 0.9]"));
  EXPECT_THAT(
      Refused("replay --server http://127.0.0.1:1 --policy k8s-default --buffer 0.2").output,
      HasSubstr("policy \"k8s-default\" keeps no burst buffer"));
  EXPECT_THAT(Refused("serve --policy k8s-default --buffer 0.2").output,
              HasSubstr("buffer \"0.2\": policy \"k8s-default\" keeps no burst buffer"));
}

// CLI11's range check said "Value 1.5 not in range 0 to 31622400" of a value in range.
TEST(HardeningTest, ANumberThatIsNotWholeIsCalledSo) {
  EXPECT_THAT(RefusedByTheParser("simulate --warmup 1.5").output,
              HasSubstr("--warmup: \"1.5\" is not a duration (write 90s, 30m, 2h or 1d)"));
  EXPECT_THAT(RefusedByTheParser("simulate --threads x").output,
              HasSubstr("--threads: \"x\" is not a whole number"));
}

TEST(HardeningTest, AnUnknownCommandIsNamedWithTheKnownOnes) {
  EXPECT_THAT(RefusedByTheParser("frobnicate").output,
              HasSubstr("unknown command \"frobnicate\" (commands: simulate,"));
  EXPECT_THAT(RefusedByTheParser("simulate --nodes 5 extra").output,
              HasSubstr("archimedes simulate: The following argument was not expected: extra"));
}

TEST(HardeningTest, DuplicateKeysInAScenarioFileAreAnError) {
  const std::string scenario =
      TempFile("dup.json", R"({"duration": "2d", "duration": "3d", )" + kOneNode + "}");
  EXPECT_THAT(Refused("simulate --scenario " + scenario).output,
              HasSubstr("duration: key \"duration\" appears twice"));
}

TEST(HardeningTest, NumberTooLargeForADoubleNamesTheFile) {
  const std::string scenario = TempFile("huge.json", R"({"duration": 1e400})");
  EXPECT_THAT(Refused("simulate --scenario " + scenario).output, HasSubstr("huge.json"));
}

TEST(HardeningTest, UsageHistoryCpuOf99999999999999999999IsAnError) {
  const std::string history =
      TempFile("history.csv",
               "time,app,container,cpu,memory,disk,network\n"
               "0,web,web-0,99999999999999999999,1000,0,0\n300,web,web-0,500,1000,0,0\n");
  EXPECT_THAT(Refused("profile --history " + history).output,
              HasSubstr("history.csv:2: column cpu: 99999999999999999999 is outside the range"));
}

TEST(HardeningTest, UsageHistoryCpuOf1e300IsAnError) {
  const std::string history = TempFile("history.csv",
                                       "time,app,container,cpu,memory,disk,network\n"
                                       "0,web,web-0,1e300,1000,0,0\n");
  EXPECT_THAT(Refused("profile --history " + history).output,
              HasSubstr("history.csv:2: column cpu: 1e300 is outside the range"));
}

TEST(HardeningTest, UsageHistoryMemoryOf1e20IsAnErrorNotANanScore) {
  const std::string history = TempFile("history.csv",
                                       "time,app,container,cpu,memory,disk,network\n"
                                       "0,web,web-0,500,1e20,0,0\n");
  const CommandResult r = Refused("profile --history " + history);
  EXPECT_THAT(r.output, HasSubstr("column memory: 1e20 is outside the range"));
  EXPECT_THAT(r.output, Not(HasSubstr("nan")));
}

TEST(HardeningTest, UsageHistoryCutInsideItsLastFieldIsAnError) {
  const std::string history = TempFile("history.csv",
                                       "time,app,container,cpu,memory,disk,network\n"
                                       "0,web,web-0,500,1000,0,0\n300,web,web-0,500,1000,0,1");
  EXPECT_THAT(Refused("profile --history " + history).output,
              HasSubstr("history.csv:3: the last line has no line end"));
}

TEST(HardeningTest, ANameThatIsNotUtf8IsAnError) {
  const std::string history = TempFile("history.csv",
                                       "time,app,container,cpu,memory,disk,network\n"
                                       "0,web,web-0,500,1000,0,0\n300,w\xe9"
                                       "b,web-0,500,1000,0,1\n");
  EXPECT_THAT(Refused("profile --history " + history).output,
              HasSubstr("history.csv:3: byte 6 is not valid UTF-8"));
}

TEST(HardeningTest, Alibaba2017CpusPerInstanceOf1e18IsAnError) {
  const std::string dir = TempPath("alibaba-v2017");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/server_event.csv") << "0,1,add,,64,0.5,1\n";
  std::ofstream(dir + "/batch_task.csv")
      << "task_create_time,task_end_time,job_id,task_id,number_of_instances,status,"
         "cpus_per_instance,memory_per_instance\n"
         "0,100,1,1,1,Terminated,1e18,0.01\n";
  const CommandResult r = Refused("simulate --days 2 --nodes 5 --trace " + dir + "/batch_task.csv");
  EXPECT_THAT(r.output, HasSubstr("column cpus_per_instance: 1e18 is outside the range"));
  EXPECT_THAT(r.output, Not(HasSubstr("core-h/day")));
}

// A GPU 2023 node list of `rows`, named as `--trace` recognises it.
std::string NodeList(const std::string& rows) {
  const std::string dir = TempPath("alibaba-gpu-v2023");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/openb_node_list_all_node.csv";
  std::ofstream(path) << "sn,cpu_milli,memory_mib,gpu,model\n" << rows;
  return path;
}

TEST(HardeningTest, GpuNodeMemoryMibOf1e18IsAnError) {
  const std::string nodes = NodeList("n1,96000,1000000000000000000,8,V100M32\n");
  EXPECT_THAT(Refused("simulate --days 2 --trace " + nodes).output,
              HasSubstr("column memory_mib: 1000000000000000000 is outside the range"));
}

TEST(HardeningTest, DuplicateNodeNamesInATraceAreAnError) {
  const std::string nodes = NodeList("n1,96000,262144,0,\nn1,96000,262144,0,\n");
  EXPECT_THAT(Refused("simulate --days 2 --trace " + nodes).output,
              HasSubstr(":3: node \"n1\" appears twice (first on line 2)"));
}

TEST(HardeningTest, ServeHealthPortOutOfRangeIsAnErrorNotAnotherPort) {
  EXPECT_THAT(Refused("magi --serve-health 127.0.0.1:99999999 --duration 1").output,
              HasSubstr("port 99999999 is outside [1, 65535]"));
}

TEST(HardeningTest, UnwritableJsonFailsBeforeTheRun) {
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r =
      Refused("simulate --nodes 200 --days 2 --json /nonexistent-folder/report.json");
  EXPECT_THAT(r.output, HasSubstr("/nonexistent-folder/report.json"));
  EXPECT_THAT(r.output, Not(HasSubstr("policy")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(HardeningTest, SlaReportToAFolderFailsBeforeTheRun) {
  const std::string folder = TempPath("folder");
  std::filesystem::create_directories(folder);
  EXPECT_THAT(Refused("simulate --nodes 200 --days 2 --sla-report " + folder).output,
              HasSubstr("is a folder, not a file"));
}

TEST(HardeningTest, JsonReportSaysWhatItIsAndHoldsOnlyNumbers) {
  const std::string out = TempPath("report.json");
  const CommandResult r = testing::RunArchimedes(
      "simulate --nodes 5 --days 1 --warmup 3600 --policy k8s-default --json " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(doc["report"]["format"], "archimedes-simulation-report");
  EXPECT_EQ(doc["report"]["format_version"], 1);
  EXPECT_EQ(doc["report"]["tool"]["name"], "archimedes");
  EXPECT_FALSE(doc["report"]["tool"]["commit"].get<std::string>().empty());
  EXPECT_EQ(doc["report"]["units"]["policies.*.peak_sum.*.cpu"], "millicores");
  // nlohmann writes NaN and infinity as null: no figure may be null.
  EXPECT_EQ(doc.dump().find("null"), std::string::npos) << doc.dump(1);
}

}  // namespace
}  // namespace archimedes
