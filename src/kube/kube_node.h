// A Kubernetes Node as Archimedes reads it: metadata.name and labels; status.allocatable (what
// pods may request) and status.capacity (kube/resource_list.h); the zone from the label
// topology.kubernetes.io/zone (or the older failure-domain.beta.kubernetes.io/zone), the POD from
// archimedes.io/pod; spec.taints, and spec.unschedulable as the taint
// node.kubernetes.io/unschedulable:NoSchedule (kube-scheduler's NodeUnschedulable); Ready when its
// Ready condition is "True". Other fields (managedFields, images, nodeInfo, ...) are ignored.
#ifndef ARCHIMEDES_KUBE_KUBE_NODE_H_
#define ARCHIMEDES_KUBE_KUBE_NODE_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/fields.h"
#include "model/node.h"
#include "model/node_affinity.h"
#include "model/taint.h"

namespace archimedes {

Node DecodeKubeNode(const nlohmann::json& node, const std::string& path = "Node");

// Where the node's kubelet listens, HOST:PORT ("[IPv6]:PORT"): its first InternalIP (else its
// first ExternalIP) from status.addresses and status.daemonEndpoints.kubeletEndpoint.Port (10250,
// the kubelet's default, when absent). "" when the node states no IP. Throws KubeError naming the
// field when a value has the wrong type or the port is outside [1, 65535].
std::string KubeletAddress(const nlohmann::json& node, const std::string& path = "Node");

// The pieces Pods and Nodes share, also read by the service's own objects (server/objects.h).
std::vector<Taint> DecodeTaints(const Field& taints);
std::vector<Toleration> DecodeTolerations(const Field& tolerations);
// A NodeSelector ({"nodeSelectorTerms": [...]}).
std::vector<NodeSelectorTerm> DecodeNodeSelector(const Field& selector);

nlohmann::json EncodeTaints(const std::vector<Taint>& taints);
nlohmann::json EncodeTolerations(const std::vector<Toleration>& tolerations);
nlohmann::json EncodeNodeSelector(const std::vector<NodeSelectorTerm>& terms);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_KUBE_NODE_H_
