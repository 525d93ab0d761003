#include "trace/native_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "model/quantity.h"
#include "support/same_scenario.h"

namespace archimedes {
namespace {

using testing::ExpectSameScenario;
using ::testing::HasSubstr;

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;

std::string ExamplePath(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / "../../examples" / name).string();
}

std::string TempFile(const std::string& name, const std::string& contents) {
  std::string path = ::testing::TempDir() + "/native_format_test_" + name;
  std::ofstream(path) << contents;
  return path;
}

// The message of the TraceError `f` throws, or "no error".
std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

Scenario Parse(const std::string& text) {
  return ParseScenarioJson(nlohmann::json::parse(text), "test.json");
}

std::string ParseError(const std::string& text) {
  return ErrorOf([&] { Parse(text); });
}

// A scenario whose text is `body` added to a one-node fleet and a one-service workload.
std::string WithBase(const std::string& body) {
  return R"({"nodes": [{"name": "n1", "capacity": {"cpu": "8", "memory": "32Gi"}}],
             "services": [{"name": "web", "requests": {"cpu": "1", "memory": "1Gi"}}])" +
         std::string(body.empty() ? "" : ", ") + body + "}";
}

TEST(NativeFormatTest, NativeReadsTheExampleScenario) {
  Scenario s = ReadScenarioFile(ExamplePath("small-scenario.json"));
  EXPECT_EQ(s.name, "small");
  EXPECT_EQ(s.duration_s, 2 * kSecondsPerDay);

  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.nodes[0].capacity, Resources::Of(32000, 128 * kGi, 500 * kMi, 10'000'000'000));
  EXPECT_EQ(s.nodes[0].allocatable, Resources::Of(31000, 120 * kGi, 500 * kMi, 10'000'000'000));
  EXPECT_EQ(s.nodes[0].zone, "zone-a");
  EXPECT_EQ(s.nodes[0].pod, "pod-1");
  EXPECT_EQ(s.nodes[0].labels.at("disk"), "ssd");
  EXPECT_EQ(s.nodes[2].capacity, Resources::Of(64000, 256 * kGi, 0, 0, 4000));
  EXPECT_EQ(s.nodes[2].allocatable, s.nodes[2].capacity);

  const std::vector<Service>& services = s.workload.services;
  ASSERT_EQ(services.size(), 3u);
  const Service& web = services[0];
  EXPECT_EQ(web.app, "web-frontend");
  EXPECT_EQ(web.qos, QosClass::kGuaranteed);  // derived: limits equal requests
  EXPECT_DOUBLE_EQ(web.sla.availability, 0.9995);
  EXPECT_EQ(web.sla.min_available, 3);
  EXPECT_EQ(web.usage.step_seconds, 3600);
  EXPECT_EQ(web.usage.samples(), 24);
  EXPECT_FLOAT_EQ(web.usage.values[0][0], 400.0f);
  EXPECT_FLOAT_EQ(web.usage.values[1][23], static_cast<float>(3 * kGi));
  EXPECT_FLOAT_EQ(web.usage.noise, 0.1f);
  EXPECT_FLOAT_EQ(web.usage.burst_probability, 0.01f);
  EXPECT_FLOAT_EQ(web.usage.burst_factor, 2.0f);
  EXPECT_EQ(web.max_per_node, 2);

  const Service& indexer = services[1];
  EXPECT_EQ(indexer.app, "indexer");
  EXPECT_EQ(indexer.qos, QosClass::kBurstable);
  EXPECT_DOUBLE_EQ(indexer.sla.availability, 0.99);
  EXPECT_EQ(indexer.sla.min_available, 0);
  EXPECT_FLOAT_EQ(indexer.usage.values[0][0], 0.8f * 8000);  // fraction of the 8-core request
  EXPECT_FLOAT_EQ(indexer.usage.values[1][2], static_cast<float>(0.4 * 16 * kGi));
  EXPECT_FLOAT_EQ(indexer.usage.values[2][1], 20'000'000.0f);

  const Service& inference = services[2];
  EXPECT_TRUE(inference.usage.values[0].empty());
  EXPECT_EQ(inference.node_selector.at("accelerator"), "a100");
  EXPECT_EQ(inference.start_time, 6 * 3600);
  EXPECT_EQ(inference.end_time, 42 * 3600);
  EXPECT_EQ(services[1].end_time, kForever);

  ASSERT_EQ(s.workload.jobs.size(), 2u);
  const BatchJob& thumbnails = s.workload.jobs[0];
  EXPECT_EQ(thumbnails.type, JobType::kServerless);
  EXPECT_EQ(thumbnails.tasks, 20);
  EXPECT_EQ(thumbnails.task_requests, Resources::Of(500, 512 * kMi));
  EXPECT_EQ(thumbnails.duration_estimate_s, 30);
  EXPECT_EQ(thumbnails.duration_s, 24);
  EXPECT_EQ(thumbnails.delay_tolerance_s, 300);
  const BatchJob& report = s.workload.jobs[1];
  EXPECT_EQ(report.duration_s, 45 * 60);  // defaults to the estimate
  EXPECT_DOUBLE_EQ(report.utilization, 0.8);
  EXPECT_TRUE(report.gang);
  EXPECT_EQ(report.priority, 10);

  ASSERT_EQ(s.workload.node_events.size(), 3u);
  EXPECT_EQ(s.workload.node_events[1].time, 21 * 3600 + 30 * 60);
  EXPECT_EQ(s.workload.node_events[1].kind, NodeEvent::Kind::kRecover);
  const NodeEvent& add = s.workload.node_events[2];
  EXPECT_EQ(add.kind, NodeEvent::Kind::kAdd);
  EXPECT_EQ(add.spec.name, "node-b2");
  EXPECT_EQ(add.spec.pod, "pod-4");
  ASSERT_EQ(s.workload.scale_events.size(), 2u);
  EXPECT_EQ(s.workload.scale_events[0].replicas, 6);
}

TEST(NativeFormatTest, NativeReadsTheExampleJobsInSubmitOrder) {
  std::vector<BatchJob> jobs = ReadJobsFile(ExamplePath("jobs.json"));
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "resize-batch-17");
  EXPECT_EQ(jobs[1].name, "train-ranker");
  EXPECT_EQ(jobs[2].name, "etl-orders");
  EXPECT_EQ(jobs[2].task_requests, Resources::Of(4000, 16 * kGi));  // plain canonical numbers
  EXPECT_EQ(jobs[2].duration_s, 100 * 60);
  EXPECT_EQ(jobs[1].task_requests[Dim::kGpu], 1000);
}

TEST(NativeFormatTest, NativeJobsFileMayBeABareArray) {
  std::string path = TempFile("bare.json", R"([
    {"name": "b", "submit": 60, "requests": {"cpu": "1"}, "duration_estimate": "1m"},
    {"name": "a", "submit": 0, "requests": {"cpu": "1"}, "duration_estimate": "1m"}])");
  std::vector<BatchJob> jobs = ReadJobsFile(path);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "a");
  EXPECT_EQ(jobs[0].type, JobType::kOffline);

  std::string other = TempFile("other.json", R"({"jobs": [], "services": []})");
  EXPECT_THAT(ErrorOf([&] { ReadJobsFile(other); }), HasSubstr("services: unknown key"));
}

