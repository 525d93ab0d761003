// Every route through real HTTP on loopback, with good input and with bad: each bad request gets
// the one error shape with its code, reason and field, and changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "profile/profiler.h"
#include "trace/profile_file.h"

#include "server/api_call.h"
#include "server/sqlite_journal.h"
#include "server/test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::Call;
using testing::ExpectError;
using testing::TestServer;

std::string NodeBody(const std::string& cpu = "8", const std::string& memory = "32Gi") {
  return json{{"spec", {{"capacity", {{"cpu", cpu}, {"memory", memory}}}, {"zone", "a"}}}}.dump();
}

std::string ServiceBody(int replicas, const std::string& cpu = "1") {
  return json{{"spec",
               {{"replicas", replicas},
                {"requests", {{"cpu", cpu}, {"memory", "1Gi"}}},
                {"limits", {{"memory", "2Gi"}}},
                {"qos", "Burstable"}}}}
      .dump();
}

std::string JobBody(int tasks = 2, const std::string& cpu = "500m") {
  return json{{"spec",
               {{"kind", "offline"},
                {"function", "resize-images"},
                {"tasks", tasks},
                {"requests", {{"cpu", cpu}, {"memory", "256Mi"}}},
                {"durationEstimate", "10m"},
                {"delayTolerance", "1h"}}}}
      .dump();
}

void Advance(httplib::Client& c, const std::string& by) {
  const Answer a = Call(c, "POST", "/v1/clock", json{{"advance", by}}.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
}

TEST(ApiTest, NodesRoundTripAndRejectBadInput) {
  TestServer server;
  httplib::Client& c = server.client();
  Answer a = Call(c, "PUT", "/v1/nodes/n1", NodeBody());
  ASSERT_EQ(a.status, 201) << a.body.dump();
  EXPECT_EQ(a.body["metadata"]["name"], "n1");
  EXPECT_EQ(a.body["spec"]["capacity"]["memory"], "32Gi");
  EXPECT_EQ(a.body["status"]["condition"], "Ready");
  const std::string version = a.body["metadata"]["resourceVersion"];

  // The same spec again changes nothing; labels may change.
  EXPECT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 200);
  json relabel = json::parse(NodeBody());
  relabel["metadata"] = {{"labels", {{"disk", "ssd"}}}, {"resourceVersion", version}};
  a = Call(c, "PUT", "/v1/nodes/n1", relabel.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["metadata"]["labels"]["disk"], "ssd");
  EXPECT_NE(a.body["metadata"]["resourceVersion"], version);
  // A write based on the version read before is refused.
  relabel["metadata"]["labels"]["disk"] = "hdd";
  ExpectError(Call(c, "PUT", "/v1/nodes/n1", relabel.dump()), 409, "Conflict",
              "metadata.resourceVersion");

  ExpectError(Call(c, "PUT", "/v1/nodes/n1", "{\"spec\": "), 400, "BadRequest", "");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", R"({"spec":{"capacty":{"cpu":"1"}}})"), 400,
              "BadRequest", "spec");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2",
                   R"({"spec":{"capacity":{"cpu":"1","memory":"1Gi"},"colour":"red"}})"),
              400, "BadRequest", "spec.colour");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", R"({"spec":{"capacity":{"cpu":true}}})"), 400,
              "BadRequest", "spec.capacity.cpu");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", NodeBody("8x")), 400, "BadRequest",
              "spec.capacity.cpu");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", NodeBody("-1")), 400, "BadRequest",
              "spec.capacity.cpu");
  ExpectError(Call(c, "PUT", "/v1/nodes/Bad_Name", NodeBody()), 400, "BadRequest", "metadata.name");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", R"({"metadata":{"name":"n3"},"spec":{}})"), 400,
              "BadRequest", "metadata.name");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1", NodeBody("16")), 422, "Invalid", "spec");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", R"({"spec":{"capacity":{"cpu":"1"},
              "allocatable":{"cpu":"2","memory":"1Gi"}}})"),
              422, "Invalid", "spec.capacity");
  ExpectError(Call(c, "GET", "/v1/nodes/n2"), 404, "NotFound", "");
  ExpectError(Call(c, "DELETE", "/v1/nodes/n2"), 404, "NotFound", "");

  // Nothing of the bad requests stuck.
  a = Call(c, "GET", "/v1/nodes");
  ASSERT_EQ(a.body["items"].size(), 1u);
  EXPECT_EQ(a.body["items"][0]["metadata"]["labels"]["disk"], "ssd");
  EXPECT_EQ(a.body["items"][0]["spec"]["capacity"]["cpu"], "8");

  ASSERT_EQ(Call(c, "DELETE", "/v1/nodes/n1").status, 200);
  ExpectError(Call(c, "GET", "/v1/nodes/n1"), 404, "NotFound", "");
  EXPECT_TRUE(Call(c, "GET", "/v1/nodes").body["items"].empty());
}

