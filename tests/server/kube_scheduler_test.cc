// serve --kube-api (server/kube_scheduler.h) against a loopback stand-in for the API server that
// serves recorded lists and watch streams (tests/kube/api/) and checks every Binding and Eviction
// against the shared fixtures (kube_api_stub.h): Debian packages no Kubernetes API server.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "kube/documents.h"
#include "model/wall_clock.h"
#include "server/api_call.h"
#include "server/config.h"
#include "server/kube_api_client.h"
#include "server/kube_api_stub.h"
#include "server/test_server.h"
#include "store/etcd_store.h"
#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::Call;
using testing::KubeApiStub;
using testing::KubeRecording;

constexpr const char* kToken = "eyJhbGciOiJSUzI1NiJ9.test-token";

// Polls `done` for up to `seconds`.
bool WaitFor(const std::function<bool()>& done, int seconds = 20) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return done();
}

// The RBAC rule a call of the stub's calls() needs: {apiGroup, resource, verb}.
std::array<std::string, 3> AccessOf(const std::string& call) {
  const size_t space = call.find(' ');
  const std::string method = call.substr(0, space);
  std::string path = call.substr(space + 1);
  const bool watch = path.ends_with("?watch");
  if (watch) path.resize(path.size() - 6);
  std::string group;
  if (path.starts_with("/apis/")) {
    group = path.substr(6, path.find('/', 6) - 6);
  }
  std::vector<std::string> parts;
  for (size_t at = 0; at != std::string::npos;) {
    const size_t next = path.find('/', at + 1);
    parts.push_back(path.substr(at + 1, next == std::string::npos ? next : next - at - 1));
    at = next;
  }
  // .../namespaces/NS/pods/NAME/SUB, or .../pods
  const std::string resource = parts.size() >= 3 && parts[parts.size() - 3] == "pods"
                                   ? "pods/" + parts.back()
                                   : parts.back();
  return {group, resource, method == "POST" ? "create" : watch ? "watch" : "list"};
}

bool Granted(const json& role, const std::array<std::string, 3>& access) {
  for (const json& rule : role["rules"]) {
    const auto has = [&](const char* key, const std::string& value) {
      return std::find(rule[key].begin(), rule[key].end(), value) != rule[key].end();
    };
    if (has("apiGroups", access[0]) && has("resources", access[1]) && has("verbs", access[2])) {
      return true;
    }
  }
  return false;
}

// Checks that every call `stub` received is one examples/kubernetes/rbac.yaml grants serve's
// service account; returns how many kinds of access they were.
size_t GrantedCalls(KubeApiStub& stub) {
  json role;
  const std::string rbac = std::string(ARCHIMEDES_SOURCE_DIR) + "/examples/kubernetes/rbac.yaml";
  for (const json& doc : ParseDocuments(rbac, testing::ReadText(rbac))) {
    if (doc["kind"] == "ClusterRole" && doc["metadata"]["name"] == "archimedes") role = doc;
  }
  EXPECT_TRUE(role.is_object()) << rbac << " has no ClusterRole archimedes";
  std::set<std::array<std::string, 3>> accesses;
  for (const std::string& call : stub.calls()) {
    const auto access = AccessOf(call);
    accesses.insert(access);
    EXPECT_TRUE(Granted(role, access)) << call << " needs " << access[2] << " on " << access[1]
                                       << " (group \"" << access[0] << "\")";
  }
  return accesses.size();
}

// Pod `name` of the recorded pod list.
json RecordedPod(const std::string& name) {
  const json pods = KubeRecording("pod-list.json");
  for (const json& pod : pods["items"]) {
    if (pod["metadata"]["name"] == name) return pod;
  }
  throw std::runtime_error("no pod " + name + " in pod-list.json");
}

class KubeSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/binding-v1.json");
    dir_ = testing::MakeTempDir();
    token_file_ = dir_ + "/token";
    std::ofstream(token_file_) << kToken << "\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ServerConfig Config(const std::string& url) const {
    ServerConfig config = testing::TestServer::VirtualConfig();
    config.data = dir_ + "/data";
    config.kube_api = url;
    config.kube_token_file = token_file_;
    config.kube_metrics_s = 1;
    return config;
  }
  static json Get(testing::TestServer& s, const std::string& path) {
    const Answer a = Call(s.client(), "GET", path);
    return a.status == 200 ? a.body : json();
  }
  static void Advance(testing::TestServer& s, const std::string& by) {
    ASSERT_EQ(Call(s.client(), "POST", "/v1/clock", json{{"advance", by}}.dump()).status, 200);
  }
  static size_t Count(testing::TestServer& s, const std::string& path) {
    const json list = Get(s, path);
    return list.is_object() ? list["items"].size() : 0;
  }
  // The node the stub's pod `key` is bound to ("" while pending).
  static std::string BoundNode(KubeApiStub& stub, const std::string& key) {
    const json pod = stub.Pod(key);
    return pod.is_object() ? pod["spec"].value("nodeName", "") : "";
  }

  std::string dir_;
  std::string token_file_;
};

