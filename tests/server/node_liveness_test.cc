// How a node's liveness reaches the engine, over real HTTP on loopback: the Suspect condition (one
// observer lost the node: what runs there stays, nothing new goes there), the agent's address
// MAGI probes, MAGI's quorum decisions in a real etcd turning a node NotReady and their clearing
// making it Ready, a silent agent making its node only Suspect under MAGI, and writes that reach a
// wall-clock server before its first tick.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "model/wall_clock.h"
#include "server/api_call.h"
#include "server/test_server.h"
#include "store/etcd_store.h"
#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::Call;
using testing::ExpectError;
using testing::TestServer;

std::string NodeBody(const std::string& address = "") {
  json spec = {{"capacity", {{"cpu", "4"}, {"memory", "16Gi"}}}};
  if (!address.empty()) spec["address"] = address;
  return json{{"spec", spec}}.dump();
}

std::string ServiceBody(int replicas, const std::string& cpu) {
  return json{{"spec", {{"replicas", replicas}, {"requests", {{"cpu", cpu}, {"memory", "1Gi"}}}}}}
      .dump();
}

std::string Condition(const std::string& condition) {
  return json{{"status", {{"condition", condition}}}}.dump();
}

std::string NodeCondition(httplib::Client& c, const std::string& node) {
  return Call(c, "GET", "/v1/nodes/" + node).body["status"].value("condition", "");
}

// How many replicas of `service` each node holds, as "n1=1,n2=2" (nodes without any left out).
std::string ReplicasPerNode(httplib::Client& c, const std::string& service) {
  std::map<std::string, int> per_node;
  const Answer answer = Call(c, "GET", "/v1/services/" + service);
  for (const json& r : answer.body["status"]["replicas"]) {
    ++per_node[r["node"].get<std::string>()];
  }
  std::string out;
  for (const auto& [node, count] : per_node) {
    out += (out.empty() ? "" : ",") + node + "=" + std::to_string(count);
  }
  return out;
}

void Advance(httplib::Client& c) {
  const Answer a = Call(c, "POST", "/v1/clock", json{{"advance", "1s"}}.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
}

double Metric(httplib::Client& c, const std::string& sample) {
  const std::string body = Call(c, "GET", "/metrics").body.get<std::string>();
  const size_t at = body.find("\n" + sample + " ");
  return at == std::string::npos ? -1 : std::stod(body.substr(at + sample.size() + 2));
}

// Waits up to `seconds` for `done`.
bool WaitFor(const std::function<bool()>& done, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

TEST(NodeConditionTest, ASuspectNodeKeepsWhatRunsThereAndTakesNothingNew) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "1")).status, 201);
  Advance(c);
  ASSERT_EQ(ReplicasPerNode(c, "web"), "n1=1");

  Answer a = Call(c, "PUT", "/v1/nodes/n1/status", Condition("Suspect"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["status"]["condition"], "Suspect");
  EXPECT_EQ(a.body["status"]["containers"], 1);
  EXPECT_EQ(Metric(c, "archimedes_nodes{condition=\"Suspect\"}"), 1);
  EXPECT_EQ(Metric(c, "archimedes_nodes{condition=\"Ready\"}"), 0);

  // New replicas wait rather than go to the suspect node, and take the next node that comes.
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(3, "1")).status, 200);
  Advance(c);
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n1=1");
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody()).status, 201);
  Advance(c);
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n1=1,n2=2");

  // A reason given with the condition is shown; a new reason alone is a change like any other.
  const std::string why =
      json{{"status", {{"condition", "Suspect"}, {"reason", "rack 3 flaps"}}}}.dump();
  a = Call(c, "PUT", "/v1/nodes/n1/status", why);
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["status"]["reason"], "rack 3 flaps");
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n1=1,n2=2");
  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status",
                   json{{"status", {{"condition", "Suspect"}, {"reason", 3}}}}.dump()),
              400, "BadRequest", "status.reason");

  // It stays Suspect across a restart: the condition is an event like any other.
  server.Restart();
  EXPECT_EQ(NodeCondition(server.client(), "n1"), "Suspect");
  EXPECT_EQ(Call(server.client(), "GET", "/v1/nodes/n1").body["status"]["reason"], "rack 3 flaps");
  EXPECT_EQ(ReplicasPerNode(server.client(), "web"), "n1=1,n2=2");

  // Ready again, it takes new replicas.
  httplib::Client& d = server.client();
  ASSERT_EQ(Call(d, "PUT", "/v1/nodes/n1/status", Condition("Ready")).status, 200);
  ASSERT_EQ(Call(d, "PUT", "/v1/services/web", ServiceBody(5, "1")).status, 200);
  Advance(d);
  EXPECT_EQ(ReplicasPerNode(d, "web"), "n1=2,n2=3");
}