TEST(ApiTest, ServicesArePlacedScaledAndGuarded) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody()).status, 201);
  Answer a = Call(c, "PUT", "/v1/services/web", ServiceBody(3));
  ASSERT_EQ(a.status, 201) << a.body.dump();
  Advance(c, "2s");
  a = Call(c, "GET", "/v1/services/web");
  ASSERT_EQ(a.status, 200);
  ASSERT_EQ(a.body["status"]["replicas"].size(), 3u) << a.body.dump();
  for (const json& r : a.body["status"]["replicas"]) {
    EXPECT_TRUE(r["node"] == "n1" || r["node"] == "n2") << r.dump();
    EXPECT_EQ(r["state"], "Starting");
  }
  const std::string version = a.body["metadata"]["resourceVersion"];

  json scale = json::parse(ServiceBody(1));
  scale["metadata"] = {{"resourceVersion", version}};
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", scale.dump()).status, 200);
  Advance(c, "1s");
  EXPECT_EQ(Call(c, "GET", "/v1/services/web").body["status"]["replicas"].size(), 1u);
  ExpectError(Call(c, "PUT", "/v1/services/web", scale.dump()), 409, "Conflict",
              "metadata.resourceVersion");
  ExpectError(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "2")), 422, "Invalid", "spec");
  ExpectError(
      Call(c, "PUT", "/v1/services/api",
           R"({"spec":{"replicas":1,"requests":{"memory":"4Gi"},"limits":{"memory":"1Gi"}}})"),
      422, "Invalid", "spec.limits.memory");
  ExpectError(Call(c, "PUT", "/v1/services/api", R"({"spec":{"replicas":-1,"requests":{}}})"), 400,
              "BadRequest", "spec.replicas");
  ExpectError(Call(c, "PUT", "/v1/services/api", R"({"spec":{"replicas":1,"requests":{},
              "qos":"Gold"}})"),
              400, "BadRequest", "spec.qos");
  ExpectError(Call(c, "PUT", "/v1/services/api", R"({"spec":{"replicas":1}})"), 400, "BadRequest",
              "spec");
  ExpectError(Call(c, "PUT", "/v1/services/a.b", ServiceBody(1)), 400, "BadRequest",
              "metadata.name");
  ExpectError(Call(c, "GET", "/v1/services/api"), 404, "NotFound", "");
  ExpectError(Call(c, "DELETE", "/v1/services/api"), 404, "NotFound", "");
  EXPECT_EQ(Call(c, "GET", "/v1/services").body["items"].size(), 1u);

  ASSERT_EQ(Call(c, "DELETE", "/v1/services/web").status, 200);
  ExpectError(Call(c, "GET", "/v1/services/web"), 404, "NotFound", "");
}

