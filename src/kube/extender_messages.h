// The scheduler extender's wire format (k8s.io/kube-scheduler/extender/v1): the messages
// kube-scheduler POSTs to an extender's filter, prioritize, preempt and bind verbs, and the
// answers. The envelopes have no json tags: their keys are Go's field names (PascalCase), read
// case-insensitively as encoding/json does, written exactly; the Pods and Nodes inside are
// ordinary Kubernetes objects (kube/kube_pod.h, kube/kube_node.h). Nil maps and slices are `null`
// on the wire, both ways.
#ifndef ARCHIMEDES_KUBE_EXTENDER_MESSAGES_H_
#define ARCHIMEDES_KUBE_EXTENDER_MESSAGES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/kube_pod.h"
#include "model/node.h"

namespace archimedes {

// kube-scheduler's MaxExtenderPriority: extender scores are in [0, 10].
inline constexpr int64_t kMaxExtenderPriority = 10;

// ExtenderArgs: the pod and its candidate nodes, as full Node objects (`nodes`, when the
// extender is not nodeCacheCapable) or by name.
struct ExtenderArgs {
  nlohmann::json pod_json;  // the Pod as sent, for what the decoded form leaves out
  KubePod pod;
  std::optional<std::vector<Node>> nodes;  // ExtenderArgs.Nodes.items
  std::vector<nlohmann::json> node_jsons;  // the same, as sent (echoed back unchanged)
  std::optional<std::vector<std::string>> node_names;
  // The candidates' names in the order given, whichever form they came in.
  std::vector<std::string> candidate_names() const;
};
ExtenderArgs DecodeExtenderArgs(const nlohmann::json& body);

// ExtenderFilterResult. In full-node mode the passing nodes go back as their Node objects
// (`Nodes.items`) and NodeNames is null; in cache mode Nodes is null.
struct ExtenderFilterResult {
  bool full_nodes = false;
  std::vector<nlohmann::json> nodes;  // full-node mode
  std::vector<std::string> node_names;
  std::map<std::string, std::string> failed;               // FailedNodes: preemption may help
  std::map<std::string, std::string> failed_unresolvable;  // FailedAndUnresolvableNodes
  std::string error;
};
nlohmann::json EncodeFilterResult(const ExtenderFilterResult& result);
ExtenderFilterResult DecodeFilterResult(const nlohmann::json& body);

struct HostPriority {
  std::string host;
  int64_t score = 0;  // 0..kMaxExtenderPriority
};
nlohmann::json EncodeHostPriorityList(const std::vector<HostPriority>& list);
std::vector<HostPriority> DecodeHostPriorityList(const nlohmann::json& body);

// A victim: its UID, and the Pod when the request carried it (NodeNameToVictims).
struct Victim {
  std::string uid;
  std::optional<KubePod> pod;
};
struct NodeVictims {
  std::vector<Victim> pods;
  int64_t num_pdb_violations = 0;
};

// ExtenderPreemptionArgs: NodeNameToVictims (full Pods) or NodeNameToMetaVictims (UIDs only).
struct ExtenderPreemptionArgs {
  KubePod pod;
  bool meta = true;  // the victims came as NodeNameToMetaVictims
  std::map<std::string, NodeVictims> victims;
};
ExtenderPreemptionArgs DecodePreemptionArgs(const nlohmann::json& body);

// ExtenderPreemptionResult: always NodeNameToMetaVictims.
nlohmann::json EncodePreemptionResult(const std::map<std::string, NodeVictims>& victims);
std::map<std::string, NodeVictims> DecodePreemptionResult(const nlohmann::json& body);

struct ExtenderBindingArgs {
  std::string pod_name, pod_namespace, pod_uid, node;
};
ExtenderBindingArgs DecodeBindingArgs(const nlohmann::json& body);
nlohmann::json EncodeBindingResult(const std::string& error);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_EXTENDER_MESSAGES_H_