TEST(NodeConditionTest, ASuspectNodeThatFailsLosesItsContainersAndIsNotSuspectAgainUntilReady) {
  TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "1")).status, 201);
  Advance(c);
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1/status", Condition("Suspect")).status, 200);
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1/status", Condition("NotReady")).status, 200);
  Advance(c);
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n2=1");

  ExpectError(Call(c, "PUT", "/v1/nodes/n1/status", Condition("Suspect")), 409, "Conflict",
              "status.condition");
  EXPECT_EQ(NodeCondition(c, "n1"), "NotReady");
  const Answer bad = Call(c, "PUT", "/v1/nodes/n1/status", Condition("Gone"));
  EXPECT_EQ(bad.status, 400) << bad.body.dump();
  EXPECT_NE(bad.body.value("message", "").find("expected Ready, Suspect or NotReady"),
            std::string::npos)
      << bad.body.dump();
  EXPECT_EQ(NodeCondition(c, "n1"), "NotReady");
}

TEST(NodeAddressTest, TheAgentsAddressIsShownMayChangeAndSurvivesARestart) {
  TestServer server;
  httplib::Client& c = server.client();
  Answer a = Call(c, "PUT", "/v1/nodes/n1", NodeBody("10.0.0.11:10248"));
  ASSERT_EQ(a.status, 201) << a.body.dump();
  EXPECT_EQ(a.body["spec"]["address"], "10.0.0.11:10248");
  a = Call(c, "PUT", "/v1/nodes/n1", NodeBody("10.0.0.12:10248"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["spec"]["address"], "10.0.0.12:10248");

  EXPECT_EQ(a.body["spec"]["probe"], "healthz") << "an agent's address: GET /healthz";
  // A kubelet's port is probed by a TCP connect only.
  json kubelet = json::parse(NodeBody("10.0.0.12:10250"));
  kubelet["spec"]["probe"] = "tcp";
  a = Call(c, "PUT", "/v1/nodes/n1", kubelet.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["spec"]["probe"], "tcp");
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody("10.0.0.12:10248")).status, 200);

  json bad = json::parse(NodeBody("10.0.0.12:10250"));
  bad["spec"]["probe"] = "icmp";
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", bad.dump()), 400, "BadRequest", "spec.probe");
  bad = json::parse(NodeBody());
  bad["spec"]["probe"] = "tcp";
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", bad.dump()), 400, "BadRequest", "spec.probe");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", NodeBody("no-port")), 400, "BadRequest",
              "spec.address");
  ExpectError(Call(c, "PUT", "/v1/nodes/n2", NodeBody("host:99999")), 400, "BadRequest",
              "spec.address");
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/n2").status, 404);

  server.Restart();
  EXPECT_EQ(Call(server.client(), "GET", "/v1/nodes/n1").body["spec"]["address"],
            "10.0.0.12:10248");
}