TEST(ApiTest, JobsAreSubmittedOnceCancelledAndGuarded) {
  TestServer server;
  httplib::Client& c = server.client();
  ExpectError(Call(c, "POST", "/v1/jobs", JobBody()), 422, "Invalid", "spec.requests");
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  const httplib::Headers key = {{"Idempotency-Key", "batch-7"}};
  Answer a = Call(c, "POST", "/v1/jobs", JobBody(), key);
  ASSERT_EQ(a.status, 201) << a.body.dump();
  const std::string name = a.body["metadata"]["name"];
  EXPECT_EQ(a.body["status"]["phase"], "Queued");
  // A retry is the same job, never a second one; the same key for another job is refused.
  a = Call(c, "POST", "/v1/jobs", JobBody(), key);
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body["metadata"]["name"], name);
  ExpectError(Call(c, "POST", "/v1/jobs", JobBody(3), key), 409, "Conflict", "Idempotency-Key");
  EXPECT_EQ(Call(c, "GET", "/v1/jobs").body["items"].size(), 1u);

  Advance(c, "2s");
  a = Call(c, "GET", "/v1/jobs/" + name);
  EXPECT_EQ(a.body["status"]["phase"], "Running") << a.body.dump();
  EXPECT_EQ(a.body["status"]["tasks"]["running"], 2);
  EXPECT_EQ(Call(c, "GET", "/v1/jobs?phase=Running").body["items"].size(), 1u);
  EXPECT_TRUE(Call(c, "GET", "/v1/jobs?phase=Queued").body["items"].empty());
  ExpectError(Call(c, "GET", "/v1/jobs?phase=Sleeping"), 400, "BadRequest", "phase");

  ExpectError(Call(c, "POST", "/v1/jobs", JobBody(2, "64")), 422, "Invalid", "spec.requests");
  ExpectError(Call(c, "POST", "/v1/jobs", R"({"spec":{"kind":"nightly"}})"), 400, "BadRequest",
              "spec.kind");
  ExpectError(Call(c, "POST", "/v1/jobs",
                   R"({"spec":{"kind":"offline","tasks":1,"requests":{"cpu":"1"},
                   "durationEstimate":"10 minutes"}})"),
              400, "BadRequest", "spec.durationEstimate");
  ExpectError(Call(c, "POST", "/v1/jobs",
                   R"({"spec":{"kind":"offline","tasks":1,"requests":{"cpu":"1"},
                   "durationEstimate":"1m","deadline":"1h"}})"),
              400, "BadRequest", "spec.deadline");
  ExpectError(Call(c, "POST", "/v1/jobs", JobBody(), {{"Idempotency-Key", std::string(300, 'k')}}),
              400, "BadRequest", "Idempotency-Key");
  ExpectError(Call(c, "GET", "/v1/jobs/job-99"), 404, "NotFound", "");
  ExpectError(Call(c, "GET", "/v1/jobs/nonsense"), 404, "NotFound", "");
  ExpectError(Call(c, "DELETE", "/v1/jobs/job-99"), 404, "NotFound", "");
  EXPECT_EQ(Call(c, "GET", "/v1/jobs").body["items"].size(), 1u);

  a = Call(c, "DELETE", "/v1/jobs/" + name);
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["status"]["phase"], "Failed");
  EXPECT_EQ(a.body["status"]["reason"], "Cancelled");
}

