// Which replica of `archimedes serve` leads, through an etcd lease (DESIGN §10): the one whose
// lease holds the key `<prefix>leader`, whose value is the leader's advertised URL. TryLead
// creates the key, bound to a new lease, when no one holds it; Renew keeps the lease alive. A
// leader that dies, hangs or is cut off from etcd stops renewing, and `ttl` seconds later etcd
// deletes the key: a follower's next TryLead takes it. The key's create revision is the term of a
// leadership — a new one each time the key is created — which EtcdJournal's appends compare, so a
// deposed leader that wakes up cannot write.
//
// Not thread-safe: one thread (server/replica.h) calls it. Every etcd failure throws StoreError.
#ifndef ARCHIMEDES_SERVER_LEADERSHIP_H_
#define ARCHIMEDES_SERVER_LEADERSHIP_H_

#include <cstdint>
#include <string>

#include "store/kv_store.h"

namespace archimedes {

class Leadership {
 public:
  Leadership(KvStore& store, const std::string& prefix, std::string address, int64_t ttl_s);

  // Takes the lead if no one holds it; true when this replica leads now.
  bool TryLead();
  // Keeps the lease alive; false once it has expired (this replica no longer leads).
  bool Renew();
  // Gives the lead up at once: the key goes with the lease.
  void Resign();

  bool leading() const { return term_ != 0; }
  // The create revision of the leader key while this replica leads, else 0.
  int64_t term() const { return term_; }
  // The leader's address as last seen ("" when there was none).
  const std::string& leader() const { return leader_; }
  const std::string& address() const { return address_; }
  int64_t ttl_s() const { return ttl_s_; }

 private:
  KvStore& store_;
  std::string key_;
  std::string address_;
  int64_t ttl_s_;
  int64_t lease_ = 0;
  int64_t term_ = 0;
  std::string leader_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_LEADERSHIP_H_
