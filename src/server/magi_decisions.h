// How `serve` acts on MAGI's quorum (docs/magi.md, "In the running system"). With the etcd store
// it follows the decisions MAGI's members record under the store's prefix followed by
// "magi/decisions/" through an etcd watch, as the fault simulation's MAGI controller does
// (sim/fault_sim.h): a node-offline decision makes the node Suspect (nothing new placed there,
// nothing moved off it), and only the migrate decision the members record next — their review of
// moving what ran there, on their own evidence at that moment — makes it NotReady (its replicas
// placed again in SLA order, its tasks queued again). The decisions on record are kept in the
// context (`ApiContext::decided_offline`, `migration_approved`): a node whose record is gone
// (readmitted) turns Ready once its agent is heard (ApiServer::JudgeAgents).
//
// Only the leader writes: a follower waits. On becoming leader, and after a broken stream (the
// next endpoint is tried), the watcher lists the decisions again and watches from that revision.
#ifndef ARCHIMEDES_SERVER_MAGI_DECISIONS_H_
#define ARCHIMEDES_SERVER_MAGI_DECISIONS_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
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
  // Acts on every node whose condition lags behind the decisions on record: one registered, or
  // registered again, after they were read. The server's cycle calls it on the leader.
  void Reconcile();

 private:
  // A record under decisions/: which node, and whether it is a migrate (else node-offline) one.
  struct Record {
    std::string node;
    bool migrate = false;
  };
  static std::optional<Record> ParseKey(const std::string& key);

  void Loop();
  // Lists the decisions on record and acts on each node; returns the revision listed.
  int64_t List(EtcdStore& store);
  void Apply(const WatchEvent& event);
  // Brings `node`'s condition in line with the decisions on record for it.
  void Act(const std::string& node);
  // Nodes held offline whose migration is not yet approved; the caller holds the context's lock.
  int64_t PendingReviews() const;
  bool Leading() const;
  void Pause(std::chrono::milliseconds period);

  ApiContext& context_;
  std::string prefix_;                              // .../magi/decisions/
  std::vector<std::unique_ptr<EtcdStore>> stores_;  // one per endpoint
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_MAGI_DECISIONS_H_
