// Pods and Nodes read from the Kubernetes fixtures (../shared/k8s-fixtures) and from YAML.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kube/documents.h"
#include "kube/kube_error.h"
#include "kube/kube_node.h"
#include "kube/kube_pod.h"
#include "kube/resource_list.h"
#include "model/quantity.h"
#include "support/fixture_files.h"

namespace archimedes {
namespace {

// A shared fixture's JSON.
nlohmann::json Fixture(const std::string& name) { return testing::KubeFixture(name); }

TEST(KubePodTest, ReadsThePendingGpuPodAsKubeSchedulerDoes) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/pod-pending-gpu.json");
  const KubePod pod = DecodePod(Fixture("pod-pending-gpu.json"));
  EXPECT_EQ(pod.name, "resnet-train-7x2kq");
  EXPECT_EQ(pod.namespace_name, "ml-team");
  EXPECT_EQ(pod.uid, "5f1c2a9e-3b7d-4c1e-9a2f-8d6e4b0c7a11");
  // max(sum of containers, largest init container) + overhead (README, "Checks").
  EXPECT_EQ(pod.service.requests.cpu(), 6000);
  EXPECT_EQ(pod.service.requests.memory(), 13019119616);
  EXPECT_EQ(pod.service.requests[Dim::kGpu], 2000);
  EXPECT_EQ(pod.service.qos, QosClass::kBurstable);
  EXPECT_TRUE(pod.service.requests.FitsIn(pod.service.limits) || pod.service.limits.cpu() == 0);
  EXPECT_EQ(pod.workload_kind, "Job");
  EXPECT_EQ(pod.service.app, "ml-team/resnet-train");
  EXPECT_EQ(pod.service.node_selector.at("archimedes.io/pool"), "gpu");
  ASSERT_EQ(pod.service.node_affinity.size(), 1u);
  EXPECT_EQ(pod.service.node_affinity[0].match_expressions[0].key, "topology.kubernetes.io/zone");
  EXPECT_EQ(pod.kind, PodKind::kService);  // a tolerance alone does not make it a task
  EXPECT_EQ(pod.delay_tolerance_s, 2 * 3600);
  EXPECT_EQ(pod.duration_estimate_s, 6 * 3600);
  const Taint gpu{.key = "nvidia.com/gpu", .value = "present", .effect = TaintEffect::kNoSchedule};
  EXPECT_EQ(FirstUntoleratedTaint(std::span(&gpu, 1), pod.service.tolerations), nullptr);
}

TEST(KubePodTest, ReadsTheStatefulSetPreemptorAsGuaranteed) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/preempt-request-nodecache.json");
  const KubePod pod = DecodePod(Fixture("preempt-request-nodecache.json")["Pod"]);
  EXPECT_EQ(pod.service.qos, QosClass::kGuaranteed);
  EXPECT_EQ(pod.service.priority, 1000000);
  EXPECT_EQ(pod.workload_kind, "StatefulSet");
  EXPECT_EQ(pod.service.app, "inference/llm-serve");
  EXPECT_EQ(pod.kind, PodKind::kService);
}

TEST(KubeNodeTest, ReadsTheGpuNode) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/node-gpu-node-a.json");
  const Node node = DecodeKubeNode(Fixture("node-gpu-node-a.json"));
  EXPECT_EQ(node.name, "gpu-node-a");
  EXPECT_EQ(node.allocatable.cpu(), 95690);
  EXPECT_EQ(node.allocatable.memory(), 1203542712320);
  EXPECT_EQ(node.allocatable[Dim::kGpu], 8000);
  EXPECT_EQ(node.zone, "us-east-1a");
  EXPECT_EQ(node.condition, NodeCondition::kReady);
  ASSERT_EQ(node.taints.size(), 1u);
  EXPECT_EQ(ToString(node.taints[0]), "nvidia.com/gpu=present:NoSchedule");
}

