// One replica of `archimedes serve` on etcd (DESIGN §10; docs/api.md, "High availability"). Every
// replica holds the whole state in memory, rebuilt from the log in etcd (server/etcd_journal.h);
// one leads (server/leadership.h) and the others follow:
//
//  - The leader applies the writes and appends each event to the log before it answers, exactly
//    as with SQLite; it renews its lease every third of the TTL. When the lease is lost (it could
//    not renew in time, or an append finds another leader) the process exits with status 1: its
//    memory holds events the log may not, and a restart rebuilds it from the log as a follower.
//    Every 5 minutes it compacts etcd's history (EtcdJournal::CompactHistory).
//  - A follower polls the log every 100 ms for the events after the last one it applied and
//    applies them (so its reads, the long-polls of node agents included, lag the leader by that
//    much), answers writes with 503 NotLeader naming the leader, and tries to take the lead each
//    time it polls. When it does, it reads the rest of the log — final, since the old leader's
//    appends are fenced off — and leads from the next sequence number.
//
// Polling rather than an etcd watch: the JSON gateway serves watches as one long chunked answer
// per watcher, which would need its own connection, reconnection and compaction handling, while
// a range read from the next sequence number is one cheap request that also catches up after any
// pause, in pages.
#ifndef ARCHIMEDES_SERVER_REPLICA_H_
#define ARCHIMEDES_SERVER_REPLICA_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "server/etcd_journal.h"
#include "server/leadership.h"
#include "server/router.h"

namespace archimedes {

class Replica {
 public:
  // `address`: this replica's URL, which followers name to clients.
  Replica(EtcdJournal& journal, ApiContext& context, std::string address, int64_t lease_ttl_s);
  ~Replica();
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // Replays the log (the replica is ready then), and starts following and standing for the lead
  // on a thread. Returns the number of events replayed. Throws JournalError.
  int64_t Start();
  // Stops the thread and, when leading, hands the lead over at once.
  void Stop();

 private:
  void Loop();
  void Follow();
  void Promote();
  void SetLeader(const std::string& leader);
  [[noreturn]] void Die(const std::string& why);

  EtcdJournal& journal_;
  ApiContext& context_;
  Leadership leadership_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_REPLICA_H_
