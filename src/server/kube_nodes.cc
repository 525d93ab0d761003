#include "server/kube_nodes.h"

#include <mutex>
#include <optional>

#include "kube/fields.h"
#include "kube/kube_node.h"
#include "server/objects.h"

namespace archimedes {
namespace {

// What a Kubernetes Node's Ready condition says, read as kube/kube_node.h reads it: true for
// "True", false for "False" or "Unknown", nothing when the node has no Ready condition (no
// opinion: a node written by hand).
std::optional<bool> StatedReady(const nlohmann::json& node) {
  std::optional<bool> ready;
  for (const Field& c : Field(&node, "").Get("status").Get("conditions").Items()) {
    if (c.Get("type").String() == "Ready") ready = c.Get("status").String() == "True";
  }
  return ready;
}

}  // namespace

Reply RegisterKubeNode(ApiContext& context, const nlohmann::json& doc) {
  const Node node = DecodeKubeNode(doc);
  const std::optional<bool> stated_ready = StatedReady(doc);
  const std::string kubelet = KubeletAddress(doc);
  nlohmann::json spec = EncodeNodeSpec(node);
  // MAGI's members probe the kubelet's port: a TCP connect, as it answers only TLS with
  // credentials (docs/magi.md).
  if (!kubelet.empty()) {
    spec["address"] = kubelet;
    spec["probe"] = "tcp";
  }
  const nlohmann::json body = {{"apiVersion", "archimedes.io/v1"},
                               {"kind", "Node"},
                               {"metadata", {{"labels", node.labels}}},
                               {"spec", spec}};
  Reply reply =
      context.Mutate({.kind = EventKind::kPutNode, .target = node.name, .body = body.dump()});
  const std::string condition = reply.body["status"].value("condition", "");
  bool held_by_quorum = false;
  {
    std::lock_guard lock(context.mu);
    held_by_quorum = context.HeldByQuorum(node.name);
  }
  std::optional<nlohmann::json> status;
  if (stated_ready == false && condition == "Ready") {
    status = nlohmann::json::object(
        {{"condition", "Suspect"}, {"reason", "the Kubernetes API server reports it not Ready"}});
  }
  if (stated_ready == true && condition == "Suspect" && !held_by_quorum) {
    status = nlohmann::json::object({{"condition", "Ready"}});
  }
  if (status) {
    const int code = reply.status;
    reply = context.Mutate({.kind = EventKind::kNodeStatus,
                            .target = node.name,
                            .body = nlohmann::json{{"status", *status}}.dump()});
    reply.status = code;
  }
  return reply;
}

}  // namespace archimedes