TEST_F(KubeSchedulerTest, SchedulesThePodsOfItsNameThroughTheApiServer) {
  KubeApiStub stub(kToken);
  stub.Load("nodes", KubeRecording("node-list.json"));
  stub.Load("pods", KubeRecording("pod-list.json"));
  testing::TestServer server(Config(stub.url()));

  // The cluster's nodes are the fleet; every bound pod a service pinned to its node; the pending
  // pod of schedulerName archimedes a service the engine places, its batch pod a job; the
  // finished pod nothing.
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/nodes") == 2; }));
  ASSERT_TRUE(WaitFor([&] {
    return Count(server, "/v1/services") == 4 && Count(server, "/v1/jobs") == 1;
  })) << Get(server, "/v1/services").dump();
  const json node = Get(server, "/v1/nodes/kube-node-1");
  EXPECT_EQ(node["spec"]["address"], "10.0.0.11:10250");
  EXPECT_EQ(node["spec"]["probe"], "tcp");
  const json ledger = Get(server, "/v1/services/legacy-ledger-0");
  EXPECT_EQ(ledger["spec"]["nodeSelector"]["kubernetes.io/hostname"], "kube-node-1");
  const json web = Get(server, "/v1/services/shop-web-7c9d8b6f5-x2kq9");
  EXPECT_FALSE(
      web["spec"].value("nodeSelector", json::object()).contains("kubernetes.io/hostname"));
  const json job = Get(server, "/v1/jobs")["items"][0];
  EXPECT_EQ(job["metadata"]["labels"]["archimedes.io/pod-name"], "sweep-0-q7m2c");
  EXPECT_TRUE(stub.bindings().empty()) << "nothing is bound before the engine's cycle";

  // One cycle: the engine places the web replica and starts the batch task; each becomes a
  // Binding of its pod to the node the engine chose, and nothing else is bound.
  Advance(server, "1s");
  ASSERT_TRUE(WaitFor([&] { return stub.bindings().size() == 2; })) << stub.bindings().size();
  const std::string web_node = BoundNode(stub, "shop/web-7c9d8b6f5-x2kq9");
  const std::string sweep_node = BoundNode(stub, "research/sweep-0-q7m2c");
  EXPECT_EQ(web_node,
            Get(server, "/v1/services/shop-web-7c9d8b6f5-x2kq9")["status"]["replicas"][0]["node"]);
  EXPECT_FALSE(sweep_node.empty());

  // The kubelet reports web Running: its replica is Running; PodMetrics then reach its profile.
  json running = KubeRecording("watch-pod-running.jsonl");
  running["object"]["spec"]["nodeName"] = web_node;
  stub.Push("pods", running);
  ASSERT_TRUE(WaitFor([&] {
    return Get(server, "/v1/services/shop-web-7c9d8b6f5-x2kq9")["status"]["running"] == 1;
  }));
  ASSERT_TRUE(WaitFor([&] { return stub.metrics_reads() >= 2; }));
  Advance(server, "2m");
  ASSERT_TRUE(WaitFor([&] {
    return Call(server.client(), "GET", "/v1/profiles/shop%2Fweb").status == 200;
  })) << Get(server, "/v1/profiles").dump().substr(0, 500);
  EXPECT_EQ(Get(server, "/v1/profiles/shop/web")["application"]["app"], "shop/web");

  // A watch ended by the server resumes from the bookmark's resourceVersion.
  stub.Push("pods", KubeRecording("watch-bookmark.jsonl"));
  const std::string bookmark = std::to_string(stub.version());
  stub.CloseWatch("pods");
  ASSERT_TRUE(WaitFor([&] { return stub.watch_versions("pods").size() == 2; }));
  EXPECT_EQ(stub.watch_versions("pods")[0], "5010");
  EXPECT_EQ(stub.watch_versions("pods")[1], bookmark);

  // 410 Expired: a list again, and nothing it shows twice is made twice.
  stub.Push("pods", KubeRecording("watch-expired.jsonl"));
  ASSERT_TRUE(WaitFor([&] { return stub.lists("pods") == 2; }));
  ASSERT_TRUE(WaitFor([&] { return stub.watch_versions("pods").size() == 3; }));
  Advance(server, "1s");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(Count(server, "/v1/services"), 4u);
  EXPECT_EQ(Count(server, "/v1/jobs"), 1u);
  EXPECT_EQ(stub.bindings().size(), 2u);

  // A pod of priority 1000000 finds no room: the engine preempts a lower-priority pod, evicted
  // through policy/v1 (its disruption budget refuses the first try: 429, retried), then the
  // new pod is bound where the victim was.
  stub.Push("pods", KubeRecording("watch-pod-added.jsonl"));
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/services") == 5; }));
  Advance(server, "1s");
  ASSERT_TRUE(WaitFor([&] { return BoundNode(stub, "shop/checkout-0") != ""; }, 30))
      << stub.evictions().size();
  const auto evictions = stub.evictions();
  ASSERT_GE(evictions.size(), 2u);
  EXPECT_EQ(evictions[0].second, 429);
  EXPECT_EQ(evictions[1].second, 201);
  EXPECT_EQ(evictions[0].first["metadata"], evictions[1].first["metadata"]);
  const std::string victim = evictions[1].first["metadata"]["namespace"].get<std::string>() + "/" +
                             evictions[1].first["metadata"]["name"].get<std::string>();
  EXPECT_TRUE(stub.Pod(victim).is_null()) << victim << " was evicted and is gone";
  EXPECT_EQ(BoundNode(stub, "shop/checkout-0"),
            Get(server, "/v1/services/shop-checkout-0")["status"]["replicas"][0]["node"]);
  // The victim's service is gone with it.
  EXPECT_TRUE(WaitFor([&] { return Count(server, "/v1/services") == 4; }));

  // The batch pod is OOM-killed: its job fails with the reason.
  if (!stub.Pod("research/sweep-0-q7m2c").is_null()) {
    json oom = KubeRecording("watch-pod-oomkilled.jsonl");
    oom["object"]["spec"]["nodeName"] = sweep_node;
    stub.Push("pods", oom);
    const std::string name = job["metadata"]["name"];
    ASSERT_TRUE(WaitFor([&] {
      return Get(server, "/v1/jobs/" + name)["status"].value("phase", "") == "Failed";
    })) << Get(server, "/v1/jobs/" + name).dump();
    EXPECT_EQ(Get(server, "/v1/jobs/" + name)["status"]["lastTermination"]["reason"], "OOMKilled");
  }

  // A node deleted from the cluster leaves the fleet.
  stub.Push("nodes", KubeRecording("watch-node-deleted.jsonl"));
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/nodes") == 1; }));

  const std::string metrics = Call(server.client(), "GET", "/metrics").body.get<std::string>();
  EXPECT_NE(metrics.find("archimedes_kube_api_requests_total{call=\"binding\",code=\"201\"}"),
            std::string::npos);
  EXPECT_NE(metrics.find("archimedes_kube_api_requests_total{call=\"eviction\",code=\"429\"} 1"),
            std::string::npos);

  // Restarted, it takes the state from its journal and the cluster from a list: nothing is bound
  // or made twice, and the service of a pod deleted while it was down is removed.
  const size_t bindings = stub.bindings().size();
  const size_t services = Count(server, "/v1/services");
  ASSERT_EQ(Call(server.client(), "GET", "/v1/services/shop-checkout-0").status, 200);
  server.Stop();
  json gone = stub.Pod("shop/checkout-0");
  gone["kind"] = "Pod";
  gone["apiVersion"] = "v1";
  stub.Push("pods", {{"type", "DELETED"}, {"object", gone}});
  server.Start();
  ASSERT_TRUE(WaitFor([&] { return stub.lists("pods") == 3; }));
  Advance(server, "1s");
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/services") == services - 1; }))
      << Count(server, "/v1/services");
  EXPECT_EQ(Call(server.client(), "GET", "/v1/services/shop-checkout-0").status, 404);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(stub.bindings().size(), bindings);
  EXPECT_EQ(Count(server, "/v1/services"), services - 1);
  EXPECT_TRUE(stub.problems().empty()) << ::testing::PrintToString(stub.problems());

  // list and watch of pods and nodes, the two subresources created, PodMetrics listed.
  EXPECT_EQ(GrantedCalls(stub), 7u) << ::testing::PrintToString(stub.calls());
}