TEST(ApiTest, AgentsLongPollActionsAndReportStatusAndUsage) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", JobBody(1)).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1)).status, 201);
  Advance(c, "1s");
  Answer a = Call(c, "GET", "/v1/nodes/n1/actions?after=0&wait=5s");
  ASSERT_EQ(a.status, 200) << a.body.dump();
  ASSERT_EQ(a.body["items"].size(), 2u) << a.body.dump();
  const json bind = a.body["items"][0];
  const json start = a.body["items"][1];
  EXPECT_EQ(bind["kind"], "Bind");
  EXPECT_EQ(bind["service"], "web");
  EXPECT_EQ(start["kind"], "StartTask");
  EXPECT_EQ(start["function"], "resize-images");
  EXPECT_LT(bind["seq"].get<int64_t>(), start["seq"].get<int64_t>());
  const int64_t last = start["seq"];

  // Nothing newer: an immediate answer without wait, an empty one after the wait.
  EXPECT_TRUE(
      Call(c, "GET", "/v1/nodes/n1/actions?after=" + std::to_string(last)).body["items"].empty());
  const auto before = std::chrono::steady_clock::now();
  a = Call(c, "GET", "/v1/nodes/n1/actions?after=" + std::to_string(last) + "&wait=1s");
  EXPECT_TRUE(a.body["items"].empty());
  EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(900));
  // A waiting poll is answered as soon as an action for its node comes.
  std::thread poller([&] {
    httplib::Client agent("127.0.0.1", server.port());
    agent.set_read_timeout(std::chrono::seconds(30));
    auto r = agent.Get("/v1/nodes/n1/actions?wait=20s&after=" + std::to_string(last));
    ASSERT_TRUE(r);
    const json page = json::parse(r->body);
    ASSERT_EQ(page["items"].size(), 1u) << page.dump();
    EXPECT_EQ(page["items"][0]["kind"], "Stop");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(Call(c, "DELETE", "/v1/jobs/job-0").status, 200);
  poller.join();

  ExpectError(Call(c, "GET", "/v1/nodes/n1/actions?after=-1"), 400, "BadRequest", "after");
  ExpectError(Call(c, "GET", "/v1/nodes/n1/actions?after=x"), 400, "BadRequest", "after");
  ExpectError(Call(c, "GET", "/v1/nodes/n1/actions?wait=2h"), 400, "BadRequest", "wait");
  ExpectError(Call(c, "GET", "/v1/nodes/n1/actions?wait=soon"), 400, "BadRequest", "wait");
  ExpectError(Call(c, "GET", "/v1/nodes/n9/actions"), 404, "NotFound", "");

  const std::string replica = bind["container"];
  a = Call(c, "POST", "/v1/containers/" + replica + "/status", R"({"phase":"Running"})");
  EXPECT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(Call(c, "GET", "/v1/services/web").body["status"]["replicas"][0]["state"], "Running");
  ExpectError(Call(c, "POST", "/v1/containers/" + replica + "/status", R"({"phase":"Done"})"), 400,
              "BadRequest", "phase");
  ExpectError(Call(c, "POST", "/v1/containers/" + replica + "/status", R"({"phase":"Succeeded"})"),
              422, "Invalid", "phase");
  ExpectError(Call(c, "POST", "/v1/containers/nobody-1/status", R"({"phase":"Running"})"), 404,
              "NotFound", "");
  // The stopped task is gone.
  ExpectError(Call(c, "POST", "/v1/containers/" + start["container"].get<std::string>() + "/status",
                   R"({"phase":"Succeeded"})"),
              404, "NotFound", "");

  const std::string usage =
      json{{"samples", {{{"container", replica}, {"usage", {{"cpu", "300m"}, {"memory", "1Gi"}}}}}}}
          .dump();
  EXPECT_EQ(Call(c, "POST", "/v1/usage", usage).status, 200);
  ExpectError(
      Call(c, "POST", "/v1/usage", R"({"samples":[{"container":"ghost-3","usage":{"cpu":"1"}}]})"),
      404, "NotFound", "samples[0].container");
  ExpectError(
      Call(c, "POST", "/v1/usage", R"({"samples":[{"container":"x","usage":{"cpu":"lots"}}]})"),
      400, "BadRequest", "samples[0].usage.cpu");
  ExpectError(Call(c, "POST", "/v1/usage", R"({"sample":[]})"), 400, "BadRequest", "");

  // A replica that fails is placed again under a new name.
  a = Call(c, "POST", "/v1/containers/" + replica + "/status",
           R"({"phase":"Failed","exitCode":1})");
  EXPECT_EQ(a.status, 200) << a.body.dump();
  Advance(c, "1s");
  a = Call(c, "GET", "/v1/services/web");
  ASSERT_EQ(a.body["status"]["replicas"].size(), 1u);
  EXPECT_NE(a.body["status"]["replicas"][0]["name"], replica);
}

TEST(ApiTest, DriveStepsTheEngineAndRefusesBadSteps) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", JobBody()).status, 201);
  Answer a = Call(c, "POST", "/v1/clock/drive", R"({"runThrough": 5, "stopAtAction": true})");
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.body["time"], 0);  // the first cycle starts the task, and the drive stops there
  ASSERT_GE(a.body["actions"].size(), 1u);
  const json start = a.body["actions"][0];
  EXPECT_EQ(start["kind"], "StartTask");
  EXPECT_EQ(start["engine"]["firstStart"], true);
  EXPECT_EQ(Call(c, "GET", "/v1/actions?after=0").body["items"][0], start);
  const std::string sample = R"({"container": ")" + start["container"].get<std::string>() +
                             R"(", "usage": [500, 1e8, 0, 0, 0], "workDone": 1})";
  ExpectError(Call(c, "POST", "/v1/clock/drive", R"({"usageRound": "end"})"), 409, "Conflict",
              "usageRound");
  ASSERT_EQ(Call(c, "POST", "/v1/clock/drive", R"({"usageRound": "begin", "samples": []})").status,
            200);
  ExpectError(Call(c, "POST", "/v1/clock", R"({"advance": "1s"})"), 409, "Conflict", "");
  ExpectError(Call(c, "POST", "/v1/clock/drive",
                   R"({"usageRound": "node", "node": "n1", "samples": [{"container": "x", )"
                   R"("usage": [1, 2, 0, 0, 0]}]})"),
              404, "NotFound", "samples[0].container");
  ExpectError(Call(c, "POST", "/v1/clock/drive",
                   R"({"usageRound": "node", "node": "n1", "samples": [{"container": "x", )"
                   R"("usage": [1]}]})"),
              400, "BadRequest", "samples[0].usage");
  ExpectError(Call(c, "POST", "/v1/clock/drive", R"({"usageRound": "later"})"), 400, "BadRequest",
              "usageRound");
  ASSERT_EQ(Call(c, "POST", "/v1/clock/drive",
                 R"({"usageRound": "node", "node": "n1", "samples": [)" + sample + "]}")
                .status,
            200);
  ASSERT_EQ(Call(c, "POST", "/v1/clock/drive", R"({"usageRound": "end"})").status, 200);
  ExpectError(Call(c, "POST", "/v1/clock/drive", R"({"advanceTo": -1})"), 400, "BadRequest",
              "advanceTo");
  ExpectError(Call(c, "POST", "/v1/clock/drive", R"({})"), 400, "BadRequest", "");
  a = Call(c, "POST", "/v1/clock/drive", R"({"advanceTo": 30})");
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.body["time"], 30);
  EXPECT_EQ(Call(c, "GET", "/v1/server").body["clock"], "virtual");
}

