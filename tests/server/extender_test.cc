// The scheduler extender's contract: every fixture of ../shared/k8s-fixtures replayed over real
// HTTP against `serve`, the answers compared field by field with the fixtures' answers, and the
// filter and prioritize answers checked against the engine's own placement of the same pod.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kube/extender_messages.h"
#include "server/extender.h"
#include "support/fixture_files.h"
#include "test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;

std::string FixtureText(const std::string& name) {
  return testing::ReadText(testing::SharedPath("k8s-fixtures/" + name));
}
json Fixture(const std::string& name) { return testing::KubeFixture(name); }

struct Answer {
  int status = 0;
  json body;
};

Answer Call(httplib::Client& c, const std::string& method, const std::string& path,
            const std::string& body = "") {
  httplib::Result r = method == "POST"  ? c.Post(path, body, "application/json")
                      : method == "PUT" ? c.Put(path, body, "application/json")
                                        : c.Get(path);
  if (!r) throw std::runtime_error(method + " " + path + ": no answer");
  Answer a{r->status, nullptr};
  if (!r->body.empty()) a.body = json::parse(r->body);
  return a;
}

std::set<std::string> Keys(const json& object) {
  std::set<std::string> keys;
  if (object.is_object()) {
    for (auto it = object.begin(); it != object.end(); ++it) keys.insert(it.key());
  }
  return keys;
}

