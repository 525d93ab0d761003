// A node's failure and recovery through its status subresource, over real HTTP on loopback: the
// failed node's replicas are placed again most important first (evicting less important ones by
// the SLA order, whose key each eviction carries), its tasks wait again, its agent is told what
// it lost; a recovered node takes containers again; all of it survives a restart. Bad input
// changes nothing.
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

std::string NodeBody(const std::string& cpu) {
  return json{{"spec", {{"capacity", {{"cpu", cpu}, {"memory", "16Gi"}}}}}}.dump();
}

std::string ServiceBody(int priority, const std::string& cpu) {
  return json{
      {"spec",
       {{"replicas", 1}, {"requests", {{"cpu", cpu}, {"memory", "1Gi"}}}, {"priority", priority}}}}
      .dump();
}

std::string JobBody() {
  return json{{"spec",
               {{"kind", "offline"},
                {"function", "resize-images"},
                {"tasks", 1},
                {"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}},
                {"durationEstimate", "10m"},
                {"delayTolerance", "1h"}}}}
      .dump();
}

std::string Condition(const std::string& condition) {
  return json{{"status", {{"condition", condition}}}}.dump();
}

void Advance(httplib::Client& c, const std::string& by) {
  const Answer a = Call(c, "POST", "/v1/clock", json{{"advance", by}}.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
}

json Actions(httplib::Client& c, const std::string& node) {
  const Answer a = Call(c, "GET", "/v1/nodes/" + node + "/actions");
  EXPECT_EQ(a.status, 200) << a.body.dump();
  return a.body["items"];
}

json Replicas(httplib::Client& c, const std::string& service) {
  return Call(c, "GET", "/v1/services/" + service).body["status"]["replicas"];
}

TEST(NodeFailureTest, ReplicasArePlacedAgainMostImportantFirstAndRecoveryTakesThemBack) {
  TestServer server;
  httplib::Client& c = server.client();
  // "high" lands on n1, the only node; then "low" on n2.
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody("4")).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/high", ServiceBody(100, "3")).status, 201);
  Advance(c, "1s");
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody("4")).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/low", ServiceBody(0, "3")).status, 201);
  Advance(c, "1s");
  ASSERT_EQ(Replicas(c, "high")[0]["node"], "n1");
  const json low = Replicas(c, "low")[0];
  ASSERT_EQ(low["node"], "n2");
  const std::string high_container = Replicas(c, "high")[0]["name"];

  Answer a = Call(c, "PUT", "/v1/nodes/n1/status", Condition("NotReady"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["status"]["condition"], "NotReady");
  EXPECT_EQ(a.body["status"]["containers"], 0);
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/n1/status").body, a.body);
  // n1's agent is told what it lost, in its action feed.
  const json lost = Actions(c, "n1").back();
  EXPECT_EQ(lost["kind"], "Evict");
  EXPECT_EQ(lost["reason"], "NodeFailed");
  EXPECT_FALSE(lost.contains("sla")) << lost;  // no SLA order chose it
  EXPECT_EQ(lost["container"], high_container);
  EXPECT_EQ(lost["service"], "high");
  ExpectError(
      Call(c, "POST", "/v1/containers/" + high_container + "/status", R"({"phase":"Running"})"),
      404, "NotFound", "");

  // The next cycle places "high" again; only n2 is left, so "low" is preempted, and its eviction
  // carries the SLA key that made it the victim.
  Advance(c, "1s");
  EXPECT_EQ(Replicas(c, "high")[0]["node"], "n2");
  EXPECT_TRUE(Replicas(c, "low").empty());
  json evict;
  for (const json& action : Actions(c, "n2")) {
    if (action["kind"] == "Evict") evict = action;
  }
  ASSERT_FALSE(evict.is_null()) << Actions(c, "n2").dump();
  EXPECT_EQ(evict["reason"], "Preemption");
  EXPECT_EQ(evict["container"], low["name"]);
  EXPECT_EQ(evict["sla"],
            (json{{"kind", "Service"}, {"priority", 0}, {"loss", 1.0}, {"startTime", 1}}));

  // Recovered, n1 takes containers again: "low" goes there.
  a = Call(c, "PUT", "/v1/nodes/n1/status", Condition("Ready"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["status"]["condition"], "Ready");
  Advance(c, "15s");  // past the preempted service's backoff
  ASSERT_EQ(Replicas(c, "low").size(), 1u);
  EXPECT_EQ(Replicas(c, "low")[0]["node"], "n1");

  // A restart rebuilds the same nodes, services and actions, numbers included.
  const json nodes = Call(c, "GET", "/v1/nodes").body;
  const json services = Call(c, "GET", "/v1/services").body;
  const json actions = Call(c, "GET", "/v1/actions").body;
  server.Restart();
  httplib::Client& after = server.client();
  EXPECT_EQ(Call(after, "GET", "/v1/nodes").body, nodes);
  EXPECT_EQ(Call(after, "GET", "/v1/services").body, services);
  EXPECT_EQ(Call(after, "GET", "/v1/actions").body, actions);
}

TEST(NodeFailureTest, TasksOfAFailedNodeWaitAgainAndStartElsewhere) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody("4")).status, 201);
  ASSERT_EQ(Call(c, "POST", "/v1/jobs", JobBody()).status, 201);
  Advance(c, "1s");
  const json started = Actions(c, "n1").back();
  ASSERT_EQ(started["kind"], "StartTask");
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody("4")).status, 201);

  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1/status", Condition("NotReady")).status, 200);
  json job = Call(c, "GET", "/v1/jobs/job-0").body["status"];
  EXPECT_EQ(job["phase"], "Queued");
  EXPECT_EQ(job["tasks"]["pending"], 1);
  EXPECT_EQ(job["tasks"]["running"], 0);
  const json lost = Actions(c, "n1").back();
  EXPECT_EQ(lost["reason"], "NodeFailed");
  EXPECT_EQ(lost["container"], started["container"]);
  EXPECT_EQ(lost["job"], "job-0");

  Advance(c, "1s");
  const json restarted = Actions(c, "n2").back();
  EXPECT_EQ(restarted["kind"], "StartTask");
  EXPECT_EQ(restarted["job"], "job-0");
  EXPECT_FALSE(restarted["engine"]["firstStart"]);
  job = Call(c, "GET", "/v1/jobs/job-0").body["status"];
  EXPECT_EQ(job["phase"], "Running");
  EXPECT_EQ(job["tasks"]["everStarted"], 1);
}