Scenario EveryField() {
  Scenario s;
  s.name = "every-field";
  s.duration_s = 3 * kSecondsPerDay + 7;

  Node node;
  node.name = "n1";
  node.capacity = Resources::Of(48000, 192 * kGi, 800 * kMi, 25'000'000'000, 2000);
  node.allocatable = Resources::Of(47500, 180 * kGi, 800 * kMi, 25'000'000'000, 2000);
  node.zone = "z1";
  node.pod = "p7";
  node.labels = {{"disk", "nvme"}, {"tier", "gold"}};
  node.condition = NodeCondition::kNotReady;
  s.nodes.push_back(node);
  Node plain;
  plain.name = "n2";
  plain.capacity = plain.allocatable = Resources::Of(1500, 1536);
  s.nodes.push_back(plain);

  Service svc;
  svc.name = "api";
  svc.app = "api-app";
  svc.replicas = 5;
  svc.requests = Resources::Of(2500, 3 * kGi, 10 * kMi, 1000, 500);
  svc.limits = Resources::Of(4000, 6 * kGi);
  svc.priority = -3;
  svc.qos = QosClass::kBestEffort;  // explicit, although the resources say Burstable
  svc.sla = {0.97, 2};
  svc.usage.step_seconds = 900;
  svc.usage.values[0] = {1200.5f, 0.1f, 3.0e-7f};
  svc.usage.values[1] = {1.0e9f, 2.5e9f, 123456.78f};
  svc.usage.values[4] = {250, 0, 500};
  svc.usage.noise = 0.15f;
  svc.usage.burst_probability = 0.003f;
  svc.usage.burst_factor = 1.7f;
  svc.start_time = 600;
  svc.end_time = 90000;
  svc.max_per_node = 1;
  svc.node_selector = {{"disk", "nvme"}};
  s.workload.services.push_back(svc);

  BatchJob job;
  job.name = "train";
  job.submit_time = 3601;
  job.type = JobType::kServerless;
  job.function = "img:1 --flag \"quoted\"";
  job.tasks = 7;
  job.task_requests = Resources::Of(1, 1, 1, 1, 1);
  job.duration_estimate_s = 5400;
  job.duration_s = 5000;
  job.utilization = 0.3333;
  job.delay_tolerance_s = 86400;
  job.priority = 9;
  job.gang = true;
  s.workload.jobs.push_back(job);

  NodeEvent fail{.time = 100, .kind = NodeEvent::Kind::kFail, .node = "n1"};
  NodeEvent add{.time = 200, .kind = NodeEvent::Kind::kAdd, .node = "n3"};
  add.spec = node;
  add.spec.name = "n3";
  add.spec.condition = NodeCondition::kReady;
  NodeEvent recover{.time = 300, .kind = NodeEvent::Kind::kRecover, .node = "n3"};
  s.workload.node_events = {fail, add, recover};
  s.workload.scale_events = {{.time = 50, .service = "api", .replicas = 0}};
  return s;
}

TEST(NativeFormatTest, NativeRoundTripKeepsEveryField) {
  Scenario original = EveryField();
  std::string path = ::testing::TempDir() + "/native_format_test_round_trip.json";
  WriteScenarioFile(original, path);
  Scenario read = ReadScenarioFile(path);
  ExpectSameScenario(original, read);
  EXPECT_EQ(FormatScenarioJson(read), FormatScenarioJson(original));
}

TEST(NativeFormatTest, NativeRoundTripOfTheExample) {
  Scenario example = ReadScenarioFile(ExamplePath("small-scenario.json"));
  Scenario again = Parse(FormatScenarioJson(example));
  ExpectSameScenario(example, again);
}

TEST(NativeFormatTest, NativeWriterKeepsSeriesOnOneLineAndFloatsShort) {
  std::string text = FormatScenarioJson(EveryField());
  EXPECT_THAT(text, HasSubstr(R"("cpu": [1.2005, 0.0001, 3e-10])"));
  EXPECT_THAT(text, HasSubstr(R"("noise": 0.15)"));
  EXPECT_THAT(text, HasSubstr(R"("delay_tolerance": "1d")"));
  EXPECT_THAT(text, HasSubstr(R"("network": "25G")"));
  EXPECT_THAT(text, HasSubstr(R"("requests": {"cpu": "2500m", "memory": "3Gi")"));
}

// Issue 19: a bare number means what it means in Kubernetes, so `"cpu": 2` is two cores (it was
// two millicores) and a file that mixes numbers and strings is not off by 1,000.
TEST(NativeFormatTest, NativeBareNumbersAreKubernetesUnits) {
  Scenario s = Parse(R"({"nodes": [
      {"name": "a", "capacity": {"cpu": "1500m", "memory": "2Gi", "gpu": "500m"}},
      {"name": "b", "capacity": {"cpu": 1.5, "memory": 2147483648, "gpu": 0.5}},
      {"name": "c", "capacity": {"cpu": "1.5", "memory": "2048Mi", "gpu": "0.5"}},
      {"name": "d", "capacity": {"cpu": 1.5e0, "memory": "2.147483648G", "gpu": 5e-1}}]})");
  ASSERT_EQ(s.nodes.size(), 4u);
  for (const Node& n : s.nodes) {
    EXPECT_EQ(n.capacity, Resources::Of(1500, 2 * kGi, 0, 0, 500)) << n.name;
  }
  EXPECT_EQ(
      Parse(R"({"nodes": [{"name": "a", "capacity": {"cpu": 2, "gpu": 4}}]})").nodes[0].capacity,
      Resources::Of(2000, 0, 0, 0, 4000));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacity": {"cpu": -1}}]})"),
              HasSubstr("nodes[0].capacity.cpu: quantity \"-1\": a resource amount must not be "
                        "negative"));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacity": {"memory": 1e18}}]})"),
              HasSubstr("nodes[0].capacity.memory: quantity \"1e+18\": memory is above the limit "
                        "of 64Ti"));
}

