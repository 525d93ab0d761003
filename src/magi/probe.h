// How a MAGI member looks at a node over the network: a TCP connect to the node's address and an
// HTTP GET of its health URL, each bounded by a timeout. The nodes come from the caller (for
// `archimedes magi`, the nodes file read by trace/magi_nodes_file.h).
#ifndef ARCHIMEDES_MAGI_PROBE_H_
#define ARCHIMEDES_MAGI_PROBE_H_

#include <chrono>
#include <string>

namespace archimedes::magi {

struct NodeTarget {
  std::string name;
  std::string pod;
  std::string address;     // HOST:PORT for the TCP probe
  std::string health_url;  // empty: only TCP is probed
};

struct ProbeResult {
  bool tcp_ok = false;
  bool http_ok = false;
  std::string error;  // why a probe failed; empty when both succeeded
};

// Probes `node` once; never throws. Takes at most about twice `timeout`.
ProbeResult ProbeNode(const NodeTarget& node, std::chrono::milliseconds timeout);

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_PROBE_H_