// A wall-clock server on a real etcd, with agents that ask for their actions on threads of their
// own as long as they are "up".
class MagiDecisionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_ETCD();
    etcd_ = std::make_unique<testing::EtcdTestServer>();
    ServerConfig config = TestServer::VirtualConfig();
    config.clock = ClockMode::kWall;
    config.node_grace_s = 2;
    config.magi_heartbeat_s = 1;
    config.store = "etcd://" + etcd_->endpoint().substr(std::string("http://").size()) + "/t";
    server_ = std::make_unique<TestServer>(config);
    // Ready is not leading: writes are refused until this replica holds the lead.
    ASSERT_TRUE(WaitFor(
        [&] {
          return Call(server_->client(), "GET", "/v1/leader").body.value("role", "") == "leader";
        },
        10));
  }
  void TearDown() override {
    for (auto& [node, up] : up_) *up = false;
    for (std::thread& t : agents_) t.join();
    server_.reset();
  }

  void StartAgent(const std::string& node) {
    auto up = std::make_shared<std::atomic<bool>>(true);
    up_[node] = up;
    agents_.emplace_back([port = server_->port(), node, up] {
      httplib::Client c("127.0.0.1", port);
      while (*up) {
        c.Get("/v1/nodes/" + node + "/actions?after=0");
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
  }
  void Silence(const std::string& node) { *up_.at(node) = false; }
  void Resume(const std::string& node) { StartAgent(node); }

  std::string OfflineKey(const std::string& node) const {
    return "/t/magi/decisions/node-offline/" + node;
  }
  std::string MigrateKey(const std::string& node) const {
    return "/t/magi/decisions/migrate/" + node;
  }

  std::unique_ptr<testing::EtcdTestServer> etcd_;
  std::unique_ptr<TestServer> server_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> up_;
  std::vector<std::thread> agents_;
};

TEST_F(MagiDecisionTest, OnlyTheQuorumFailsANodeAndOnlyItsClearingBringsItBack) {
  httplib::Client& c = server_->client();
  for (const char* node : {"n1", "n2"}) {
    ASSERT_EQ(Call(c, "PUT", std::string("/v1/nodes/") + node, NodeBody()).status, 201);
    StartAgent(node);
  }
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(2, "3")).status, 201);
  ASSERT_TRUE(WaitFor([&] { return ReplicasPerNode(c, "web") == "n1=1,n2=1"; }, 10))
      << ReplicasPerNode(c, "web");

  // The records as MAGI's members write them. node-offline: the node is Suspect though its agent
  // is heard, and what runs there stays until the members approve moving it.
  EtcdStore store(etcd_->endpoint());
  store.Put(OfflineKey("n1"), json{{"kind", "node-offline"}, {"node", "n1"}}.dump());
  ASSERT_TRUE(WaitFor([&] { return NodeCondition(c, "n1") == "Suspect"; }, 5));
  EXPECT_THAT(Call(c, "GET", "/v1/nodes/n1").body["status"].value("reason", ""),
              ::testing::HasSubstr("once the members approve the migration"));
  EXPECT_EQ(Metric(c, "archimedes_magi_decisions_total{kind=\"node-offline\"}"), 1);
  EXPECT_EQ(Metric(c, "archimedes_magi_reviews_pending"), 1);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeCondition(c, "n1"), "Suspect") << "its agent alone must not bring it back";
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n1=1,n2=1") << "nothing moves before the review passes";

  // migrate: the review passed, the node is NotReady and its replica is placed again.
  store.Put(MigrateKey("n1"), json{{"kind", "migrate"}, {"node", "n1"}}.dump());
  ASSERT_TRUE(WaitFor([&] { return NodeCondition(c, "n1") == "NotReady"; }, 5));
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n2=1");  // the other replica has no room left
  EXPECT_EQ(Metric(c, "archimedes_magi_decisions_total{kind=\"migrate\"}"), 1);
  EXPECT_EQ(Metric(c, "archimedes_magi_reviews_pending"), 0);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeCondition(c, "n1"), "NotReady") << "its agent alone must not bring it back";

  // Readmitted (both records cleared in one transaction), it is Ready once its agent is heard,
  // and takes its replica.
  store.Txn(
      {}, {{TxnOp::Kind::kDelete, OfflineKey("n1")}, {TxnOp::Kind::kDelete, MigrateKey("n1")}}, {});
  ASSERT_TRUE(WaitFor([&] { return NodeCondition(c, "n1") == "Ready"; }, 5));
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/n1").body["status"].count("reason"), 0);
  EXPECT_TRUE(WaitFor([&] { return ReplicasPerNode(c, "web") == "n1=1,n2=1"; }, 5))
      << ReplicasPerNode(c, "web");
}

TEST_F(MagiDecisionTest, AReviewOnRecordBeforeTheServerListsMovesAtOnce) {
  httplib::Client& c = server_->client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n2", NodeBody()).status, 201);
  StartAgent("n1");
  StartAgent("n2");
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "3")).status, 201);
  ASSERT_TRUE(WaitFor([&] { return !ReplicasPerNode(c, "web").empty(); }, 10));
  const std::string first = ReplicasPerNode(c, "web").substr(0, 2);
  const std::string other = first == "n1" ? "n2" : "n1";

  // Both records written while no server follows them: the restarted leader lists them.
  EtcdStore store(etcd_->endpoint());
  server_->Stop();
  store.Put(OfflineKey(first), json{{"kind", "node-offline"}, {"node", first}}.dump());
  store.Put(MigrateKey(first), json{{"kind", "migrate"}, {"node", first}}.dump());
  server_->Start();
  ASSERT_TRUE(WaitFor([&] { return NodeCondition(server_->client(), first) == "NotReady"; }, 20));
  EXPECT_TRUE(WaitFor([&] { return ReplicasPerNode(server_->client(), "web") == other + "=1"; }, 5))
      << ReplicasPerNode(server_->client(), "web");
}