TEST(KubeNodeTest, TheKubeletListensOnTheInternalIpAndTheDaemonEndpointsPort) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/node-gpu-node-a.json");
  nlohmann::json node = Fixture("node-gpu-node-a.json");
  EXPECT_EQ(KubeletAddress(node), "10.0.1.21:10250");
  node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] = 10260;
  EXPECT_EQ(KubeletAddress(node), "10.0.1.21:10260");
  node["status"]["daemonEndpoints"].erase("kubeletEndpoint");
  EXPECT_EQ(KubeletAddress(node), "10.0.1.21:10250") << "the kubelet's default port";

  const auto with = [](const nlohmann::json& addresses) {
    return KubeletAddress({{"status", {{"addresses", addresses}}}});
  };
  EXPECT_EQ(with({{{"type", "Hostname"}, {"address", "h"}},
                  {{"type", "ExternalIP"}, {"address", "203.0.113.7"}}}),
            "203.0.113.7:10250");
  EXPECT_EQ(with({{{"type", "ExternalIP"}, {"address", "203.0.113.7"}},
                  {{"type", "InternalIP"}, {"address", "fd00::21"}}}),
            "[fd00::21]:10250");
  EXPECT_EQ(with({{{"type", "Hostname"}, {"address", "h"}}}), "") << "no IP: nothing to probe";
  EXPECT_EQ(KubeletAddress({{"metadata", {{"name", "n"}}}}), "");

  node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] = 70000;
  try {
    KubeletAddress(node);
    ADD_FAILURE() << "port 70000 accepted";
  } catch (const KubeError& e) {
    EXPECT_NE(std::string(e.what()).find("Node.status.daemonEndpoints.kubeletEndpoint.Port"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(KubeletAddress({{"status", {{"addresses", "10.0.0.1"}}}}), KubeError);
}

TEST(KubeNodeTest, ReadsEveryNodeOfTheFullNodeFilterRequestDespiteManagedFields) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/filter-request-full-nodes.json");
  const nlohmann::json items = Fixture("filter-request-full-nodes.json")["Nodes"]["items"];
  ASSERT_EQ(items.size(), 4u);
  for (const nlohmann::json& item : items) {
    const Node node = DecodeKubeNode(item);
    EXPECT_EQ(node.allocatable[Dim::kGpu], 8000) << node.name;
  }
}

constexpr const char* kYamlPods = R"(
apiVersion: v1
kind: Pod
metadata:
  name: web-7d4b9c-x2x
  namespace: shop
  labels: {pod-template-hash: 7d4b9c, app.kubernetes.io/name: storefront}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d4b9c, uid: u1, controller: true}
  annotations:
    archimedes.io/availability: "0.9995"
spec:
  priority: 100
  containers:
  - name: app
    resources:
      requests: {cpu: 250m, memory: 512Mi}
      limits: {cpu: 1, memory: 1Gi}
  - name: sidecar
    resources:
      requests: {cpu: 0.25, memory: 64Mi}
  tolerations:
  - {key: dedicated, operator: Equal, value: shop, effect: NoSchedule}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: node.example.com/generation, operator: Gt, values: ["3"]}
---
apiVersion: v1
kind: List
items:
- metadata:
    name: report-28593120-abcde
    ownerReferences: [{kind: Job, name: report-28593120, controller: true}]
  spec: {containers: [{name: c, resources: {requests: {cpu: 1, memory: 1Gi}}}]}
- metadata: {name: lone, labels: {app.kubernetes.io/name: tool}}
  spec: {containers: [{name: c}]}
)";

TEST(KubePodTest, ReadsYamlDocumentsAndListsAndFindsTheirWorkloads) {
  const std::vector<nlohmann::json> docs = ExpandLists(ParseDocuments("pods.yaml", kYamlPods));
  ASSERT_EQ(docs.size(), 3u);
  const KubePod web = DecodePod(docs[0]);
  EXPECT_EQ(web.workload_kind, "Deployment");
  EXPECT_EQ(web.service.app, "shop/web");
  EXPECT_EQ(web.service.requests.cpu(), 500);
  EXPECT_EQ(web.service.requests.memory(), 576LL << 20);
  EXPECT_EQ(web.service.limits.cpu(), 0);  // the sidecar sets no limit: the pod has none
  EXPECT_EQ(web.service.priority, 100);
  EXPECT_DOUBLE_EQ(web.service.sla.availability, 0.9995);
  ASSERT_EQ(web.service.tolerations.size(), 1u);
  EXPECT_EQ(web.service.tolerations[0].value, "shop");
  Node node{.name = "n1", .labels = {{"node.example.com/generation", "4"}}};
  EXPECT_TRUE(MatchesRequiredAffinity(web.service.node_affinity, node));
  node.labels["node.example.com/generation"] = "3";
  EXPECT_FALSE(MatchesRequiredAffinity(web.service.node_affinity, node));

  const KubePod report = DecodePod(docs[1]);
  EXPECT_EQ(report.workload_kind, "CronJob");
  EXPECT_EQ(report.service.app, "default/report");
  const KubePod lone = DecodePod(docs[2]);
  EXPECT_EQ(lone.workload_kind, "");
  EXPECT_EQ(lone.service.app, "default/tool");
  EXPECT_EQ(lone.service.qos, QosClass::kBestEffort);
}

// Aliases of aliases ("billion laughs"): ten levels of ten would expand to 10^10 values.
TEST(KubeDocumentsTest, AliasesThatExpandPastTheTextAreRefused) {
  std::string yaml = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 10; ++level) {
    const std::string previous = "*l" + std::to_string(level - 1);
    yaml += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) yaml += (i ? ", " : "") + previous;
    yaml += "]\n";
  }
  try {
    ParseDocuments("laughs.yaml", yaml);
    ADD_FAILURE() << "accepted";
  } catch (const KubeError& e) {
    EXPECT_NE(std::string(e.what()).find("laughs.yaml"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("aliases"), std::string::npos) << e.what();
  }
  // One alias used a few times is ordinary YAML.
  EXPECT_EQ(ParseDocuments("ok.yaml", "a: &a {cpu: 1}\nb: *a\nc: *a\n").at(0)["c"]["cpu"], 1);
}