// Jobs carry no node constraints: a batch pod with a nodeSelector is placed as a service, by the
// filter that reads it, and bound only where it allows.
TEST_F(KubeSchedulerTest, ABatchPodWithANodeSelectorIsPlacedAsAService) {
  KubeApiStub stub(kToken);
  stub.Load("nodes", KubeRecording("node-list.json"));
  json sweep = RecordedPod("sweep-0-q7m2c");
  sweep["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "kube-node-2"}};
  stub.Load("pods", {{"metadata", {{"resourceVersion", "5010"}}}, {"items", {sweep}}});
  testing::TestServer server(Config(stub.url()));
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/services") == 1; }));
  EXPECT_EQ(Count(server, "/v1/jobs"), 0u);
  Advance(server, "1s");
  ASSERT_TRUE(WaitFor([&] { return stub.bindings().size() == 1; }));
  EXPECT_EQ(BoundNode(stub, "research/sweep-0-q7m2c"), "kube-node-2");
}

// What the API server sends is input: a malformed object is skipped (and logged), the others
// are taken, and nothing stops.
TEST_F(KubeSchedulerTest, MalformedObjectsCostOnlyThemselves) {
  KubeApiStub stub(kToken);
  json nodes = KubeRecording("node-list.json");
  nodes["items"][1]["status"]["allocatable"]["cpu"] = "lots";
  stub.Load("nodes", nodes);
  json pods = KubeRecording("pod-list.json");
  pods["items"][0]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "12 parsecs";
  pods["items"][1]["status"]["phase"] = 7;
  pods["items"][2]["metadata"]["uid"] = 42;
  stub.Load("pods", pods);
  testing::TestServer server(Config(stub.url()));
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/nodes") == 1; }));
  // web and the sweep job; coredns, ledger-0 and ledger-1 were malformed.
  ASSERT_TRUE(WaitFor([&] {
    return Count(server, "/v1/services") == 1 && Count(server, "/v1/jobs") == 1;
  })) << Get(server, "/v1/services").dump().substr(0, 300);
  stub.Push("pods", {{"type", "ADDED"}, {"object", {{"kind", "Pod"}, {"metadata", 5}}}});
  stub.Push("pods", {{"type", "SOMETHING"}, {"object", json::object()}});
  stub.Push("pods", KubeRecording("watch-pod-added.jsonl"));
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/services") == 2; }));
  EXPECT_EQ(Call(server.client(), "GET", "/healthz").status, 200);
}

// A pod no node can ever hold is refused, and the log says why, once.
TEST_F(KubeSchedulerTest, APodNoNodeCanHoldIsRefusedWithItsReason) {
  KubeApiStub stub(kToken);
  stub.Load("nodes", KubeRecording("node-list.json"));
  json sweep = RecordedPod("sweep-0-q7m2c");
  sweep["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "100";
  stub.Load("pods", {{"metadata", {{"resourceVersion", "5010"}}}, {"items", {sweep}}});
  ::testing::internal::CaptureStderr();
  {
    testing::TestServer server(Config(stub.url()));
    ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/nodes") == 2; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(Count(server, "/v1/jobs"), 0u);
    EXPECT_EQ(Count(server, "/v1/services"), 0u);
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  const std::string said = "pod research/sweep-0-q7m2c cannot be scheduled: ";
  ASSERT_NE(log.find(said), std::string::npos) << log;
  EXPECT_EQ(log.find(said), log.rfind(said)) << log;
}

// With etcd (MAGI decides), the nodes' Leases are their heartbeats for MAGI's members: the
// kubelet's renewTime is written as the heartbeat, and a renewal renews it.
TEST_F(KubeSchedulerTest, NodeLeasesAreTheNodesHeartbeatsForMagi) {
  ARCHIMEDES_REQUIRE_ETCD();
  testing::EtcdTestServer etcd;
  KubeApiStub stub(kToken);
  stub.Load("nodes", KubeRecording("node-list.json"));
  stub.Load("pods", json{{"metadata", {{"resourceVersion", "1"}}}, {"items", json::array()}});
  json leases = KubeRecording("lease-list.json");
  const auto stamp = [](int64_t s) {
    char text[32];
    const time_t t = s;
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S.250000Z", std::gmtime(&t));
    return std::string(text);
  };
  const int64_t renewed = WallSeconds() - 2;
  leases["items"][0]["spec"]["renewTime"] = stamp(renewed);
  leases["items"][1]["spec"]["renewTime"] = stamp(renewed - 60);
  stub.Load("leases", leases);

  ServerConfig config = Config(stub.url());
  config.clock = ClockMode::kWall;
  config.magi_heartbeat_s = 1;
  config.store = "etcd://" + etcd.endpoint().substr(std::string("http://").size()) + "/k";
  testing::TestServer server(config);
  EtcdStore store(etcd.endpoint());
  const auto heartbeat = [&](const std::string& node) -> int64_t {
    const std::optional<KeyValue> kv = store.Get("/k/magi/heartbeats/" + node);
    return kv ? json::parse(kv->value).value("at", int64_t{-1}) : -1;
  };
  ASSERT_TRUE(WaitFor([&] { return heartbeat("kube-node-1") == renewed; }, 15))
      << heartbeat("kube-node-1");
  EXPECT_EQ(heartbeat("kube-node-2"), renewed - 60) << "an old lease is written as old as it is";

  json renewal = leases["items"][1];
  renewal["kind"] = "Lease";
  renewal["apiVersion"] = "coordination.k8s.io/v1";
  renewal["spec"]["renewTime"] = stamp(WallSeconds());
  stub.Push("leases", {{"type", "MODIFIED"}, {"object", renewal}});
  EXPECT_TRUE(WaitFor([&] { return heartbeat("kube-node-2") >= renewed; }, 10))
      << heartbeat("kube-node-2");
  EXPECT_TRUE(stub.problems().empty()) << ::testing::PrintToString(stub.problems());
  // Nodes, pods and leases, each listed and watched, and PodMetrics listed.
  EXPECT_EQ(GrantedCalls(stub), 7u) << ::testing::PrintToString(stub.calls());
}

TEST_F(KubeSchedulerTest, AWrongTokenIsRefusedAndNothingIsRegistered) {
  KubeApiStub stub("another-token");
  stub.Load("nodes", KubeRecording("node-list.json"));
  stub.Load("pods", KubeRecording("pod-list.json"));
  testing::TestServer server(Config(stub.url()));
  ASSERT_TRUE(WaitFor([&] { return !stub.problems().empty(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Count(server, "/v1/nodes"), 0u);
  const std::string metrics = Call(server.client(), "GET", "/metrics").body.get<std::string>();
  EXPECT_NE(metrics.find("archimedes_kube_api_requests_total{call=\"list\",code=\"401\"}"),
            std::string::npos);
}

// TLS as in a cluster: the API server's certificate checked against the CA file given.
TEST_F(KubeSchedulerTest, SpeaksTlsWithTheCaItIsGiven) {
  const std::string cert = dir_ + "/apiserver.crt", key = dir_ + "/apiserver.key";
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  KubeApiStub stub(kToken, cert, key);
  stub.Load("nodes", KubeRecording("node-list.json"));
  stub.Load("pods", KubeRecording("pod-list.json"));

  // Without the CA the certificate is not trusted: nothing is read.
  {
    testing::TestServer untrusting(Config(stub.url(/*tls=*/true)));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(Count(untrusting, "/v1/nodes"), 0u);
    EXPECT_EQ(stub.lists("nodes"), 0);
  }
  ServerConfig config = Config(stub.url(/*tls=*/true));
  config.data = dir_ + "/data-tls";
  config.kube_ca_file = cert;
  testing::TestServer server(config);
  ASSERT_TRUE(WaitFor([&] { return Count(server, "/v1/nodes") == 2; }));
  EXPECT_TRUE(stub.problems().empty()) << ::testing::PrintToString(stub.problems());
}

TEST(KubeApiLocationTest, MissingPiecesAreNamed) {
  unsetenv("KUBERNETES_SERVICE_HOST");
  try {
    ResolveKubeApi("in-cluster", "", "");
    FAIL() << "in-cluster outside a pod was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("KUBERNETES_SERVICE_HOST"), std::string::npos);
  }
  try {
    ResolveKubeApi("https://127.0.0.1:6443", "/nonexistent/token", "");
    FAIL() << "a missing token file was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/token"), std::string::npos);
  }
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  const std::string token = testing::MakeTempDir() + "/token";
  std::ofstream(token) << "t";
  EXPECT_EQ(ResolveKubeApi("in-cluster", token, "").url, "https://[fd00::1]:443");
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  std::filesystem::remove_all(std::filesystem::path(token).parent_path());

  ServerConfig config;
  EXPECT_THROW(SetConfigKey(config, "kube-api", "ftp://x"), ConfigError);
  SetConfigKey(config, "kube-api", "https://10.0.0.1:6443");
  EXPECT_EQ(config.kube_api, "https://10.0.0.1:6443");
}

}  // namespace
}  // namespace archimedes
