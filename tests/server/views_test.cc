// The read-only views of the engine's decisions through real HTTP on loopback, with good input
// and bad: the batch plan (a job's Planned phase, GET /v1/plan), the SLA contracts (GET /v1/sla)
// and the profiles learned online (GET /v1/profiles).
#include <gtest/gtest.h>

#include <string>

#include "server/api_call.h"
#include "server/test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::Call;
using testing::ExpectError;
using testing::TestServer;

ServerConfig PolicyConfig(const std::string& policy) {
  ServerConfig config = TestServer::VirtualConfig();
  config.policy = policy;
  return config;
}

std::string NodeBody() {
  return json{{"spec", {{"capacity", {{"cpu", "8"}, {"memory", "32Gi"}}}}}}.dump();
}

std::string OfflineJob(const std::string& cpu, const std::string& duration = "10m") {
  return json{{"spec",
               {{"kind", "offline"},
                {"function", "transcode"},
                {"tasks", 1},
                {"requests", {{"cpu", cpu}, {"memory", "1Gi"}}},
                {"durationEstimate", duration},
                {"delayTolerance", "2h"}}}}
      .dump();
}

void Advance(httplib::Client& c, const std::string& by) {
  const Answer a = Call(c, "POST", "/v1/clock", json{{"advance", by}}.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
}

// The first action of `kind` for node n1 naming `owner` (a service or a function).
json FirstAction(httplib::Client& c, const std::string& kind, const std::string& owner) {
  const Answer actions = Call(c, "GET", "/v1/nodes/n1/actions?after=0&limit=1000");
  for (const json& a : actions.body["items"]) {
    if (a["kind"] == kind && a.value(kind == "Bind" ? "service" : "function", "") == owner) {
      return a;
    }
  }
  return json();
}

// Under archimedes a task that finds no room now is planned where the room will be: after the
// task ahead of it ends, on that node.
TEST(PlanViewTest, JobWaitingForRoomIsPlannedWithNodeAndStart) {
  TestServer server(PolicyConfig("archimedes"));
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("6")).status, 201);
  Advance(c, "1s");
  ASSERT_EQ(Call(c, "GET", "/v1/jobs/job-0").body["status"]["phase"], "Running");
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("4")).status, 201);
  Advance(c, "1s");

  Answer a = Call(c, "GET", "/v1/jobs/job-1");
  ASSERT_EQ(a.status, 200);
  const json status = a.body["status"];
  ASSERT_EQ(status["phase"], "Planned") << status.dump();
  // job-0's run (started in the cycle of second 0, estimated 10 minutes) holds the node until
  // 600 s, the start of the plan's third 5-minute bin.
  const int64_t start = status["plannedStart"];
  EXPECT_EQ(start, 600);
  ASSERT_EQ(status["planned"].size(), 1u);
  EXPECT_EQ(status["planned"][0]["node"], "n1");
  EXPECT_EQ(status["planned"][0]["end"], start + 600);

  a = Call(c, "GET", "/v1/jobs?phase=Planned");
  ASSERT_EQ(a.body["items"].size(), 1u) << a.body.dump();
  EXPECT_EQ(a.body["items"][0]["metadata"]["name"], "job-1");
  EXPECT_TRUE(Call(c, "GET", "/v1/jobs?phase=Queued").body["items"].empty());

  a = Call(c, "GET", "/v1/plan");
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.body["kind"], "Plan");
  EXPECT_EQ(a.body["time"], 2);
  ASSERT_EQ(a.body["items"].size(), 1u) << a.body.dump();
  EXPECT_EQ(a.body["items"][0], (json{{"job", "job-1"},
                                      {"node", "n1"},
                                      {"start", start},
                                      {"end", start + 600},
                                      {"late", false}}));
  EXPECT_EQ(Call(c, "GET", "/v1/plan?node=n1").body["items"].size(), 1u);
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody()).status, 201);
  EXPECT_TRUE(Call(c, "GET", "/v1/plan?node=n2").body["items"].empty());
  ExpectError(Call(c, "GET", "/v1/plan?node=n9"), 404, "NotFound", "");

  const std::string metrics = Call(c, "GET", "/metrics").body;
  EXPECT_NE(metrics.find("archimedes_jobs{phase=\"Planned\"} 1"), std::string::npos) << metrics;

  // The plan is the engine's: the journal's replay makes it again.
  const json plan = Call(c, "GET", "/v1/plan").body;
  server.Restart();
  EXPECT_EQ(Call(server.client(), "GET", "/v1/plan").body, plan);
  EXPECT_EQ(Call(server.client(), "GET", "/v1/jobs/job-1").body["status"]["phase"], "Planned");
}

