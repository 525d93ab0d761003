// A KvStore (store/kv_store.h) that is a client of etcd's v3 HTTP/JSON gateway (etcd 3.4 serves it
// under /v3/…), the store Kubernetes keeps its state in. Keys and values are sent base64-encoded;
// revisions and lease ids are etcd's int64s.
//
// Contract:
//  - Every call is one HTTP request to the endpoint, bounded by the timeout given at
//    construction; a network failure, a timeout or an error answer from etcd throws StoreError
//    naming the endpoint, the operation and the cause. Nothing is retried: callers decide.
//  - etcd rounds lease TTLs up to its minimum (about 2 s) and expires leases by its own clock.
//  - Calls are serialised by an internal mutex, so one EtcdStore may be shared by threads.
//  - Only http:// endpoints are supported (cpp-httplib is built without TLS here).
#ifndef ARCHIMEDES_STORE_ETCD_STORE_H_
#define ARCHIMEDES_STORE_ETCD_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "store/kv_store.h"

namespace httplib {
class Client;
}

namespace archimedes {

// A change to a watched key: a put (a new value) or a delete (`value` empty).
struct WatchEvent {
  enum class Type : uint8_t { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;  // for a delete only the key and its mod revision
};

// The watch could not resume: etcd compacted the revisions it asked for. List again.
class WatchCompacted : public StoreError {
 public:
  explicit WatchCompacted(const std::string& what, int64_t compact_revision)
      : StoreError(what), compact_revision(compact_revision) {}
  int64_t compact_revision;
};

class EtcdStore : public KvStore {
 public:
  // `endpoint` like "http://127.0.0.1:2379". Throws StoreError if it is not such a URL.
  explicit EtcdStore(const std::string& endpoint,
                     std::chrono::milliseconds timeout = std::chrono::seconds(2));
  ~EtcdStore() override;
  EtcdStore(const EtcdStore&) = delete;
  EtcdStore& operator=(const EtcdStore&) = delete;

  // The endpoint.
  const std::string& name() const override { return endpoint_; }

  int64_t Put(const std::string& key, const std::string& value, int64_t lease = 0) override;
  std::optional<KeyValue> Get(const std::string& key) override;
  std::vector<KeyValue> GetPrefix(const std::string& prefix) override;
  std::vector<KeyValue> GetPrefixKeys(const std::string& prefix) override;
  std::vector<KeyValue> GetRange(const std::string& from, const std::string& end,
                                 int64_t limit) override;
  int64_t Delete(const std::string& key) override;
  int64_t DeletePrefix(const std::string& prefix) override;
  // One transaction comparing the key's create revision with 0.
  CreateResult CreateIfAbsent(const std::string& key, const std::string& value,
                              int64_t lease = 0) override;
  TxnResult Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                const std::vector<TxnOp>& failure) override;
  int64_t GrantLease(int64_t ttl_seconds) override;
  int64_t KeepAlive(int64_t lease) override;
  void RevokeLease(int64_t lease) override;
  int64_t Revision() override;
  // Waits until etcd has removed the compacted versions from its database (`physical`).
  void Compact(int64_t revision) override;

  // etcd's watch (POST /v3/watch, answered as one long chunked stream on a connection of its
  // own): calls `on_event` on this thread for every change under `prefix` from `start_revision`
  // on, in revision order, until `on_event` returns false, CancelWatch() is called, or nothing
  // came for `idle` or the stream ended. Returns the revision of the last event delivered
  // (`start_revision` - 1 if none), to resume from. Throws StoreError when the watch could not
  // start or etcd refused it, WatchCompacted when `start_revision` is compacted away. One watch
  // at a time per store. The process must ignore SIGPIPE (an httplib::Server does so): a cancel
  // can shut the socket while the request is being written.
  int64_t Watch(const std::string& prefix, int64_t start_revision, std::chrono::milliseconds idle,
                const std::function<bool(const WatchEvent&)>& on_event);
  // Ends the running watch and refuses later ones (they return at once); safe from any thread.
  void CancelWatch();

 private:
  // POSTs `body` to `path` and returns etcd's answer; throws StoreError for any failure.
  nlohmann::json Call(const char* operation, const char* path, const nlohmann::json& body);

  std::string endpoint_;
  std::string base_url_;  // http://HOST:PORT
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::unique_ptr<httplib::Client> client_;
  std::mutex watch_mu_;                      // guards the two below
  httplib::Client* watch_client_ = nullptr;  // the running watch's connection
  bool watch_cancelled_ = false;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_STORE_ETCD_STORE_H_
