// A Kubernetes Node as a node of serve's fleet, whether it comes from POST /scheduler/nodes or the
// API server's watch (server/kube_scheduler.h): its allocatable, labels, zone and taints
// (kube/kube_node.h), and its kubelet's endpoint as `spec.address` with `spec.probe: tcp` for
// MAGI's members. Its Ready condition is one observer's view: False or Unknown makes a Ready
// node Suspect (nothing new placed there, nothing moved off it); True again lifts that suspicion,
// never a hold of MAGI's quorum.
#ifndef ARCHIMEDES_SERVER_KUBE_NODES_H_
#define ARCHIMEDES_SERVER_KUBE_NODES_H_

#include <nlohmann/json.hpp>

#include "server/router.h"

namespace archimedes {

// Registers (or updates) the node `doc` describes. Returns the reply of the registration, its
// body the node as GET /v1/nodes/NAME shows it after any condition change. Throws KubeError for a
// malformed Node, ApiError for one the fleet refuses.
Reply RegisterKubeNode(ApiContext& context, const nlohmann::json& doc);

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_KUBE_NODES_H_
