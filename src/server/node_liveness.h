// How the server hears its agents: a node is watched once its agent asks for its actions; when no
// request of its agent has been seen for `grace`, the node is silent. Without MAGI (the SQLite
// store) the server then makes it NotReady (the engine's node-failed event: its replicas placed
// again, its tasks queued again), as Kubernetes' node lifecycle controller does with the
// kubelet's heartbeats and its node-monitor-grace-period; with MAGI (etcd) only Suspect, and the
// quorum decides (docs/magi.md). The agent's next request makes a node Ready again. A long-poll
// counts as contact until it was due to answer.
//
// Contacts are kept in memory: after a restart a node is watched again from its agent's first
// request. Not thread-safe: the caller holds the server's lock.
#ifndef ARCHIMEDES_SERVER_NODE_LIVENESS_H_
#define ARCHIMEDES_SERVER_NODE_LIVENESS_H_

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace archimedes {

class NodeLiveness {
 public:
  using Clock = std::chrono::steady_clock;

  // A zero grace watches nothing.
  explicit NodeLiveness(std::chrono::seconds grace) : grace_(grace) {}

  // The agent of `node` asked at `now` and is answered by `now + wait` at the latest.
  void Contact(const std::string& node, Clock::time_point now,
               std::chrono::seconds wait = std::chrono::seconds(0));
  // Nodes not heard from for longer than the grace at `now`.
  std::vector<std::string> Silent(Clock::time_point now) const;
  // Nodes heard from within the grace at `now`.
  std::vector<std::string> Heard(Clock::time_point now) const;
  // Every watched node and its latest contact as of `now` (a long-poll still waiting: `now`).
  std::vector<std::pair<std::string, Clock::time_point>> LastContacts(Clock::time_point now) const;
  // No longer watched (the node was removed).
  void Forget(const std::string& node) { last_.erase(node); }

 private:
  std::chrono::seconds grace_;
  std::map<std::string, Clock::time_point> last_;  // when each agent was last in contact
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_NODE_LIVENESS_H_
