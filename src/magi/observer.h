// Where a MAGI member's evidence of the nodes comes from: a probe round over every node, and each
// node's heartbeat as the API server sees it. A real member observes over the network
// (magi/network_observer.h); the fault simulation answers from its simulated world, so that it
// runs the same member code (magi/member.h).
#ifndef ARCHIMEDES_MAGI_OBSERVER_H_
#define ARCHIMEDES_MAGI_OBSERVER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "magi/probe.h"

namespace archimedes::magi {

// A probe of one node that missed an answer: TCP, HTTP or both.
struct MissedProbe {
  size_t node = 0;  // index into the nodes that were probed
  ProbeResult result;
};

class NodeObserver {
 public:
  virtual ~NodeObserver() = default;

  // Probes every node of `nodes` once, in the round that lands at second `now`. Returns the
  // probes that missed an answer, in node order; every node left out answered both (a node
  // without a health URL: TCP, the only probe it has).
  virtual std::vector<MissedProbe> ProbeAll(const std::vector<NodeTarget>& nodes, int64_t now) = 0;

  // The age at `now` of each named node's latest heartbeat, aligned with `nodes`; nullopt where
  // the heartbeat is unknown or cannot be seen from here. May throw StoreError
  // (store/kv_store.h) when the channel it reads fails.
  virtual std::vector<std::optional<int64_t>> HeartbeatAges(const std::vector<std::string>& nodes,
                                                            int64_t now) = 0;
};

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_OBSERVER_H_