TEST(NativeFormatTest, NativeUsageSamplesAreKubernetesUnitsAndRoundTrip) {
  Scenario s = Parse(R"({"services": [{"name": "a", "requests": {"cpu": 1},
      "usage": {"cpu": [0.25, "250m", 1.0001], "memory": [1024, "1Ki", 1.5]}}]})");
  const std::vector<float>& cpu = s.workload.services[0].usage.values[0];
  EXPECT_EQ(cpu, (std::vector<float>{250, 250, 1000.1f}));
  EXPECT_EQ(s.workload.services[0].usage.values[1], (std::vector<float>{1024, 1024, 1.5f}));
  ExpectSameScenario(s, Parse(FormatScenarioJson(s)));
  EXPECT_THAT(FormatScenarioJson(s), HasSubstr(R"("cpu": [0.25, 0.25, 1.0001])"));
}

TEST(NativeFormatTest, NativeDurationsInBothSpellings) {
  for (const char* spelling : {"5400", "\"5400s\"", "\"90m\"", "\"1h30m\"", "\"1h29m60s\""}) {
    Scenario s = Parse(std::string(R"({"duration": )") + spelling + "}");
    EXPECT_EQ(s.duration_s, 5400) << spelling;
  }
  EXPECT_THAT(ParseError(R"({"duration": "5x"})"),
              HasSubstr("test.json: duration: duration \"5x\": unknown unit 'x'"));
  EXPECT_THAT(ParseError(R"({"duration": "0s"})"),
              HasSubstr("duration: 0s is below the minimum 1s"));
}

