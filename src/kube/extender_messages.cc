#include "kube/extender_messages.h"

#include "kube/fields.h"
#include "kube/kube_node.h"

namespace archimedes {
namespace {

nlohmann::json NamesOrNull(const std::vector<std::string>& names) { return names; }

nlohmann::json MapOrNull(const std::map<std::string, std::string>& m) {
  // Go's encoding/json writes a nil map as null; an extender sets these maps even when empty.
  return m;
}

std::map<std::string, NodeVictims> DecodeVictimMap(const Field& map, bool meta) {
  std::map<std::string, NodeVictims> out;
  if (!map.present()) return out;
  if (!map.json().is_object()) map.Fail("expected an object of nodes");
  for (auto it = map.json().begin(); it != map.json().end(); ++it) {
    const Field node(&*it, map.path() + "." + it.key());
    NodeVictims v;
    for (const Field& p : node.GetFolded("Pods").Items()) {
      if (meta) {
        const Field uid = p.GetFolded("UID");
        if (uid.String().empty()) uid.Fail("a victim needs its UID");
        v.pods.push_back({.uid = uid.String()});
      } else {
        KubePod pod = DecodePod(p.json(), p.path());
        v.pods.push_back({.uid = pod.uid, .pod = std::move(pod)});
      }
    }
    v.num_pdb_violations = node.GetFolded("NumPDBViolations").Int(0);
    out[it.key()] = std::move(v);
  }
  return out;
}

}  // namespace

std::vector<std::string> ExtenderArgs::candidate_names() const {
  if (nodes) {
    std::vector<std::string> names;
    for (const Node& n : *nodes) names.push_back(n.name);
    return names;
  }
  return node_names.value_or(std::vector<std::string>{});
}

ExtenderArgs DecodeExtenderArgs(const nlohmann::json& body) {
  const Field root(&body, "ExtenderArgs");
  if (!body.is_object()) root.Fail("expected an object");
  ExtenderArgs args;
  const Field pod = root.GetFolded("Pod");
  if (!pod.present()) pod.Fail("the pod to schedule is missing");
  args.pod_json = pod.json();
  args.pod = DecodePod(pod.json(), pod.path());
  if (const Field nodes = root.GetFolded("Nodes"); nodes.present()) {
    args.nodes.emplace();
    for (const Field& n : nodes.Get("items").Items()) {
      args.nodes->push_back(DecodeKubeNode(n.json(), n.path()));
      args.node_jsons.push_back(n.json());
    }
  }
  if (const Field names = root.GetFolded("NodeNames"); names.present()) {
    args.node_names = names.Strings();
  }
  if (args.nodes && args.node_names) {
    root.Fail("both Nodes and NodeNames are set; kube-scheduler sends one of them");
  }
  if (!args.nodes && !args.node_names) {
    root.Fail("neither Nodes nor NodeNames is set: no candidate node");
  }
  return args;
}

nlohmann::json EncodeFilterResult(const ExtenderFilterResult& r) {
  nlohmann::json out = nlohmann::json::object();
  if (r.full_nodes) {
    out["Nodes"] = {{"metadata", nlohmann::json::object()}, {"items", r.nodes}};
    out["NodeNames"] = nullptr;
  } else {
    out["Nodes"] = nullptr;
    out["NodeNames"] = NamesOrNull(r.node_names);
  }
  out["FailedNodes"] = MapOrNull(r.failed);
  out["FailedAndUnresolvableNodes"] = MapOrNull(r.failed_unresolvable);
  out["Error"] = r.error;
  return out;
}

ExtenderFilterResult DecodeFilterResult(const nlohmann::json& body) {
  const Field root(&body, "ExtenderFilterResult");
  ExtenderFilterResult r;
  if (const Field nodes = root.GetFolded("Nodes"); nodes.present()) {
    r.full_nodes = true;
    for (const Field& n : nodes.Get("items").Items()) r.nodes.push_back(n.json());
  }
  r.node_names = root.GetFolded("NodeNames").Strings();
  r.failed = root.GetFolded("FailedNodes").StringMap();
  r.failed_unresolvable = root.GetFolded("FailedAndUnresolvableNodes").StringMap();
  r.error = root.GetFolded("Error").String();
  return r;
}

nlohmann::json EncodeHostPriorityList(const std::vector<HostPriority>& list) {
  nlohmann::json a = nlohmann::json::array();
  for (const HostPriority& h : list) a.push_back({{"Host", h.host}, {"Score", h.score}});
  return a;
}

std::vector<HostPriority> DecodeHostPriorityList(const nlohmann::json& body) {
  const Field root(&body, "HostPriorityList");
  std::vector<HostPriority> out;
  for (const Field& f : root.Items()) {
    out.push_back({.host = f.GetFolded("Host").String(), .score = f.GetFolded("Score").Int()});
  }
  return out;
}

ExtenderPreemptionArgs DecodePreemptionArgs(const nlohmann::json& body) {
  const Field root(&body, "ExtenderPreemptionArgs");
  if (!body.is_object()) root.Fail("expected an object");
  ExtenderPreemptionArgs args;
  const Field pod = root.GetFolded("Pod");
  if (!pod.present()) pod.Fail("the preemptor pod is missing");
  args.pod = DecodePod(pod.json(), pod.path());
  const Field full = root.GetFolded("NodeNameToVictims");
  const Field meta = root.GetFolded("NodeNameToMetaVictims");
  if (full.present() && meta.present()) {
    root.Fail("both NodeNameToVictims and NodeNameToMetaVictims are set");
  }
  args.meta = !full.present();
  args.victims = args.meta ? DecodeVictimMap(meta, true) : DecodeVictimMap(full, false);
  return args;
}

nlohmann::json EncodePreemptionResult(const std::map<std::string, NodeVictims>& victims) {
  nlohmann::json map = nlohmann::json::object();
  for (const auto& [node, v] : victims) {
    nlohmann::json pods = nlohmann::json::array();
    for (const Victim& p : v.pods) pods.push_back({{"UID", p.uid}});
    map[node] = {{"Pods", pods}, {"NumPDBViolations", v.num_pdb_violations}};
  }
  return {{"NodeNameToMetaVictims", map}};
}

std::map<std::string, NodeVictims> DecodePreemptionResult(const nlohmann::json& body) {
  const Field root(&body, "ExtenderPreemptionResult");
  return DecodeVictimMap(root.GetFolded("NodeNameToMetaVictims"), true);
}

ExtenderBindingArgs DecodeBindingArgs(const nlohmann::json& body) {
  const Field root(&body, "ExtenderBindingArgs");
  if (!body.is_object()) root.Fail("expected an object");
  ExtenderBindingArgs a{.pod_name = root.GetFolded("PodName").String(),
                        .pod_namespace = root.GetFolded("PodNamespace").String(),
                        .pod_uid = root.GetFolded("PodUID").String(),
                        .node = root.GetFolded("Node").String()};
  if (a.pod_name.empty()) root.GetFolded("PodName").Fail("the pod's name is missing");
  if (a.node.empty()) root.GetFolded("Node").Fail("the node is missing");
  if (a.pod_namespace.empty()) a.pod_namespace = "default";
  return a;
}

nlohmann::json EncodeBindingResult(const std::string& error) { return {{"Error", error}}; }

}  // namespace archimedes