TEST_F(MagiDecisionTest, TheApiServersReadyDoesNotLiftTheQuorumsHold) {
  httplib::Client& c = server_->client();
  const auto node = [](const std::string& ready) {
    return json{{"apiVersion", "v1"},
                {"kind", "Node"},
                {"metadata", {{"name", "k1"}}},
                {"status",
                 {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}}},
                  {"conditions", {{{"type", "Ready"}, {"status", ready}}}}}}}
        .dump();
  };
  ASSERT_EQ(Call(c, "POST", "/scheduler/nodes", node("True")).status, 201);
  EtcdStore store(etcd_->endpoint());
  store.Put(OfflineKey("k1"), json{{"kind", "node-offline"}, {"node", "k1"}}.dump());
  ASSERT_TRUE(WaitFor([&] { return NodeCondition(c, "k1") == "Suspect"; }, 5));

  const Answer a = Call(c, "POST", "/scheduler/nodes", node("True"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["items"][0]["status"]["condition"], "Suspect") << a.body.dump();
  store.Delete(OfflineKey("k1"));
  EXPECT_TRUE(WaitFor(
      [&] {
        return Call(c, "POST", "/scheduler/nodes", node("True"))
                   .body["items"][0]["status"]
                   .value("condition", "") == "Ready";
      },
      5));
}

TEST_F(MagiDecisionTest, ADecisionOnRecordBeforeTheNodeIsRegisteredActsOnIt) {
  httplib::Client& c = server_->client();
  EtcdStore store(etcd_->endpoint());
  store.Put(OfflineKey("late"), json{{"kind", "node-offline"}, {"node", "late"}}.dump());
  std::this_thread::sleep_for(std::chrono::seconds(1));  // listed, and watched past
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/late", NodeBody()).status, 201);
  EXPECT_TRUE(WaitFor([&] { return NodeCondition(c, "late") == "Suspect"; }, 5))
      << NodeCondition(c, "late");
  store.Put(MigrateKey("late"), json{{"kind", "migrate"}, {"node", "late"}}.dump());
  EXPECT_TRUE(WaitFor([&] { return NodeCondition(c, "late") == "NotReady"; }, 5));
}

// The agents' contacts reach MAGI's members as heartbeats: renewed while the agent is heard, left
// to age once it is silent.
TEST_F(MagiDecisionTest, AHeardAgentsNodeHeartbeatsForTheMembers) {
  httplib::Client& c = server_->client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  StartAgent("n1");
  EtcdStore store(etcd_->endpoint());
  const auto heartbeat = [&]() -> int64_t {
    const std::optional<KeyValue> kv = store.Get("/t/magi/heartbeats/n1");
    return kv ? json::parse(kv->value).value("at", int64_t{-1}) : -1;
  };
  ASSERT_TRUE(WaitFor([&] { return heartbeat() >= WallSeconds() - 1; }, 5)) << heartbeat();
  const int64_t first = heartbeat();
  EXPECT_TRUE(WaitFor([&] { return heartbeat() > first; }, 5)) << "renewed every second";

  Silence("n1");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const int64_t last = heartbeat();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(heartbeat(), last) << "a silent agent's heartbeat ages";
  EXPECT_LE(last, WallSeconds() - 2);
}

TEST_F(MagiDecisionTest, ASilentAgentMakesItsNodeOnlySuspect) {
  httplib::Client& c = server_->client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  StartAgent("n1");
  ASSERT_EQ(Call(c, "PUT", "/v1/services/web", ServiceBody(1, "1")).status, 201);
  ASSERT_TRUE(WaitFor([&] { return ReplicasPerNode(c, "web") == "n1=1"; }, 10));

  Silence("n1");
  ASSERT_TRUE(WaitFor([&] { return NodeCondition(c, "n1") == "Suspect"; }, 6));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeCondition(c, "n1"), "Suspect") << "only MAGI's quorum makes it NotReady";
  EXPECT_EQ(ReplicasPerNode(c, "web"), "n1=1") << "nothing moves off a suspect node";
  EXPECT_EQ(Metric(c, "archimedes_nodes{condition=\"Suspect\"}"), 1);

  Resume("n1");
  EXPECT_TRUE(WaitFor([&] { return NodeCondition(c, "n1") == "Ready"; }, 5));
}

TEST_F(MagiDecisionTest, AJobSubmittedRightAfterTheStartTakesTheWallClocksTime) {
  httplib::Client& c = server_->client();
  ASSERT_EQ(Call(c, "PUT", "/v1/nodes/n1", NodeBody()).status, 201);
  const int64_t before = WallSeconds();
  const Answer a = Call(c, "POST", "/v1/jobs",
                        json{{"spec",
                              {{"kind", "offline"},
                               {"tasks", 1},
                               {"requests", {{"cpu", "1"}}},
                               {"durationEstimate", "10m"}}}}
                            .dump());
  ASSERT_EQ(a.status, 201) << a.body.dump();
  EXPECT_GE(a.body["status"]["submitTime"].get<int64_t>(), before - 2) << a.body.dump();
}

}  // namespace
}  // namespace archimedes
