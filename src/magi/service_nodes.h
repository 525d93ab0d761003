// The nodes a MAGI member watches, as `archimedes serve` knows them (GET /v1/nodes, docs/api.md):
// every node registered with an `address`, in the node's POD, probed as its `probe` says: a TCP
// connect to it and a GET of http://ADDRESS/healthz (`healthz`: an agent), or the TCP connect only
// (`tcp`: a Kubernetes node's kubelet port). Nodes without an address are left out. This keeps a
// member's view of the fleet current as nodes join and leave, instead of a static nodes file.
#ifndef ARCHIMEDES_MAGI_SERVICE_NODES_H_
#define ARCHIMEDES_MAGI_SERVICE_NODES_H_

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "magi/probe.h"

namespace archimedes::magi {

// Reads the nodes from the first of `servers` (comma-separated http://HOST:PORT URLs) that
// answers, sorted by name. Throws std::runtime_error naming each server and why it failed, or the
// malformed answer.
std::vector<NodeTarget> ReadServiceNodes(const std::string& servers,
                                         std::chrono::milliseconds timeout);

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_SERVICE_NODES_H_