TEST(ApiTest, ClockHealthMetricsAndUnknownRoutes) {
  TestServer server;
  httplib::Client& c = server.client();
  EXPECT_EQ(Call(c, "GET", "/healthz").status, 200);
  EXPECT_EQ(Call(c, "GET", "/readyz").status, 200);
  Advance(c, "90s");
  EXPECT_EQ(Call(c, "GET", "/v1/clock").body["time"], 90);
  ASSERT_EQ(Call(c, "POST", "/v1/clock", R"({"time": 120})").status, 200);
  ExpectError(Call(c, "POST", "/v1/clock", R"({"time": 60})"), 400, "BadRequest", "time");
  ExpectError(Call(c, "POST", "/v1/clock", R"({"time": 60, "advance": "1s"})"), 400, "BadRequest",
              "");
  ExpectError(Call(c, "POST", "/v1/clock", R"({"advance": "-5s"})"), 400, "BadRequest", "advance");
  EXPECT_EQ(Call(c, "GET", "/v1/clock").body["time"], 120);

  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", JobBody()).status, 201);
  const Answer metrics = Call(c, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  const std::string text = metrics.body;
  for (const char* line :
       {"archimedes_jobs{phase=\"Queued\"} 1", "archimedes_queue_depth{kind=\"offline\"} 2",
        "archimedes_nodes_ready 1",
        "archimedes_http_requests_total{route=\"/v1/jobs\",method=\"POST\",code=\"201\"} 1",
        "archimedes_http_request_duration_seconds_bucket{route=\"/v1/nodes/{name}\",le=\"+Inf\"} 1",
        "archimedes_allocatable{dimension=\"cpu\"} 8000",
        "archimedes_utilisation_ratio{dimension=\"cpu\"} 0"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // With SQLite the one process always leads.
  const std::string leader =
      "archimedes_leader{replica=\"http://127.0.0.1:" + std::to_string(server.port()) + "\"} 1\n";
  EXPECT_NE(text.find(leader), std::string::npos) << leader << text;

  ExpectError(Call(c, "GET", "/v1/widgets"), 404, "NotFound", "");
  ExpectError(Call(c, "POST", "/v1/jobs", std::string(2 << 20, ' ')), 413, "RequestEntityTooLarge",
              "");
  EXPECT_EQ(Call(c, "GET", "/v1/jobs").body["items"].size(), 1u);
}

// A day of one replica of `app` using 200 millicores and 1 GiB, every minute: its profile.
ProfileSet QuietProfile(const std::string& app) {
  Profiler profiler;
  for (int64_t t = 0; t < 86400; t += 60) profiler.Add(t, app, app + "-0", {200, 1 << 30, 0, 0, 0});
  return profiler.Finish();
}

json PriorsBody(const ProfileSet& profiles) {
  return {{"profiles", ProfilesJson(profiles)},
          {"taskShapes",
           {{{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}, {"weight", 0.75}},
            {{"requests", {{"cpu", "4"}, {"memory", "8Gi"}}}, {"weight", 0.25}}}}};
}

// Tasks of `JobBody(2, "1")` running one second after a 3-core replica of "web" and the job came
// to one 4-core node under archimedes.
int RunningBesideWeb(TestServer& server) {
  httplib::Client& c = server.client();
  EXPECT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody("4", "16Gi")).status, 201);
  EXPECT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "3")).status, 201);
  EXPECT_EQ(Call(c, "POST", "/v1/jobs", JobBody(2, "1")).status, 201);
  Advance(c, "1s");
  return Call(c, "GET", "/v1/jobs/job-0").body["status"]["tasks"]["running"].get<int>();
}

