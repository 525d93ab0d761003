// A KvStore (store/kv_store.h) held in memory: etcd's semantics in one process, on a clock its
// owner advances, as LevelDB's in-memory Env stands in for a file system. The fault simulation
// runs its MAGI members over one; tests use it where they need no real etcd.
//
// Contract:
//  - Time is the owner's, in seconds: the store starts at `now` and moves only by AdvanceTo. A
//    lease granted or kept alive at t with TTL T expires when the clock reaches t + T; its keys
//    are then deleted in one revision. Nothing reads the wall clock, so runs are deterministic.
//  - Revisions start at 1 for the empty store and lease ids count up from 1.
//  - Unlike etcd, TTLs are not rounded up to a minimum and nothing outlives the object.
//  - Calls are serialised by an internal mutex, so one MemoryStore may be shared by threads.
#ifndef ARCHIMEDES_STORE_MEMORY_STORE_H_
#define ARCHIMEDES_STORE_MEMORY_STORE_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "store/kv_store.h"

namespace archimedes {

class MemoryStore : public KvStore {
 public:
  explicit MemoryStore(int64_t now = 0);
  MemoryStore(const MemoryStore&) = delete;
  MemoryStore& operator=(const MemoryStore&) = delete;

  // Moves the clock to `now` and expires the leases due by then. Throws std::invalid_argument
  // if `now` is before the store's clock.
  void AdvanceTo(int64_t now);
  int64_t now() const;

  // "memory".
  const std::string& name() const override { return name_; }

  int64_t Put(const std::string& key, const std::string& value, int64_t lease = 0) override;
  std::optional<KeyValue> Get(const std::string& key) override;
  std::vector<KeyValue> GetPrefix(const std::string& prefix) override;
  std::vector<KeyValue> GetPrefixKeys(const std::string& prefix) override;
  std::vector<KeyValue> GetRange(const std::string& from, const std::string& end,
                                 int64_t limit) override;
  int64_t Delete(const std::string& key) override;
  int64_t DeletePrefix(const std::string& prefix) override;
  CreateResult CreateIfAbsent(const std::string& key, const std::string& value,
                              int64_t lease = 0) override;
  TxnResult Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                const std::vector<TxnOp>& failure) override;
  int64_t GrantLease(int64_t ttl_seconds) override;
  int64_t KeepAlive(int64_t lease) override;
  void RevokeLease(int64_t lease) override;
  // It keeps no history: Compact, the default, has nothing to discard.
  int64_t Revision() override;

 private:
  struct Entry {
    std::string value;
    int64_t create_revision = 0;
    int64_t mod_revision = 0;
    int64_t version = 0;
    int64_t lease = 0;
  };
  struct Lease {
    int64_t ttl = 0;
    int64_t expires_at = 0;
    std::set<std::string> keys;
  };

  // The Locked helpers expect mu_ held. Writes take the revision to stamp; the caller raises
  // revision_ once for the writes that changed something.
  std::optional<KeyValue> GetLocked(const std::string& key) const;
  std::vector<KeyValue> RangeLocked(const std::string& prefix, bool with_values) const;
  void PutLocked(const std::string& key, const std::string& value, int64_t lease, int64_t revision);
  bool DeleteLocked(const std::string& key);
  void CheckLeaseLocked(int64_t lease, const char* operation) const;
  bool HoldsLocked(const Compare& compare) const;
  // Applies one transaction branch under one revision; throws before changing anything if the
  // branch is malformed.
  std::vector<KeyValue> ApplyLocked(const std::vector<TxnOp>& ops, const char* operation);
  void EndLeaseLocked(std::map<int64_t, Lease>::iterator lease);
  StoreError Error(const char* operation, const std::string& cause) const;

  const std::string name_ = "memory";
  mutable std::mutex mu_;
  int64_t now_;
  int64_t revision_ = 1;
  int64_t next_lease_ = 1;
  std::map<std::string, Entry> entries_;
  std::map<int64_t, Lease> leases_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_STORE_MEMORY_STORE_H_
