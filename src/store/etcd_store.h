// A client of etcd's v3 HTTP/JSON gateway (etcd 3.4 serves it under /v3/…), the store Kubernetes
// keeps its state in. Keys and values are arbitrary bytes (sent base64-encoded); revisions and
// lease ids are etcd's int64s.
//
// Contract:
//  - Every call is one HTTP request to the endpoint, bounded by the timeout given at
//    construction; a network failure, a timeout or an error answer from etcd throws StoreError
//    naming the endpoint, the operation and the cause. Nothing is retried: callers decide.
//  - Calls are serialised by an internal mutex, so one EtcdStore may be shared by threads.
//  - Only http:// endpoints are supported (cpp-httplib is built without TLS here).
#ifndef ARCHIMEDES_STORE_ETCD_STORE_H_
#define ARCHIMEDES_STORE_ETCD_STORE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace httplib {
class Client;
}

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
// and version 0, which is how "create only if absent" is written.
struct Compare {
  enum class Target : uint8_t { kCreateRevision, kModRevision, kVersion, kValue };
  enum class Result : uint8_t { kEqual, kNotEqual, kGreater, kLess };
  std::string key;
  Target target = Target::kCreateRevision;
  Result result = Result::kEqual;
  int64_t number = 0;  // for the revision and version targets
  std::string value;   // for kValue
};

// One operation of a transaction branch.
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

class EtcdStore {
 public:
  // `endpoint` like "http://127.0.0.1:2379". Throws StoreError if it is not such a URL.
  explicit EtcdStore(const std::string& endpoint,
                     std::chrono::milliseconds timeout = std::chrono::seconds(2));
  ~EtcdStore();
  EtcdStore(const EtcdStore&) = delete;
  EtcdStore& operator=(const EtcdStore&) = delete;

  const std::string& endpoint() const { return endpoint_; }

  // Returns the revision of the store after the write.
  int64_t Put(const std::string& key, const std::string& value, int64_t lease = 0);
  std::optional<KeyValue> Get(const std::string& key);
  // Every key that starts with `prefix`, in key order.
  std::vector<KeyValue> GetPrefix(const std::string& prefix);
  // Returns the number of keys deleted.
  int64_t Delete(const std::string& key);
  int64_t DeletePrefix(const std::string& prefix);

  // Writes `value` only if `key` does not exist, atomically (one transaction comparing the
  // key's create revision with 0): of concurrent writers exactly one succeeds.
  CreateResult CreateIfAbsent(const std::string& key, const std::string& value, int64_t lease = 0);

  TxnResult Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                const std::vector<TxnOp>& failure);

  // Returns the id of a new lease that lives `ttl_seconds` unless kept alive.
  int64_t GrantLease(int64_t ttl_seconds);
  // Renews the lease; returns its new TTL in seconds, or 0 if it has already expired or never
  // existed (the keys attached to it are then gone).
  int64_t KeepAlive(int64_t lease);
  // Ends the lease and deletes its keys; a lease that has already expired is not an error.
  void RevokeLease(int64_t lease);

 private:
  // POSTs `body` to `path` and returns etcd's answer; throws StoreError for any failure.
  nlohmann::json Call(const char* operation, const char* path, const nlohmann::json& body);

  std::string endpoint_;
  std::mutex mu_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_STORE_ETCD_STORE_H_