// The engine places by the priors it is given: under archimedes a service that a profile shows
// using a fifteenth of its 3-core request leaves room for batch, which its request alone does not.
TEST(ApiTest, PriorsAreWhatTheEnginePlacesByAndSurviveARestart) {
  ServerConfig config = TestServer::VirtualConfig();
  config.policy = "archimedes";
  TestServer without(config);
  EXPECT_EQ(RunningBesideWeb(without), 0);

  TestServer server(config);
  httplib::Client* c = &server.client();
  const json none = Call(*c, "GET", "/v1/priors").body;
  EXPECT_TRUE(none["setAt"].is_null()) << none.dump();
  EXPECT_TRUE(none["source"].is_null());
  EXPECT_EQ(none["profiles"]["applications"], 0);
  EXPECT_TRUE(none["taskShapes"].empty());

  const json body = PriorsBody(QuietProfile("web"));
  const Answer set = Call(*c, "PUT", "/v1/priors", body.dump());
  ASSERT_EQ(set.status, 200) << set.body.dump();
  EXPECT_EQ(set.body["setAt"], 0);
  EXPECT_EQ(set.body["source"], "request");
  EXPECT_EQ(set.body["profiles"]["applications"], 1);
  EXPECT_EQ(set.body["taskShapes"], body["taskShapes"]);
  EXPECT_EQ(RunningBesideWeb(server), 2);

  // Bad input names its field and changes nothing.
  auto with = [&](const std::string& key, json value) {
    json bad = body;
    bad[key] = std::move(value);
    return bad.dump();
  };
  ExpectError(Call(*c, "PUT", "/v1/priors", "{"), 400, "BadRequest", "");
  ExpectError(Call(*c, "PUT", "/v1/priors", with("taskShape", json::array())), 400, "BadRequest",
              "taskShape");
  ExpectError(Call(*c, "PUT", "/v1/priors",
                   with("taskShapes", {{{"requests", {{"cpu", "1"}}}, {"weight", 0.5}}})),
              400, "BadRequest", "taskShapes");
  ExpectError(Call(*c, "PUT", "/v1/priors",
                   with("taskShapes", {{{"requests", {{"cpu", "1"}}}, {"weight", 0}}})),
              400, "BadRequest", "taskShapes[0].weight");
  ExpectError(Call(*c, "PUT", "/v1/priors",
                   with("taskShapes", {{{"requests", json::object()}, {"weight", 1}}})),
              400, "BadRequest", "taskShapes[0].requests");
  ExpectError(Call(*c, "PUT", "/v1/priors",
                   with("taskShapes", {{{"requests", {{"cpu", "1"}}}, {"weight", 0.5}},
                                       {{"requests", {{"cpu", "1"}}}, {"weight", 0.5}}})),
              400, "BadRequest", "taskShapes[1].requests");
  json wrong_format = body;
  wrong_format["profiles"]["format"] = "profiles";
  ExpectError(Call(*c, "PUT", "/v1/priors", wrong_format.dump()), 400, "BadRequest",
              "profiles.format");
  EXPECT_EQ(Call(*c, "GET", "/v1/priors").body, set.body);

  // A profiles file is larger than any other request: its route takes up to max-priors-body.
  const Answer spaces = Call(*c, "PUT", "/v1/priors", std::string(2 << 20, ' '));
  EXPECT_EQ(spaces.status, 400) << spaces.body.dump();

  server.Restart();
  c = &server.client();
  EXPECT_EQ(Call(*c, "GET", "/v1/priors").body, set.body);
  EXPECT_EQ(Call(*c, "GET", "/v1/jobs/job-0").body["status"]["tasks"]["running"], 2);
}