TEST(NativeFormatTest, NativeMalformedJsonReportsFileLineAndColumn) {
  std::string path = TempFile("malformed.json", "{\n  \"name\": \"x\",\n  \"nodes\": [,]\n}\n");
  try {
    ReadScenarioFile(path);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 3);
    EXPECT_THAT(e.what(), HasSubstr(path + ":3: malformed JSON at column 13: syntax error"));
  }
}

TEST(NativeFormatTest, NativeNumberTooLargeForJsonIsMalformed) {
  std::string path = TempFile("overflow.json", R"({"duration": 1e400})");
  EXPECT_THAT(ErrorOf([&] { ReadScenarioFile(path); }),
              HasSubstr(path + ": malformed JSON: number overflow parsing '1e400'"));
}

TEST(NativeFormatTest, NativeMissingFileIsNamed) {
  EXPECT_THAT(ErrorOf([] { ReadScenarioFile("/nonexistent/scenario.json"); }),
              HasSubstr("/nonexistent/scenario.json: no such file"));
}

TEST(NativeFormatTest, NativeUnknownKeyNamesTheKeyAndItsPath) {
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a"}, {"name": "b", "replicsa": 3}]})"),
              HasSubstr("test.json: services[1].replicsa: unknown key \"replicsa\"; did you mean "
                        "\"replicas\"?"));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacity": {"cpu": "1", "ram": "1Gi"}}]})"),
              HasSubstr("nodes[0].capacity.ram: unknown key \"ram\"; expected one of cpu, disk, "
                        "gpu, memory, network"));
  EXPECT_THAT(ParseError(R"({"servises": []})"), HasSubstr("servises: unknown key"));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacty": {"cpu": "1"}}]})"),
              HasSubstr("nodes[0]: missing required key \"capacity\" (found \"capacty\")"));
}

