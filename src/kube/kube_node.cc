#include "kube/kube_node.h"

#include "kube/resource_list.h"

namespace archimedes {
namespace {

TaintEffect Effect(const Field& f) {
  const std::string name = f.String();
  const std::optional<TaintEffect> effect = ParseTaintEffect(name);
  if (!effect) f.Fail("\"" + name + "\" is not NoSchedule, PreferNoSchedule or NoExecute");
  return *effect;
}

std::vector<NodeSelectorRequirement> Requirements(const Field& list, bool fields) {
  std::vector<NodeSelectorRequirement> out;
  for (const Field& f : list.Items()) {
    NodeSelectorRequirement r;
    r.key = f.Get("key").String();
    const Field op = f.Get("operator");
    const std::optional<SelectorOp> parsed = ParseSelectorOp(op.String());
    if (!parsed)
      op.Fail("\"" + op.String() + "\" is not In, NotIn, Exists, DoesNotExist, Gt or Lt");
    r.op = *parsed;
    r.values = f.Get("values").Strings();
    if (const std::string problem = ValidateRequirement(r, fields); !problem.empty())
      f.Fail(problem);
    out.push_back(std::move(r));
  }
  return out;
}

nlohmann::json EncodeRequirements(const std::vector<NodeSelectorRequirement>& rs) {
  nlohmann::json a = nlohmann::json::array();
  for (const NodeSelectorRequirement& r : rs) {
    nlohmann::json o = {{"key", r.key}, {"operator", std::string(SelectorOpName(r.op))}};
    if (!r.values.empty()) o["values"] = r.values;
    a.push_back(std::move(o));
  }
  return a;
}

}  // namespace

std::string KubeletAddress(const nlohmann::json& node, const std::string& path) {
  const Field status = Field(&node, path).Get("status");
  std::string ip;
  for (const char* type : {"InternalIP", "ExternalIP"}) {
    for (const Field& a : status.Get("addresses").Items()) {
      if (ip.empty() && a.Get("type").String() == type) ip = a.Get("address").String();
    }
  }
  if (ip.empty()) return "";
  // The real key is "Port", capital P (k8s.io/api/core/v1 DaemonEndpoint).
  const Field port = status.Get("daemonEndpoints").Get("kubeletEndpoint").GetFolded("Port");
  const int64_t number = port.Int(10250);
  if (number < 1 || number > 65535) port.Fail("a port is in [1, 65535]");
  const bool v6 = ip.find(':') != std::string::npos;
  return (v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(number);
}

std::vector<Taint> DecodeTaints(const Field& taints) {
  std::vector<Taint> out;
  for (const Field& f : taints.Items()) {
    Taint t{.key = f.Get("key").String(), .value = f.Get("value").String()};
    if (t.key.empty()) f.Get("key").Fail("a taint needs a key");
    t.effect = Effect(f.Get("effect"));
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Toleration> DecodeTolerations(const Field& tolerations) {
  std::vector<Toleration> out;
  for (const Field& f : tolerations.Items()) {
    Toleration t{.key = f.Get("key").String(), .value = f.Get("value").String()};
    const Field op = f.Get("operator");
    const std::string name = op.String("Equal");
    if (name != "Equal" && name != "Exists") op.Fail("\"" + name + "\" is not Equal or Exists");
    t.exists = name == "Exists";
    if (t.exists && !t.value.empty()) f.Get("value").Fail("must be empty with operator Exists");
    if (t.key.empty() && !t.exists) f.Get("key").Fail("an empty key needs operator Exists");
    if (const Field e = f.Get("effect"); e.present() && !e.String().empty()) t.effect = Effect(e);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<NodeSelectorTerm> DecodeNodeSelector(const Field& selector) {
  std::vector<NodeSelectorTerm> out;
  if (!selector.present()) return out;
  const Field terms = selector.Get("nodeSelectorTerms");
  if (!terms.present() || terms.Items().empty()) {
    terms.Fail("a required node affinity needs at least one node selector term");
  }
  for (const Field& f : terms.Items()) {
    out.push_back({.match_expressions = Requirements(f.Get("matchExpressions"), false),
                   .match_fields = Requirements(f.Get("matchFields"), true)});
  }
  return out;
}

nlohmann::json EncodeTaints(const std::vector<Taint>& taints) {
  nlohmann::json a = nlohmann::json::array();
  for (const Taint& t : taints) {
    nlohmann::json o = {{"key", t.key}, {"effect", std::string(TaintEffectName(t.effect))}};
    if (!t.value.empty()) o["value"] = t.value;
    a.push_back(std::move(o));
  }
  return a;
}

nlohmann::json EncodeTolerations(const std::vector<Toleration>& tolerations) {
  nlohmann::json a = nlohmann::json::array();
  for (const Toleration& t : tolerations) {
    nlohmann::json o = {{"operator", t.exists ? "Exists" : "Equal"}};
    if (!t.key.empty()) o["key"] = t.key;
    if (!t.value.empty()) o["value"] = t.value;
    if (t.effect) o["effect"] = std::string(TaintEffectName(*t.effect));
    a.push_back(std::move(o));
  }
  return a;
}

nlohmann::json EncodeNodeSelector(const std::vector<NodeSelectorTerm>& terms) {
  nlohmann::json a = nlohmann::json::array();
  for (const NodeSelectorTerm& t : terms) {
    nlohmann::json o = nlohmann::json::object();
    if (!t.match_expressions.empty())
      o["matchExpressions"] = EncodeRequirements(t.match_expressions);
    if (!t.match_fields.empty()) o["matchFields"] = EncodeRequirements(t.match_fields);
    a.push_back(std::move(o));
  }
  return {{"nodeSelectorTerms", a}};
}

Node DecodeKubeNode(const nlohmann::json& json, const std::string& path) {
  const Field root(&json, path);
  if (!root.present() || !json.is_object()) root.Fail("expected a Node object");
  Node node;
  const Field meta = root.Get("metadata");
  node.name = meta.Get("name").String();
  if (node.name.empty()) meta.Get("name").Fail("a Node needs a name");
  node.labels = meta.Get("labels").StringMap();
  for (const char* key :
       {"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"}) {
    if (auto it = node.labels.find(key); it != node.labels.end() && node.zone.empty()) {
      node.zone = it->second;
    }
  }
  if (auto it = node.labels.find("archimedes.io/pod"); it != node.labels.end()) {
    node.pod = it->second;
  }
  const Field spec = root.Get("spec");
  node.taints = DecodeTaints(spec.Get("taints"));
  if (spec.Get("unschedulable").Bool()) {
    node.taints.push_back(
        {.key = "node.kubernetes.io/unschedulable", .effect = TaintEffect::kNoSchedule});
  }
  const Field status = root.Get("status");
  node.capacity = DecodeResourceList(status.Get("capacity"));
  const Field allocatable = status.Get("allocatable");
  node.allocatable = allocatable.present() ? DecodeResourceList(allocatable) : node.capacity;
  if (!status.Get("capacity").present()) node.capacity = node.allocatable;
  node.condition = NodeCondition::kNotReady;
  for (const Field& c : status.Get("conditions").Items()) {
    if (c.Get("type").String() == "Ready") {
      node.condition =
          c.Get("status").String() == "True" ? NodeCondition::kReady : NodeCondition::kNotReady;
    }
  }
  return node;
}

}  // namespace archimedes
