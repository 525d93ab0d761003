// How a MAGI member looks at a node over the network: a TCP connect to the node's address and an
// HTTP GET of its health URL, each bounded by a timeout, plus the nodes file that lists them.
//
// The nodes file is JSON (documented in docs/magi.md):
//   {"nodes": [{"name": "node-1", "pod": "pod-a", "address": "10.0.0.11:8080",
//               "health_url": "http://10.0.0.11:8080/healthz"}, ...]}
// `health_url` is optional; without it only TCP is probed.
#ifndef ARCHIMEDES_MAGI_PROBE_H_
#define ARCHIMEDES_MAGI_PROBE_H_

#include <chrono>
#include <string>
#include <vector>

namespace archimedes::magi {

struct NodeTarget {
  std::string name;
  std::string pod;
  std::string address;  // HOST:PORT for the TCP probe
  std::string health_url;
};

// Throws std::runtime_error naming the file and the problem (unreadable, not JSON, a node
// without name or address, a duplicate name, an address without a port, a non-http URL).
std::vector<NodeTarget> LoadNodesFile(const std::string& path);

struct ProbeResult {
  bool tcp_ok = false;
  bool http_ok = false;
  std::string error;  // why a probe failed; empty when both succeeded
};

// Probes `node` once; never throws. Takes at most about twice `timeout`.
ProbeResult ProbeNode(const NodeTarget& node, std::chrono::milliseconds timeout);

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_PROBE_H_