TEST(NativeFormatTest, NativeDuplicateJsonKeyIsRejected) {
  std::string path = TempFile("dup_key.json", R"({"services": [{"name": "a"},
      {"name": "b", "replicas": 2, "replicas": 3}]})");
  EXPECT_THAT(ErrorOf([&] { ReadScenarioFile(path); }),
              HasSubstr("services[1].replicas: key \"replicas\" appears twice"));
}

TEST(NativeFormatTest, NativeBadQuantityNamesThePath) {
  EXPECT_THAT(ParseError(WithBase(R"("jobs": [{"name": "j", "requests": {"cpu": "1", "memory":
      "4GB"}, "duration_estimate": 60}])")),
              HasSubstr("test.json: jobs[0].requests.memory: quantity \"4GB\": unknown suffix"));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacity": {"cpu": "-1"}}]})"),
              HasSubstr("nodes[0].capacity.cpu: quantity \"-1\": a resource amount must not be "
                        "negative"));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacity": {"cpu": true}}]})"),
              HasSubstr("nodes[0].capacity.cpu: expected a quantity"));
}

TEST(NativeFormatTest, NativeImpossibleJobsAreRejectedWithTheReason) {
  EXPECT_THAT(ParseError(R"({"jobs": [{"name": "j", "requests": {"cpu": "1"},
      "duration_estimate": "1m", "delay_tolerance": "-5m"}]})"),
              HasSubstr("test.json: jobs[0]: delay_tolerance is -5m; it must not be negative"));
  EXPECT_THAT(ParseError(R"({"jobs": [{"name": "j", "type": "batch", "requests": {"cpu": "1"},
      "duration_estimate": 60}]})"),
              HasSubstr("jobs[0].type: unknown job type \"batch\""));
}

TEST(NativeFormatTest, NativeReferencesAreChecked) {
  EXPECT_THAT(ParseError(WithBase(R"("node_events": [{"time": 0, "kind": "fail", "node": "n9"}])")),
              HasSubstr("test.json: node_events[0]: unknown node \"n9\""));
  // A node added at 1h exists afterwards, whatever the order of the file.
  Scenario s = Parse(WithBase(R"("node_events": [
      {"time": "2h", "kind": "fail", "node": "n2"},
      {"time": "1h", "kind": "add", "node": "n2", "spec": {"capacity": {"cpu": "4"}}}])"));
  ASSERT_EQ(s.workload.node_events.size(), 2u);
  EXPECT_EQ(s.workload.node_events[0].kind, NodeEvent::Kind::kAdd);
  EXPECT_THAT(ParseError(WithBase(R"("node_events": [
      {"time": 0, "kind": "add", "node": "n1", "spec": {"capacity": {"cpu": "4"}}}])")),
              HasSubstr("node_events[0]: adds node \"n1\", which already exists"));
  EXPECT_THAT(ParseError(WithBase(R"("scale_events": [{"time": 0, "service": "db",
      "replicas": 2}])")),
              HasSubstr("scale_events[0]: unknown service \"db\""));
  EXPECT_THAT(ParseError(R"({"services": [{"name": "web"}, {"name": "db"}, {"name": "web"}]})"),
              HasSubstr("services[2]: duplicate service name \"web\" (first at services[0])"));
  EXPECT_THAT(ParseError(R"({"nodes": [{"name": "a", "capacity": {}},
      {"name": "a", "capacity": {}}]})"),
              HasSubstr("nodes[1]: duplicate node name \"a\""));
}