TEST(NodeFailureTest, BadStatusRequestsChangeNothing) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody("4")).status, 201);
  const json before = Call(c, "GET", "/v1/nodes/n1").body;
  const std::string version = before["metadata"]["resourceVersion"];

  ExpectError(Call(c, "PUT", "/v1/nodes/n9/status", Condition("NotReady")), 404, "NotFound", "");
  ExpectError(Call(c, "GET", "/v1/nodes/n9/status"), 404, "NotFound", "");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", "{\"status\": "), 400, "BadRequest", "");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", Condition("Down")), 400, "BadRequest",
              "status.condition");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", R"({"status":{"condition":false}})"), 400,
              "BadRequest", "status.condition");
  // A missing key is named by the object that lacks it.
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", R"({"status":{}})"), 400, "BadRequest",
              "status");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", R"({"spec":{}})"), 400, "BadRequest", "");
  ExpectError(
      Call(c, "PUT", "/v1/nodes/n1/status", R"({"status":{"condition":"NotReady","colour":1}})"),
      400, "BadRequest", "status.colour");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", Condition("Removed")), 422, "Invalid",
              "status.condition");
  ExpectError(
      Call(c, "PUT", "/v1/nodes/n1/status",
           json{{"metadata", {{"resourceVersion", "999"}}}, {"status", {{"condition", "NotReady"}}}}
               .dump()),
      409, "Conflict", "metadata.resourceVersion");
  ExpectError(
      Call(c, "PUT", "/v1/nodes/n1/status",
           json{{"metadata", {{"name", "n2"}}}, {"status", {{"condition", "NotReady"}}}}.dump()),
      400, "BadRequest", "metadata.name");
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/n1").body, before);

  // The condition it has already: nothing to do, nothing stored.
  Answer a = Call(c, "PUT", "/v1/nodes/n1/status", Condition("Ready"));
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, before);
  // A node read, changed and sent back as a whole is accepted (its spec is ignored).
  json node = before;
  node["status"]["condition"] = "NotReady";
  node["spec"]["capacity"]["cpu"] = "64";
  a = Call(c, "PUT", "/v1/nodes/n1/status", node.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["status"]["condition"], "NotReady");
  EXPECT_EQ(a.body["spec"]["capacity"]["cpu"], "4");
  EXPECT_NE(a.body["metadata"]["resourceVersion"], version);

  // A removed node has no status to set.
  ASSERT_EQ(Call(c, "DELETE", "/v1/nodes/n1").status, 200);
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", Condition("Ready")), 404, "NotFound", "");
}

}  // namespace
}  // namespace archimedes