TEST(PlanViewTest, PlannedJobLeavesThePlanOnceItStarts) {
  TestServer server(PolicyConfig("archimedes"));
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("6")).status, 201);
  Advance(c, "1s");
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("4")).status, 201);
  Advance(c, "1s");
  ASSERT_EQ(Call(c, "GET", "/v1/jobs/job-1").body["status"]["phase"], "Planned");
  // job-0's task ends early: its room goes to job-1 at once.
  const json start = FirstAction(c, "StartTask", "transcode");
  ASSERT_EQ(start["job"], "job-0");
  const std::string task = start["container"];
  ASSERT_EQ(
      Call(c, "POST", "/v1/containers/" + task + "/status", R"({"phase":"Succeeded"})").status,
      200);
  Advance(c, "1s");
  const Answer a = Call(c, "GET", "/v1/jobs/job-1");
  EXPECT_EQ(a.body["status"]["phase"], "Running") << a.body.dump();
  EXPECT_FALSE(a.body["status"].contains("planned"));
  EXPECT_TRUE(Call(c, "GET", "/v1/plan").body["items"].empty());
}

// Without a planner no job is ever Planned, and the plan is empty.
TEST(PlanViewTest, PolicyWithoutPlannerPlansNothing) {
  TestServer server;  // k8s-default
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("6")).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("4")).status, 201);
  Advance(c, "1s");
  EXPECT_EQ(Call(c, "GET", "/v1/jobs/job-1").body["status"]["phase"], "Queued");
  EXPECT_TRUE(Call(c, "GET", "/v1/jobs?phase=Planned").body["items"].empty());
  const Answer a = Call(c, "GET", "/v1/plan");
  ASSERT_EQ(a.status, 200);
  EXPECT_TRUE(a.body["items"].empty());
}

std::string ServiceBody(int replicas) {
  return json{{"spec",
               {{"replicas", replicas},
                {"requests", {{"cpu", "1"}, {"memory", "1Gi"}}},
                {"sla", {{"availability", 0.99}}},
                {"startup", "30s"}}}}
      .dump();
}

TEST(SlaViewTest, ReportsEveryContractWithTargetAchievedAndBreaches) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(2)).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", OfflineJob("5")).status, 201);
  json late = json::parse(OfflineJob("2"));
  late["spec"]["delayTolerance"] = "1m";
  late["spec"]["function"] = "thumbnails";
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", late.dump()).status, 201);
  Advance(c, "1s");  // web's replicas and job-0 start at 1 s; job-1 finds no room

  // A replica OOM-killed at 100 s is replaced in the next cycle and serves 30 s later.
  Advance(c, "99s");
  const json replica = FirstAction(c, "Bind", "web");
  ASSERT_TRUE(replica.is_object());
  ASSERT_EQ(Call(c, "POST", "/v1/containers/" + replica["container"].get<std::string>() + "/status",
                 R"({"phase":"OOMKilled","exitCode":137})")
                .status,
            200);
  // job-0 finishes at 120 s: job-1 starts at 121 s, 2 minutes after its submission.
  Advance(c, "20s");
  const json task = FirstAction(c, "StartTask", "transcode");
  ASSERT_TRUE(task.is_object());
  ASSERT_EQ(Call(c, "POST", "/v1/containers/" + task["container"].get<std::string>() + "/status",
                 R"({"phase":"Succeeded","exitCode":0})")
                .status,
            200);
  Advance(c, "80s");  // now 200 s

  Answer a = Call(c, "GET", "/v1/sla");
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["kind"], "SlaReport");
  EXPECT_EQ(a.body["time"], 200);
  const json& items = a.body["items"];
  ASSERT_EQ(items.size(), 3u) << a.body.dump();
  const json& web = items[0];
  EXPECT_EQ(web["kind"], "Service");
  EXPECT_EQ(web["name"], "web");
  EXPECT_EQ(web["target"], (json{{"availability", 0.99}, {"minAvailable", 0}}));
  // 2 × 200 replica-seconds desired; the rollout serves from its placement (the cycle of second
  // 0); the replacement, placed in the cycle of second 100, starts up until 130.
  const double achieved = web["achieved"]["availability"];
  EXPECT_NEAR(achieved, (400.0 - 30) / 400.0, 1e-9) << web.dump();
  EXPECT_FALSE(web["honoured"]);
  EXPECT_EQ(
      web["breaches"],
      (json::array({{{"start", 100}, {"end", 130}, {"reason", "unavailable (OOM-killed)"}}})));

  EXPECT_EQ(items[1]["kind"], "Job");
  EXPECT_EQ(items[1]["name"], "job-0");
  EXPECT_TRUE(items[1]["honoured"]);
  EXPECT_EQ(items[1]["target"]["delayTolerance"], "2h");
  const json& job1 = items[2];
  EXPECT_EQ(job1["name"], "job-1");
  EXPECT_EQ(job1["target"]["delayTolerance"], "1m");
  EXPECT_EQ(job1["achieved"]["longestWait"], "2m");
  EXPECT_FALSE(job1["honoured"]);
  EXPECT_EQ(job1["breaches"],
            (json::array({{{"start", 120}, {"end", 120}, {"reason", "started late"}}})));

  EXPECT_EQ(Call(c, "GET", "/v1/sla?kind=job").body["items"].size(), 2u);
  EXPECT_EQ(Call(c, "GET", "/v1/sla?kind=service").body["items"].size(), 1u);
  ExpectError(Call(c, "GET", "/v1/sla?kind=pods"), 400, "BadRequest", "kind");
  const std::string metrics = Call(c, "GET", "/metrics").body;
  EXPECT_NE(metrics.find("archimedes_sla_contracts{kind=\"job\",state=\"broken\"} 1"),
            std::string::npos)
      << metrics;

  // The record is the engine's: replaying the journal makes it again.
  const json report = Call(c, "GET", "/v1/sla").body;
  server.Restart();
  EXPECT_EQ(Call(server.client(), "GET", "/v1/sla").body, report);
}

