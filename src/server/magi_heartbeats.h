// `serve` as MAGI's heartbeat channel (docs/magi.md, "In the running system"): with the etcd store
// and the wall clock, the leader writes <prefix>magi/heartbeats/<node> = {"at": SECONDS}, the
// wall second of the node's agent's latest contact, for every node whose agent it hears — what a
// kubelet's node lease is to the API server. A member that cannot reach a node but sees its
// heartbeat younger than its heartbeat grace votes no: the path is broken, not the node
// (magi/quorum.h). A node's heartbeat is written again only when its agent was heard since, and
// at most once per `period`, so the members' grace must be longer than the period.
//
// A failed write is logged (once per distinct error) and retried at the next call. Not
// thread-safe: one caller.
#ifndef ARCHIMEDES_SERVER_MAGI_HEARTBEATS_H_
#define ARCHIMEDES_SERVER_MAGI_HEARTBEATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "server/etcd_location.h"
#include "store/etcd_cluster.h"

namespace archimedes {

class MagiHeartbeats {
 public:
  MagiHeartbeats(const EtcdLocation& location, int64_t period_s);

  // `contacts`: each node and the wall second of its agent's latest contact. Writes those due at
  // wall second `now`.
  void Renew(const std::vector<std::pair<std::string, int64_t>>& contacts, int64_t now);

 private:
  struct Written {
    int64_t at = 0;       // the contact written
    int64_t written = 0;  // when
  };

  EtcdCluster store_;
  std::string prefix_;  // .../magi/heartbeats/
  int64_t period_s_;
  std::map<std::string, Written> written_;
  std::string last_failure_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_MAGI_HEARTBEATS_H_
