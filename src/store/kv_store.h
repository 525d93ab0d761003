// A key-value store with etcd's data model: what MAGI members (magi/member.h) keep their votes and
// decisions in. Two implementations: EtcdStore (store/etcd_store.h), a client of a real etcd, and
// MemoryStore (store/memory_store.h), the same semantics in one process on a clock its owner
// advances.
//
// Contract (both implementations; tests/store/kv_store_test.cc runs it against both):
//  - Keys and values are arbitrary bytes. Every write that changes something raises the store's
//    revision by one; a transaction's writes share one revision. A key records the revision that
//    created it, the revision that last wrote it and how many writes it has seen since it was
//    created (its version); a key that does not exist has all three 0.
//  - A lease lives `ttl` seconds unless kept alive; when it expires or is revoked, every key
//    attached to it is deleted. Writing with a lease that does not exist fails.
//  - Every failure (store unreachable, unknown lease, a malformed request) throws StoreError
//    naming the store and the operation. Nothing is retried: callers decide.
#ifndef ARCHIMEDES_STORE_KV_STORE_H_
#define ARCHIMEDES_STORE_KV_STORE_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace archimedes {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;  // 0: not attached to a lease
};

// One condition of a transaction. A key that does not exist has create revision, mod revision
// and version 0, which is how "create only if absent" is written; a value comparison on it fails.
struct Compare {
  enum class Target : uint8_t { kCreateRevision, kModRevision, kVersion, kValue };
  enum class Result : uint8_t { kEqual, kNotEqual, kGreater, kLess };
  std::string key;
  Target target = Target::kCreateRevision;
  Result result = Result::kEqual;
  int64_t number = 0;  // for the revision and version targets
  std::string value;   // for kValue
};

// One operation of a transaction branch. Operations run in order and see the writes before them;
// a branch may write a key only once.
struct TxnOp {
  enum class Kind : uint8_t { kPut, kGet, kDelete };
  Kind kind = Kind::kGet;
  std::string key;
  std::string value;  // kPut only
  int64_t lease = 0;  // kPut only
};

struct TxnResult {
  bool succeeded = false;       // whether every compare held and the success branch ran
  std::vector<KeyValue> found;  // the keys read by the branch's kGet operations, in order
};

struct CreateResult {
  bool created = false;  // false: the key existed and was left alone
  KeyValue current;      // what the key holds now
};

class KvStore {
 public:
  virtual ~KvStore() = default;

  // Where the store is, for messages: an endpoint URL, or "memory".
  virtual const std::string& name() const = 0;

  // Returns the revision of the store after the write.
  virtual int64_t Put(const std::string& key, const std::string& value, int64_t lease = 0) = 0;
  virtual std::optional<KeyValue> Get(const std::string& key) = 0;
  // Every key that starts with `prefix`, in key order.
  virtual std::vector<KeyValue> GetPrefix(const std::string& prefix) = 0;
  // The same without the values (left empty): listing keys does not copy what they hold.
  virtual std::vector<KeyValue> GetPrefixKeys(const std::string& prefix) = 0;
  // At most `limit` (> 0) keys of [from, end), in key order: a page of a long range.
  virtual std::vector<KeyValue> GetRange(const std::string& from, const std::string& end,
                                         int64_t limit) = 0;
  // Returns the number of keys deleted.
  virtual int64_t Delete(const std::string& key) = 0;
  virtual int64_t DeletePrefix(const std::string& prefix) = 0;

  // Writes `value` only if `key` does not exist, atomically: of concurrent writers exactly one
  // succeeds.
  virtual CreateResult CreateIfAbsent(const std::string& key, const std::string& value,
                                      int64_t lease = 0) = 0;

  virtual TxnResult Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                        const std::vector<TxnOp>& failure) = 0;

  // Returns the id of a new lease that lives `ttl_seconds` unless kept alive.
  virtual int64_t GrantLease(int64_t ttl_seconds) = 0;
  // Renews the lease; returns its TTL in seconds, or 0 if it has already expired or never existed
  // (the keys attached to it are then gone).
  virtual int64_t KeepAlive(int64_t lease) = 0;
  // Ends the lease and deletes its keys; a lease that has already expired is not an error.
  virtual void RevokeLease(int64_t lease) = 0;

  // etcd's compaction, which bounds the history it keeps. Revision is the store's revision now;
  // Compact(r) discards every key's versions superseded (overwritten or deleted) before revision
  // r: the current value of every key stays, and only reads or watches at revisions before r
  // fail afterwards. A revision compacted already is not an error. Compaction is store-wide, as
  // etcd's is. A store that keeps no history (MemoryStore) has nothing to discard: the defaults
  // say revision 0 and do nothing.
  virtual int64_t Revision() { return 0; }
  virtual void Compact(int64_t revision) { static_cast<void>(revision); }
};

}  // namespace archimedes

#endif  // ARCHIMEDES_STORE_KV_STORE_H_
