// How a real MAGI member observes the nodes (magi/observer.h): probes over the network, each a TCP
// connect and an HTTP GET of the node's health URL in parallel (magi/probe.h), and heartbeats read
// from the store, where each node writes `<key_prefix>heartbeats/<node>` = {"at": SECONDS} as a
// kubelet writes to the API server.
//
// Nodes named (one per line) in `blocked_file` are treated as unreachable: fault injection where a
// test cannot cut real links. The file is read again every round; an absent file blocks nothing.
// It is a runtime control the test edits while the member runs, not an input, hence read here
// rather than in src/trace/ (docs/architecture.md).
#ifndef ARCHIMEDES_MAGI_NETWORK_OBSERVER_H_
#define ARCHIMEDES_MAGI_NETWORK_OBSERVER_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "magi/observer.h"
#include "store/kv_store.h"

namespace archimedes::magi {

class NetworkObserver : public NodeObserver {
 public:
  // `store` must outlive the observer. Throws std::invalid_argument if `probe_timeout` is not
  // positive.
  NetworkObserver(KvStore& store, std::string key_prefix, std::chrono::milliseconds probe_timeout,
                  std::string blocked_file = "");

  std::vector<MissedProbe> ProbeAll(const std::vector<NodeTarget>& nodes, int64_t now) override;
  // One read of the heartbeats prefix; nothing when no node is asked for.
  std::vector<std::optional<int64_t>> HeartbeatAges(const std::vector<std::string>& nodes,
                                                    int64_t now) override;

 private:
  KvStore& store_;
  std::string heartbeats_prefix_;
  std::chrono::milliseconds probe_timeout_;
  std::string blocked_file_;
};

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_NETWORK_OBSERVER_H_
