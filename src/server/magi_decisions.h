// How `serve` acts on MAGI's quorum (docs/magi.md, "In the running system"). With the etcd store
// it follows the node-offline decisions MAGI's members record under the store's prefix followed
// by "magi/decisions/node-offline/" through an etcd watch, and turns each into the node status
// event: the node turns NotReady (its replicas placed again in SLA order, its tasks queued again).
// The decisions on record are kept in the context (`ApiContext::decided_offline`): a node whose
// record is gone (readmitted) turns Ready once its agent is heard (ApiServer::JudgeAgents).
//
// Only the leader writes: a follower waits. On becoming leader, and after a broken stream (the
// next endpoint is tried), the watcher lists the decisions again and watches from that revision.
#ifndef ARCHIMEDES_SERVER_MAGI_DECISIONS_H_
#define ARCHIMEDES_SERVER_MAGI_DECISIONS_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/etcd_location.h"
#include "server/router.h"
#include "store/etcd_store.h"

namespace archimedes {

class MagiDecisionWatch {
 public:
  // `context` must outlive the watch. Starts nothing.
  MagiDecisionWatch(ApiContext& context, const EtcdLocation& location);
  ~MagiDecisionWatch();  // Stop()
  MagiDecisionWatch(const MagiDecisionWatch&) = delete;
  MagiDecisionWatch& operator=(const MagiDecisionWatch&) = delete;

  void Start();
  // Ends the watch and joins its thread; safe to call twice.
  void Stop();

 private:
  void Loop();
  // Lists the decisions on record, makes those nodes NotReady; returns the revision listed.
  int64_t List(EtcdStore& store);
  void Apply(const WatchEvent& event);
  void MakeNotReady(const std::string& node);
  bool Leading() const;
  void Pause(std::chrono::milliseconds period);

  ApiContext& context_;
  std::string prefix_;                              // .../magi/decisions/node-offline/
  std::vector<std::unique_ptr<EtcdStore>> stores_;  // one per endpoint
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_MAGI_DECISIONS_H_