// A replica that uses a fifteenth of its 3-core request, reported every minute for an hour: then
// a job of two one-core tasks beside it on a 4-core node. Returns its tasks running a second later
// (the same after a restart).
int RunningAfterAnHourOfUsage(int64_t adopt_profiles_s, json* priors) {
  ServerConfig config = TestServer::VirtualConfig();
  config.policy = "archimedes";
  config.adopt_profiles_s = adopt_profiles_s;
  TestServer server(config);
  httplib::Client& c = server.client();
  EXPECT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody("4", "16Gi")).status, 201);
  EXPECT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "3")).status, 201);
  Advance(c, "1s");
  const std::string replica =
      Call(c, "GET", "/v1/services/web").body["status"]["replicas"][0]["name"];
  const std::string usage =
      json{{"samples", {{{"container", replica}, {"usage", {{"cpu", "200m"}, {"memory", "1Gi"}}}}}}}
          .dump();
  for (int minute = 0; minute < 60; ++minute) {
    EXPECT_EQ(Call(c, "POST", "/v1/usage", usage).status, 200);
    Advance(c, "1m");
  }
  EXPECT_EQ(Call(c, "POST", "/v1/jobs", JobBody(2, "1")).status, 201);
  Advance(c, "1s");
  *priors = Call(c, "GET", "/v1/priors").body;
  const json job = Call(c, "GET", "/v1/jobs/job-0").body;
  // Replaying the journal adopts the same profiles at the same time.
  server.Restart();
  EXPECT_EQ(Call(server.client(), "GET", "/v1/priors").body, *priors);
  EXPECT_EQ(Call(server.client(), "GET", "/v1/jobs/job-0").body, job);
  return job["status"]["tasks"]["running"].get<int>();
}

TEST(ApiTest, TheEngineAdoptsTheProfilesItLearnsWhenAskedTo) {
  json priors;
  EXPECT_EQ(RunningAfterAnHourOfUsage(0, &priors), 0);
  EXPECT_TRUE(priors["source"].is_null()) << priors.dump();
  EXPECT_EQ(RunningAfterAnHourOfUsage(3600, &priors), 2);
  EXPECT_EQ(priors["source"], "learned");
  EXPECT_EQ(priors["setAt"], 3600);
  EXPECT_EQ(priors["profiles"]["applications"], 1);
  // The shapes asked for by then: web's replica alone (the job came later).
  EXPECT_EQ(priors["taskShapes"],
            json::parse(R"([{"requests":{"cpu":"3","memory":"1Gi"},"weight":1.0}])"));
}