TEST(NativeFormatTest, NativeSlaDefaultsFollowTheQosClass) {
  Scenario s = Parse(R"({"services": [
      {"name": "g", "replicas": 4, "requests": {"cpu": "1", "memory": "1Gi"},
       "limits": {"cpu": "1", "memory": "1Gi"}},
      {"name": "b", "replicas": 4, "requests": {"cpu": "1"}},
      {"name": "e", "replicas": 4},
      {"name": "l", "limits": {"cpu": "2", "memory": "1Gi"}}]})");
  const std::vector<Service>& v = s.workload.services;
  EXPECT_EQ(v[0].qos, QosClass::kGuaranteed);
  EXPECT_DOUBLE_EQ(v[0].sla.availability, 0.999);
  EXPECT_EQ(v[0].sla.min_available, 3);
  EXPECT_EQ(v[1].qos, QosClass::kBurstable);
  EXPECT_DOUBLE_EQ(v[1].sla.availability, 0.99);
  EXPECT_EQ(v[1].sla.min_available, 0);
  EXPECT_EQ(v[2].qos, QosClass::kBestEffort);
  EXPECT_DOUBLE_EQ(v[2].sla.availability, 0.95);
  // Limits without requests request the limit, as in Kubernetes, which makes the pod Guaranteed.
  EXPECT_EQ(v[3].requests, Resources::Of(2000, kGi));
  EXPECT_EQ(v[3].qos, QosClass::kGuaranteed);

  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "replicas": 2, "sla":
      {"min_available": 3}}]})"),
              HasSubstr("services[0].sla.min_available: 3 exceeds the service's 2 replicas"));
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "requests": {"cpu": "2"},
      "limits": {"cpu": "1"}}]})"),
              HasSubstr("services[0].limits: cpu limit 1 is below its request 2"));
}

TEST(NativeFormatTest, NativeUsageSeriesAreChecked) {
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "requests": {"cpu": "1"},
      "usage": {"cpu": [1, 2, 3], "memory": [1, 2]}}]})"),
              HasSubstr("services[0].usage.memory: has 2 samples but services[0].usage.cpu has 3"));
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "requests": {"cpu": "1"},
      "usage": {"cpu": [1], "cpu_fraction_of_request": [0.5]}}]})"),
              HasSubstr("give either cpu or cpu_fraction_of_request, not both"));
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "requests": {"cpu": "1"},
      "usage": {"cpu": [1], "memory_fraction_of_request": [0.5]}}]})"),
              HasSubstr("usage.memory_fraction_of_request: a fraction of the request needs a "
                        "memory request"));
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "usage": {"memory": ["1Gi"]}}]})"),
              HasSubstr("services[0].usage: usage needs a cpu or cpu_fraction_of_request series"));
  EXPECT_THAT(ParseError(R"({"services": [{"name": "a", "usage": {"cpu": [1],
      "burst_probability": 1.5}}]})"),
              HasSubstr("usage.burst_probability: 1.5 is above the maximum 1"));
}

}  // namespace
}  // namespace archimedes