void ReportUsage(httplib::Client& c, const std::string& container, const std::string& cpu) {
  const std::string body =
      json{
          {"samples", {{{"container", container}, {"usage", {{"cpu", cpu}, {"memory", "512Mi"}}}}}}}
          .dump();
  const Answer a = Call(c, "POST", "/v1/usage", body);
  ASSERT_EQ(a.status, 200) << a.body.dump();
}

// A node's status.usage (the dashboard's heat map) is the sum of what its containers last reported.
TEST(NodeUsageViewTest, SumsTheUsageItsContainersLastReported) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(2)).status, 201);
  Advance(c, "1s");
  Answer node = Call(c, "GET", "/v1/nodes/n1");
  EXPECT_EQ(node.body["status"]["usage"], json::object()) << "nothing reported yet";
  const json replicas = Call(c, "GET", "/v1/services/web").body["status"]["replicas"];
  ASSERT_EQ(replicas.size(), 2U);
  ReportUsage(c, replicas[0]["name"], "300m");
  ReportUsage(c, replicas[1]["name"], "200m");
  ReportUsage(c, replicas[1]["name"], "250m");  // the latest sample counts
  node = Call(c, "GET", "/v1/nodes/n1");
  EXPECT_EQ(node.body["status"]["usage"], (json{{"cpu", "550m"}, {"memory", "1Gi"}}))
      << node.body.dump();
}

TEST(ProfileViewTest, LearnsFromReportedUsageAndAdvisesARightSize) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  Answer a = Call(c, "GET", "/v1/profiles");
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["kind"], "ProfileList");
  EXPECT_TRUE(a.body["applications"].empty());

  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1)).status, 201);
  Advance(c, "1s");
  const std::string replica = FirstAction(c, "Bind", "web")["container"];
  // An hour of samples, one a minute: the replica uses 300m of the 1 CPU it requests.
  for (int minute = 0; minute < 60; ++minute) {
    ReportUsage(c, replica, "300m");
    Advance(c, "1m");
  }
  a = Call(c, "GET", "/v1/profiles");
  ASSERT_EQ(a.body["applications"].size(), 1u) << a.body.dump();
  const json web = a.body["applications"][0];
  EXPECT_EQ(web["app"], "web");
  EXPECT_EQ(web["samples"], 60);
  EXPECT_EQ(web["containers"], 1);
  EXPECT_EQ(web["request"]["cpu"], 1000);
  EXPECT_NEAR(web["peak"]["cpu"].get<double>(), 300, 1e-6);
  const double advice = web["recommended"]["cpu"];
  EXPECT_GE(advice, 300);
  EXPECT_LT(advice, 1000);
  EXPECT_EQ(web["mean"]["cpu"].size(), a.body["bins"].get<size_t>());
  EXPECT_EQ(a.body["samples"], 60);
  const int64_t built = a.body["builtAt"];

  a = Call(c, "GET", "/v1/profiles/web");
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["kind"], "Profile");
  EXPECT_EQ(a.body["application"], web);
  EXPECT_EQ(a.body["class"]["id"], web["class"]);
  EXPECT_TRUE(a.body["warnings"].is_array());
  ExpectError(Call(c, "GET", "/v1/profiles/payments"), 404, "NotFound", "");

  // Rebuilt at most once per usage round: a sample now shows a round later.
  ReportUsage(c, replica, "400m");
  EXPECT_EQ(Call(c, "GET", "/v1/profiles").body["samples"], 60);
  Advance(c, "1m");
  a = Call(c, "GET", "/v1/profiles");
  EXPECT_EQ(a.body["samples"], 61);
  EXPECT_EQ(a.body["builtAt"], built + 60);

  // Learned from the journal's usage: a restart learns the same.
  const json before = a.body["applications"];
  server.Restart();
  a = Call(server.client(), "GET", "/v1/profiles");
  EXPECT_EQ(a.body["samples"], 61);
  EXPECT_EQ(a.body["applications"], before);
}

}  // namespace
}  // namespace archimedes