TEST(ApiTest, EachRouteTakesBodiesUpToItsOwnLimit) {
  ServerConfig config = TestServer::VirtualConfig();
  config.max_priors_body_bytes = 64 << 10;
  TestServer server(config);
  httplib::Client& c = server.client();
  const Answer priors = Call(c, "PUT", "/v1/priors", std::string(100 << 10, ' '));
  ExpectError(priors, 413, "RequestEntityTooLarge", "");
  EXPECT_NE(priors.body["message"].get<std::string>().find("max-priors-body, 65536 bytes"),
            std::string::npos)
      << priors.body.dump();
  const Answer job = Call(c, "POST", "/v1/jobs", std::string(2 << 20, ' '));
  ExpectError(job, 413, "RequestEntityTooLarge", "");
  EXPECT_NE(job.body["message"].get<std::string>().find("max-body, 1048576 bytes"),
            std::string::npos)
      << job.body.dump();
  // curl -d sends a form-encoded body, which the HTTP library parses, and refuses above 8 KiB.
  httplib::Result form =
      c.Put("/v1/priors", std::string(9000, ' '), "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 413);
  EXPECT_NE(form->body.find("send it as application/json"), std::string::npos) << form->body;
  EXPECT_EQ(Call(c, "GET", "/v1/priors").body["profiles"]["applications"], 0);
}

TEST(ApiTest, WallClockMovesByItselfOnly) {
  ServerConfig config = TestServer::VirtualConfig();
  config.clock = ClockMode::kWall;
  TestServer server(config);
  ExpectError(Call(server.client(), "POST", "/v1/clock", R"({"advance":"1s"})"), 409, "Conflict",
              "");
  const auto wall = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  EXPECT_NEAR(Call(server.client(), "GET", "/v1/clock").body["time"].get<double>(),
              static_cast<double>(wall), 5);
}

TEST(ApiTest, RestartRestoresEverythingWithTheSameActionNumbers) {
  TestServer server;
  httplib::Client* c = &server.client();
  ASSERT_EQ(Call(*c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(*c, "PUT", "/v1/nodes/n2", NodeBody("4", "8Gi")).status, 201);
  ASSERT_EQ(Call(*c, "PUT", "/v1/services/web", ServiceBody(3)).status, 201);
  ASSERT_EQ(Call(*c, "POST", "/v1/jobs", JobBody(4), {{"Idempotency-Key", "k1"}}).status, 201);
  Advance(*c, "2s");
  ASSERT_EQ(Call(*c, "DELETE", "/v1/nodes/n2").status, 200);
  Advance(*c, "2s");
  const json nodes = Call(*c, "GET", "/v1/nodes").body;
  const json services = Call(*c, "GET", "/v1/services").body;
  const json jobs = Call(*c, "GET", "/v1/jobs").body;
  const json actions = Call(*c, "GET", "/v1/nodes/n1/actions").body;
  const json drained = Call(*c, "GET", "/v1/nodes/n2/actions").body;
  ASSERT_FALSE(actions["items"].empty());
  ASSERT_FALSE(drained["items"].empty());

  server.Restart();
  c = &server.client();
  EXPECT_EQ(Call(*c, "GET", "/v1/nodes").body, nodes);
  EXPECT_EQ(Call(*c, "GET", "/v1/services").body, services);
  EXPECT_EQ(Call(*c, "GET", "/v1/jobs").body, jobs);
  EXPECT_EQ(Call(*c, "GET", "/v1/nodes/n1/actions").body, actions);
  EXPECT_EQ(Call(*c, "GET", "/v1/nodes/n2/actions").body, drained);
  EXPECT_EQ(Call(*c, "GET", "/v1/clock").body["time"], 4);
  // The idempotency key survived too.
  EXPECT_EQ(Call(*c, "POST", "/v1/jobs", JobBody(4), {{"Idempotency-Key", "k1"}}).status, 200);
}

TEST(ApiTest, AJournalIsReplayedOnlyUnderItsOwnPolicy) {
  TestServer server;
  ServerConfig other = server.config();
  other.policy = "archimedes";
  try {
    ApiServer second(other);
    FAIL() << "opened a k8s-default journal under archimedes";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("policy k8s-default, not archimedes"), std::string::npos)
        << e.what();
  }
}

// A data folder written before profile adoption existed (no adopt-profiles setting) replays
// without adoption, and refuses to start with it.
TEST(ApiTest, AJournalOlderThanProfileAdoptionReplaysWithoutIt) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/journal.db";
  const JournalSettings old_settings = {{"policy", "archimedes"}, {"clock", "virtual"}};
  { const SqliteJournal written(path, old_settings); }  // closed again
  try {
    JournalSettings adopting = old_settings;
    adopting.emplace_back("adopt-profiles", "1h");
    SqliteJournal again(path, adopting);
    ADD_FAILURE() << "an older journal replayed with adoption";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("adopt-profiles 0s, not 1h"), std::string::npos)
        << e.what();
  }
  JournalSettings not_adopting = old_settings;
  not_adopting.emplace_back("adopt-profiles", "0s");
  SqliteJournal again(path, not_adopting);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace archimedes
