#include "sim/scenario_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "trace/trace_error.h"

namespace archimedes {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Named after the test too: ctest runs the tests of this file in parallel processes.
std::string TempFile(const std::string& name, const std::string& content) {
  std::string path = ::testing::TempDir() + "/scenario_source_test_" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::ofstream(path) << content;
  return path;
}

// Two 8-core, 32 GiB nodes and a 16-core node added at 1h.
std::string TwoNodeScenario() {
  return TempFile("fleet.json", R"({"duration": "3h",
    "nodes": [{"name": "a", "capacity": {"cpu": "8", "memory": "32Gi"}},
              {"name": "b", "capacity": {"cpu": "8", "memory": "32Gi"}}],
    "node_events": [{"time": "1h", "kind": "add", "node": "c",
                     "spec": {"capacity": {"cpu": "16", "memory": "32Gi"}}}]})");
}

std::vector<std::string> JobNames(const Scenario& s) {
  std::vector<std::string> names;
  for (const BatchJob& j : s.workload.jobs) names.push_back(j.name);
  return names;
}

TEST(ScenarioSourceTest, JobsThatCanNeverRunAreRejectedAndTheRestRun) {
  const std::string jobs = TempFile("jobs.json", R"({"jobs": [
    {"name": "fits", "tasks": 4, "requests": {"cpu": "2", "memory": "1Gi"},
     "duration_estimate": "10m"},
    {"name": "fits-the-added-node", "requests": {"cpu": "12", "memory": "1Gi"},
     "duration_estimate": "10m"},
    {"name": "too-wide", "requests": {"cpu": "20", "memory": "64Gi"}, "duration_estimate": "10m"},
    {"name": "no-gpu", "requests": {"cpu": "1", "gpu": "1"}, "duration_estimate": "10m"},
    {"name": "gang-of-9", "tasks": 9, "gang": true, "requests": {"cpu": "4", "memory": "1Gi"},
     "duration_estimate": "10m"},
    {"name": "gang-of-8", "tasks": 8, "gang": true, "requests": {"cpu": "4", "memory": "1Gi"},
     "duration_estimate": "10m"},
    {"name": "negative", "requests": {"cpu": "1"}, "duration_estimate": "10m",
     "delay_tolerance": "-5s"}]})");
  const ScenarioRequest request{.scenario = TwoNodeScenario(), .job_files = {jobs}};

  std::vector<std::string> rejected;
  const Scenario s = BuildScenario(request, &rejected);
  EXPECT_THAT(JobNames(s), ElementsAre("fits", "fits-the-added-node", "gang-of-8"));
  ASSERT_EQ(rejected.size(), 4u);
  EXPECT_EQ(rejected[0], jobs + ": jobs[6]: delay_tolerance is -5s; it must not be negative");
  EXPECT_EQ(rejected[1], jobs + ": job \"too-wide\": one task requests cpu=20 (the largest node " +
                             "has cpu=16), memory=64Gi (the largest node has memory=32Gi)");
  EXPECT_EQ(rejected[2],
            jobs + ": job \"no-gpu\": one task requests gpu=1 (the largest node has " + "none)");
  EXPECT_EQ(rejected[3], jobs + ": job \"gang-of-9\": a gang of 9 tasks must start together but " +
                             "the whole fleet holds at most 8 at once");

  // Without a list to put them on, the first impossible job is the error.
  EXPECT_THROW(
      {
        try {
          BuildScenario(request);
        } catch (const TraceError& e) {
          EXPECT_THAT(e.what(), HasSubstr("jobs[6]: delay_tolerance is -5s"));
          throw;
        }
      },
      TraceError);
}