// A service of `gpus` GPUs held on `node` (tolerating the GPU taint), placed by a clock step.
json Filler(const std::string& node, int gpus, int priority) {
  return {{"spec",
           {{"replicas", 1},
            {"requests", {{"cpu", "2"}, {"memory", "8Gi"}, {"gpu", std::to_string(gpus)}}},
            {"priority", priority},
            {"nodeSelector", {{"kubernetes.io/hostname", node}}},
            {"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})}}}};
}

void Advance(httplib::Client& c) {
  ASSERT_EQ(Call(c, "POST", "/v1/clock", R"({"advance": "2s"})").status, 200);
}

// The fixtures' four nodes, as `kubectl get nodes -o json` would give them; gpu-node-b is
// cordoned (spec.unschedulable), so nothing preemption does can help there. gpu-node-d keeps 1
// free GPU (the pod needs 2: preemption may help); gpu-node-c 4.
void SetUpFleet(httplib::Client& c) {
  json list = {{"apiVersion", "v1"}, {"kind", "NodeList"}, {"items", json::array()}};
  const json request = Fixture("filter-request-full-nodes.json");
  for (json node : request["Nodes"]["items"]) {
    if (node["metadata"]["name"] == "gpu-node-b") node["spec"]["unschedulable"] = true;
    list["items"].push_back(node);
  }
  const Answer registered = Call(c, "POST", "/scheduler/nodes", list.dump());
  ASSERT_EQ(registered.status, 201) << registered.body.dump().substr(0, 400);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/d-fill", Filler("gpu-node-d", 7, 0).dump()).status, 201);
  ASSERT_EQ(Call(c, "PUT", "/v1/services/c-fill", Filler("gpu-node-c", 4, 0).dump()).status, 201);
  Advance(c);
}

class ExtenderContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/filter-request-full-nodes.json");
    SetUpFleet(c());
  }
  void Advance() { archimedes::Advance(c()); }
  httplib::Client& c() { return server_.client(); }
  testing::TestServer server_;
};

TEST_F(ExtenderContractTest, FilterInNodeCacheModeAnswersAsTheFixture) {
  const json want = Fixture("filter-response-nodecache.json");
  for (const char* request :
       {"filter-request-nodecache.json", "filter-request-nodecache.wire.json"}) {
    SCOPED_TRACE(request);
    const Answer a = Call(c(), "POST", "/scheduler/filter", FixtureText(request));
    ASSERT_EQ(a.status, 200) << a.body.dump();
    EXPECT_EQ(Keys(a.body), Keys(want));
    EXPECT_TRUE(a.body["Nodes"].is_null());
    EXPECT_EQ(a.body["NodeNames"], want["NodeNames"]);
    EXPECT_EQ(Keys(a.body["FailedNodes"]), Keys(want["FailedNodes"]));
    EXPECT_EQ(Keys(a.body["FailedAndUnresolvableNodes"]), Keys(want["FailedAndUnresolvableNodes"]));
    EXPECT_EQ(a.body["Error"], want["Error"]);
    EXPECT_NE(a.body["FailedNodes"]["gpu-node-d"].get<std::string>().find("insufficient resources"),
              std::string::npos);
    EXPECT_NE(a.body["FailedAndUnresolvableNodes"]["gpu-node-b"].get<std::string>().find(
                  "node.kubernetes.io/unschedulable:NoSchedule"),
              std::string::npos);
  }
}

TEST_F(ExtenderContractTest, FilterInFullNodeModeSendsThePassingNodesBackUnchanged) {
  const json want = Fixture("filter-response-full-nodes.json");
  const Answer a =
      Call(c(), "POST", "/scheduler/filter", FixtureText("filter-request-full-nodes.json"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(Keys(a.body), Keys(want));
  EXPECT_TRUE(a.body["NodeNames"].is_null());
  EXPECT_EQ(a.body["Nodes"], want["Nodes"]);
  EXPECT_EQ(Keys(a.body["FailedNodes"]), Keys(want["FailedNodes"]));
  EXPECT_EQ(Keys(a.body["FailedAndUnresolvableNodes"]), Keys(want["FailedAndUnresolvableNodes"]));
}

TEST_F(ExtenderContractTest, ReadsTheHttpRequestAsKubeSchedulerSendsIt) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/http-filter-request.txt");
  const std::string raw = FixtureText("http-filter-request.txt");
  const size_t head_end = raw.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos);
  EXPECT_EQ(raw.substr(0, raw.find(' ')), "POST");
  EXPECT_NE(raw.find("Content-Type: application/json"), std::string::npos);
  const std::string body = raw.substr(head_end + 4);
  const Answer a = Call(c(), "POST", "/scheduler/filter", body);
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.body["NodeNames"], json::array({"gpu-node-a", "gpu-node-c"}));
}

TEST_F(ExtenderContractTest, ReadsEnvelopeKeysCaseInsensitivelyAsGoDoes) {
  json request = Fixture("filter-request-nodecache.json");
  json lower = {{"pod", request["Pod"]}, {"NODES", nullptr}, {"nodenames", request["NodeNames"]}};
  const Answer a = Call(c(), "POST", "/scheduler/filter", lower.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["NodeNames"], json::array({"gpu-node-a", "gpu-node-c"}));

  const ExtenderFilterResult legacy =
      DecodeFilterResult(Fixture("filter-response-legacy-lowercase.json"));
  EXPECT_FALSE(legacy.node_names.empty());
  EXPECT_FALSE(legacy.failed.empty());
  EXPECT_FALSE(DecodeFilterResult(Fixture("filter-response-error.json")).error.empty());
}

TEST_F(ExtenderContractTest, PrioritizeScoresZeroToTenAndTheBestIsWhereTheEngineGoes) {
  const json want = Fixture("prioritize-response.json");
  const Answer a =
      Call(c(), "POST", "/scheduler/prioritize", FixtureText("prioritize-request-nodecache.json"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  ASSERT_TRUE(a.body.is_array());
  ASSERT_EQ(a.body.size(), want.size());
  std::string best;
  int64_t best_score = -1;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(Keys(a.body[i]), Keys(want[i]));
    EXPECT_EQ(a.body[i]["Host"], want[i]["Host"]);
    const int64_t score = a.body[i]["Score"];
    EXPECT_GE(score, 0);
    EXPECT_LE(score, kMaxExtenderPriority);
    if (score > best_score) best_score = score, best = a.body[i]["Host"];
  }
  // As the fixture: gpu-node-a (8 free GPUs) above gpu-node-c (4 free).
  EXPECT_EQ(best, "gpu-node-a");
  EXPECT_EQ(best_score, kMaxExtenderPriority);
  EXPECT_LT(a.body[1]["Score"].get<int64_t>(), best_score);

  // The engine, placing a replica of the same pod in the same state, goes to the same node.
  json twin = json::parse(PodService(DecodePod(Fixture("pod-pending-gpu.json")), best).second);
  twin["metadata"].erase("name");
  twin["spec"]["nodeSelector"].erase("kubernetes.io/hostname");
  ASSERT_EQ(Call(c(), "PUT", "/v1/services/twin", twin.dump()).status, 201);
  Advance();
  const json placed = Call(c(), "GET", "/v1/services/twin").body;
  ASSERT_EQ(placed["status"]["replicas"].size(), 1u) << placed.dump();
  EXPECT_EQ(placed["status"]["replicas"][0]["node"], best);
}

TEST_F(ExtenderContractTest, BindRecordsThePodOnItsNode) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/bind-request.json");
  // A pod the extender never filtered cannot be bound: kube-scheduler's error shape.
  Answer a = Call(c(), "POST", "/scheduler/bind", FixtureText("bind-request.json"));
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(Keys(a.body), Keys(Fixture("bind-response-error.json")));
  EXPECT_FALSE(a.body["Error"].get<std::string>().empty());

  ASSERT_EQ(
      Call(c(), "POST", "/scheduler/filter", FixtureText("filter-request-nodecache.json")).status,
      200);
  a = Call(c(), "POST", "/scheduler/bind", FixtureText("bind-request.json"));
  EXPECT_EQ(a.body, Fixture("bind-response-ok.json"));
  Advance();
  const json bound = Call(c(), "GET", "/v1/services/ml-team-resnet-train-7x2kq").body;
  ASSERT_EQ(bound["status"]["replicas"].size(), 1u) << bound.dump();
  EXPECT_EQ(bound["status"]["replicas"][0]["node"], "gpu-node-a");
  EXPECT_EQ(bound["metadata"]["labels"]["archimedes.io/pod-uid"],
            "5f1c2a9e-3b7d-4c1e-9a2f-8d6e4b0c7a11");
  // kube-scheduler retries a bind: the same answer, nothing new.
  EXPECT_EQ(Call(c(), "POST", "/scheduler/bind", FixtureText("bind-request.json")).body,
            Fixture("bind-response-ok.json"));
}

TEST_F(ExtenderContractTest, PreemptKeepsTheMinimalVictimsAndDropsPdbProtectedNodes) {
  const json want = Fixture("preempt-response.json");
  // Meta victims (UIDs only): gpu-node-d's only victim is PDB-protected.
  Answer a = Call(c(), "POST", "/scheduler/preempt", FixtureText("preempt-request-nodecache.json"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body, want);

  // Full victims: the SLA-ordered minimal evictor, on serve's view of gpu-node-c with its 8 GPUs
  // taken (the two 2-GPU victims beside 4 more): the preemptor's 4 GPUs need both.
  ASSERT_EQ(Call(c(), "PUT", "/v1/services/c-more", Filler("gpu-node-c", 4, 0).dump()).status, 201);
  Advance();
  a = Call(c(), "POST", "/scheduler/preempt", FixtureText("preempt-request-full.json"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body, want);
}

TEST_F(ExtenderContractTest, PreemptChoosesFewerVictimsWhenFewerFreeEnough) {
  // gpu-node-c with 2 GPUs free: one 2-GPU victim makes room for the preemptor's 4.
  ASSERT_EQ(Call(c(), "PUT", "/v1/services/c-more", Filler("gpu-node-c", 2, 0).dump()).status, 201);
  Advance();
  const Answer a =
      Call(c(), "POST", "/scheduler/preempt", FixtureText("preempt-request-full.json"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  ASSERT_EQ(Keys(a.body["NodeNameToMetaVictims"]), std::set<std::string>{"gpu-node-c"});
  EXPECT_EQ(a.body["NodeNameToMetaVictims"]["gpu-node-c"]["Pods"].size(), 1u);
}

// Under the archimedes policy, whose batch planner places the job (jobs carry no tolerations yet,
// and under k8s-default a task tolerates no taint, so it would wait on these tainted nodes).
TEST(ExtenderBatchTest, BatchPodIsPlannedAsAJobAndPassesOnlyItsNodeOnceStarted) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/filter-request-full-nodes.json");
  ServerConfig config = testing::TestServer::VirtualConfig();
  config.policy = "archimedes";
  testing::TestServer server(config);
  httplib::Client& c = server.client();
  SetUpFleet(c);
  const auto Advance = [&c] { archimedes::Advance(c); };
  json request = Fixture("filter-request-nodecache.json");
  request["Pod"]["metadata"]["annotations"]["archimedes.io/kind"] = "offline";
  // Before its task starts: every node refused, unresolvable, saying why.
  Answer a = Call(c, "POST", "/scheduler/filter", request.dump());
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["NodeNames"], json::array());
  EXPECT_EQ(a.body["Error"], "");
  ASSERT_EQ(a.body["FailedAndUnresolvableNodes"].size(), 4u);
  EXPECT_NE(a.body["FailedAndUnresolvableNodes"]["gpu-node-a"].get<std::string>().find(
                "waits for the window the plan gives it; kube-scheduler retries it"),
            std::string::npos);
  // kube-scheduler's retry finds the same job.
  ASSERT_EQ(Call(c, "POST", "/scheduler/filter", request.dump()).status, 200);
  const json jobs = Call(c, "GET", "/v1/jobs").body;
  ASSERT_EQ(jobs["items"].size(), 1u) << jobs.dump();
  const json& job = jobs["items"][0];
  EXPECT_EQ(job["metadata"]["labels"]["archimedes.io/pod-uid"], request["Pod"]["metadata"]["uid"]);
  EXPECT_EQ(job["spec"]["delayTolerance"], "2h");
  EXPECT_EQ(job["spec"]["durationEstimate"], "6h");
  EXPECT_EQ(job["spec"]["kind"], "offline");

  // The plan starts it (k8s-default: at the next cycle): only its node passes from then on.
  Advance();
  ASSERT_EQ(Call(c, "GET", "/v1/jobs/" + job["metadata"]["name"].get<std::string>())
                .body["status"]["tasks"]["running"],
            1);
  a = Call(c, "POST", "/scheduler/filter", request.dump());
  ASSERT_EQ(a.status, 200);
  ASSERT_EQ(a.body["NodeNames"].size(), 1u) << a.body.dump();
  const std::string node = a.body["NodeNames"][0];
  EXPECT_EQ(a.body["FailedAndUnresolvableNodes"].size(), 3u);
  for (const auto& [name, reason] : a.body["FailedAndUnresolvableNodes"].items()) {
    EXPECT_NE(reason.get<std::string>().find("started on " + node), std::string::npos) << name;
  }
  EXPECT_EQ(Call(c, "GET", "/v1/jobs").body["items"].size(), 1u);
}

TEST_F(ExtenderContractTest, MalformedMessagesAreRefusedNamingTheField) {
  Answer a = Call(c(), "POST", "/scheduler/filter", R"({"Pod": {"metadata": {"name": "p"},
      "spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}, "NodeNames": []})");
  EXPECT_EQ(a.status, 400);
  EXPECT_EQ(a.body["field"], "ExtenderArgs.Pod.spec.containers[0].resources.requests.cpu");
  EXPECT_FALSE(a.body["Error"].get<std::string>().empty());
  EXPECT_EQ(Call(c(), "POST", "/scheduler/filter", "{").status, 400);
  EXPECT_EQ(Call(c(), "POST", "/scheduler/filter", R"({"NodeNames": ["a"]})").status, 400);
  EXPECT_EQ(Call(c(), "POST", "/scheduler/bind", R"({"PodName": "p"})").status, 400);
  // An unknown node fails alone, unresolvable, naming how to register it.
  json request = Fixture("filter-request-nodecache.json");
  request["NodeNames"] = json::array({"gpu-node-a", "nowhere"});
  a = Call(c(), "POST", "/scheduler/filter", request.dump());
  ASSERT_EQ(a.status, 200);
  EXPECT_EQ(a.body["NodeNames"], json::array({"gpu-node-a"}));
  EXPECT_NE(
      a.body["FailedAndUnresolvableNodes"]["nowhere"].get<std::string>().find("PUT /v1/nodes"),
      std::string::npos);
}

// kubectl get nodes -o yaml, as it comes; and YAML that would take a parser's memory, refused.
TEST(ExtenderNodesTest, MagiProbesARegisteredNodesKubeletPort) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/node-gpu-node-a.json");
  testing::TestServer server;
  httplib::Client& c = server.client();
  ASSERT_EQ(Call(c, "POST", "/scheduler/nodes", FixtureText("node-gpu-node-a.json")).status, 201);
  const json spec = Call(c, "GET", "/v1/nodes/gpu-node-a").body["spec"];
  EXPECT_EQ(spec["address"], "10.0.1.21:10250");
  EXPECT_EQ(spec["probe"], "tcp");
}

TEST(ExtenderNodesTest, NodesAreRegisteredFromYaml) {
  testing::TestServer server;
  httplib::Client& c = server.client();
  const std::string nodes = R"(apiVersion: v1
kind: NodeList
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: yaml-a
    labels: {topology.kubernetes.io/zone: z1}
  status:
    allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Node
metadata: {name: yaml-b}
status: {allocatable: {cpu: 4, memory: 16Gi}}
)";
  const Answer registered = Call(c, "POST", "/scheduler/nodes", nodes);
  ASSERT_EQ(registered.status, 201) << registered.body.dump();
  EXPECT_EQ(registered.body["items"].size(), 2u);
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/yaml-a").status, 200);
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/yaml-b").status, 200);

  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char level = 'b'; level <= 'k'; ++level) {
    const std::string previous = std::string("*") + static_cast<char>(level - 1);
    laughs += std::string(1, level) + ": &" + level + " [" + previous;
    for (int i = 1; i < 10; ++i) laughs += ", " + previous;
    laughs += "]\n";
  }
  const Answer refused = Call(c, "POST", "/scheduler/nodes", laughs);
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body["Error"].get<std::string>().find("request body: line 3: aliases expand"),
            std::string::npos)
      << refused.body.dump();
  const Answer empty = Call(c, "POST", "/scheduler/nodes", "# nothing\n");
  EXPECT_EQ(empty.status, 400);
}