TEST(KubePodTest, NamesTheFieldAtFault) {
  const auto error_of = [](const std::string& yaml) {
    try {
      DecodePod(ParseDocuments("pod.yaml", yaml).at(0));
    } catch (const KubeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("metadata: {name: p}\nspec: {containers: [{resources: {requests: {cpu: "
                     "\"2x\"}}}]}"),
            "Pod.spec.containers[0].resources.requests.cpu: " + std::string([] {
              try {
                Quantity::Parse("2x");
              } catch (const QuantityError& e) {
                return std::string(e.what());
              }
              return std::string();
            }()));
  EXPECT_NE(error_of("metadata: {name: p}\nspec: {containers: [{}], tolerations: [{key: k, "
                     "operator: Sometimes}]}")
                .find("Pod.spec.tolerations[0].operator"),
            std::string::npos);
  EXPECT_NE(error_of("metadata: {name: p, annotations: {archimedes.io/kind: cron}}\n"
                     "spec: {containers: [{}]}")
                .find("archimedes.io/kind"),
            std::string::npos);
  EXPECT_NE(error_of("metadata: {name: p}\nspec: {containers: []}").find("needs a container"),
            std::string::npos);
  EXPECT_THROW(ParseDocuments("x.json", std::string(100, '[')), KubeError);
  EXPECT_THROW(ParseDocuments("x.yaml", "a: [b"), KubeError);
}

// Found by yaml_fuzz: nlohmann's own exception escaped.
TEST(KubeDocumentsTest, AJsonNumberBeyondADoubleIsRefused) {
  try {
    ParseDocuments("big.json", "[9, 13e4139]");
    ADD_FAILURE() << "accepted";
  } catch (const KubeError& e) {
    EXPECT_EQ(std::string(e.what()), "big.json: not valid JSON: number overflow parsing '13e4139'");
  }
}

// A CSV field as RFC 4180 writes it (the vectors quote the empty and the whitespace inputs).
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

// The value of a plain decimal string rounded up to whole thousandths / units, or nullopt when it
// is negative or beyond the resource limit.
std::optional<int64_t> Canonical(const std::string& decimal, int scale_digits) {
  if (decimal.starts_with("-")) return std::nullopt;
  const size_t dot = decimal.find('.');
  std::string whole = decimal.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : decimal.substr(dot + 1);
  frac.resize(std::max<size_t>(frac.size(), scale_digits), '0');
  whole += frac.substr(0, scale_digits);
  const bool rest = frac.find_first_not_of('0', scale_digits) != std::string::npos;
  if (whole.size() > 18) return std::nullopt;
  const int64_t v = std::stoll(whole) + (rest ? 1 : 0);
  if (v > (int64_t{1} << 46)) return std::nullopt;
  return v;
}

TEST(KubeResourceListTest, ReadsEveryKubernetesQuantityVectorAsJsonDoes) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/quantity-vectors.csv");
  std::ifstream in(testing::SharedPath("k8s-fixtures/quantity-vectors.csv"));
  std::string line;
  std::getline(in, line);  // header
  int checked = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = CsvFields(line);
    ASSERT_EQ(f.size(), 3u) << line;
    const std::string& input = f[0];
    const bool cpu = f[1] == "cpu";
    SCOPED_TRACE("input \"" + input + "\"");
    const nlohmann::json list = {{cpu ? "cpu" : "memory", input}};
    const std::optional<int64_t> want =
        f[2] == "ERROR" ? std::nullopt : Canonical(f[2], cpu ? 3 : 0);
    // JSON trims the spaces ParseQuantity refuses (TestJSONWhitespace).
    const bool spaces_only_problem = !input.empty() &&
                                     input.find_first_not_of(' ') != std::string::npos &&
                                     (input.front() == ' ' || input.back() == ' ');
    if (want) {
      const Resources r = DecodeResourceList(Field(&list, "requests"));
      EXPECT_EQ(cpu ? r.cpu() : r.memory(), *want);
    } else if (!spaces_only_problem) {
      EXPECT_THROW(DecodeResourceList(Field(&list, "requests")), KubeError);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 70);
  const nlohmann::json number = {{"cpu", 2}, {"memory", " 1Gi "}, {"ephemeral-storage", "10Gi"}};
  const Resources r = DecodeResourceList(Field(&number, "requests"));
  EXPECT_EQ(r.cpu(), 2000);
  EXPECT_EQ(r.memory(), 1LL << 30);
}

}  // namespace
}  // namespace archimedes