TEST(ScenarioSourceTest, AScenarioFilesOwnImpossibleJobsAreRejectedToo) {
  const std::string path = TempFile("with_jobs.json", R"({"duration": "3h",
    "nodes": [{"name": "a", "capacity": {"cpu": "8", "memory": "32Gi"}}],
    "jobs": [{"name": "ok", "requests": {"cpu": "1"}, "duration_estimate": "10m"},
             {"name": "big", "requests": {"cpu": "9"}, "duration_estimate": "10m"},
             {"name": "never", "tasks": 0, "requests": {"cpu": "1"},
              "duration_estimate": "10m"}]})");
  std::vector<std::string> rejected;
  const Scenario s = BuildScenario({.scenario = path}, &rejected);
  EXPECT_THAT(JobNames(s), ElementsAre("ok"));
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_THAT(rejected[0], HasSubstr("jobs[2]: tasks is 0"));
  EXPECT_THAT(rejected[1], HasSubstr("job \"big\": one task requests cpu=9"));

  // On a generated base, the file's own jobs are checked against the base's nodes and its own.
  const std::string based = TempFile("based.json", R"({"generator": {"nodes": 4, "days": 1},
    "nodes": [{"name": "wide", "capacity": {"cpu": "1000", "memory": "1Ti"}}],
    "jobs": [{"name": "fits-the-file-node", "requests": {"cpu": "900"}, "duration_estimate": "1h"},
             {"name": "too-big", "requests": {"cpu": "2000"}, "duration_estimate": "1h"}]})");
  rejected.clear();
  const Scenario generated = BuildScenario({.scenario = based}, &rejected);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_THAT(
      rejected[0],
      HasSubstr("job \"too-big\": one task requests cpu=2000 (the largest node has cpu=1000)"));
  EXPECT_GT(generated.workload.jobs.size(), 1u);
  EXPECT_EQ(std::count_if(generated.workload.jobs.begin(), generated.workload.jobs.end(),
                          [](const BatchJob& j) { return j.name == "fits-the-file-node"; }),
            1);
}

TEST(ScenarioSourceTest, AMalformedJobStillFailsTheWholeFile) {
  const std::string jobs = TempFile("typo.json", R"({"jobs": [
    {"name": "ok", "requests": {"cpu": "1"}, "duration_estimate": "10m"},
    {"name": "typo", "requests": {"cpu": "1"}, "duration_estimat": "10m"}]})");
  std::vector<std::string> rejected;
  EXPECT_THROW(BuildScenario({.scenario = TwoNodeScenario(), .job_files = {jobs}}, &rejected),
               TraceError);
}

// The message of the TraceError building from scenario file `text` throws, or "no error".
std::string FileError(const std::string& text) {
  const std::string path = TempFile("base.json", text);
  try {
    BuildScenario({.scenario = path});
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScenarioSourceTest, TheBaseOfAFileIsReadStrictlyWithPaths) {
  EXPECT_THAT(FileError(R"({"generator": {"nodse": 4}})"),
              HasSubstr(": generator.nodse: unknown generator parameter 'nodse'"));
  EXPECT_THAT(FileError(R"({"generator": {"nodes": true}})"),
              HasSubstr(": generator.nodes: expected a string or a number, got boolean true"));
  EXPECT_THAT(FileError(R"({"generator": {"surge_start": "5x"}})"),
              HasSubstr("generator.surge_start: generator parameter 'surge_start': bad value "
                        "'5x': duration \"5x\": unknown unit 'x'"));
  EXPECT_THAT(FileError(R"({"real": {"node": 5}})"),
              HasSubstr(": real.node: unknown key \"node\"; did you mean \"nodes\"?"));
  EXPECT_THAT(FileError(R"({"trace": 5})"), HasSubstr(": trace: expected a string, got number 5"));
  EXPECT_THAT(FileError(R"({"generator": {}, "trace": "x"})"),
              HasSubstr("name at most one of generator, real and trace"));
  EXPECT_THAT(FileError("{\n  \"generator\": {,}\n}"), HasSubstr(":2: malformed JSON at column"));
}

}  // namespace
}  // namespace archimedes