// The API server's NotReady is one observer's view: the node turns Suspect (what runs there stays,
// nothing new goes there) and Ready again when the API server says so; a node with no Ready
// condition is taken as it comes.
TEST(ExtenderNodesTest, TheApiServersNotReadyMakesANodeOnlySuspect) {
  testing::TestServer server;
  httplib::Client& c = server.client();
  const auto node = [](const std::string& ready) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"k1\"},"
           "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\"},"
           "\"conditions\":[{\"type\":\"Ready\",\"status\":\"" +
           ready + "\"}]}}";
  };
  Answer a = Call(c, "POST", "/scheduler/nodes", node("True"));
  ASSERT_EQ(a.status, 201) << a.body.dump();
  EXPECT_EQ(a.body["items"][0]["status"]["condition"], "Ready");
  a = Call(c, "POST", "/scheduler/nodes", node("Unknown"));
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["items"][0]["status"]["condition"], "Suspect");
  EXPECT_EQ(Call(c, "GET", "/v1/nodes/k1").body["status"]["condition"], "Suspect");
  a = Call(c, "POST", "/scheduler/nodes", node("True"));
  EXPECT_EQ(a.body["items"][0]["status"]["condition"], "Ready") << a.body.dump();

  const Answer silent = Call(c, "POST", "/scheduler/nodes",
                             "{\"kind\":\"Node\",\"metadata\":{\"name\":\"k2\"},"
                             "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\"}}}");
  ASSERT_EQ(silent.status, 201) << silent.body.dump();
  EXPECT_EQ(silent.body["items"][0]["status"]["condition"], "Ready");
}

}  // namespace
}  // namespace archimedes
