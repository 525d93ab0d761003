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

 private:
  // POSTs `body` to `path` and returns etcd's answer; throws StoreError for any failure.
  nlohmann::json Call(const char* operation, const char* path, const nlohmann::json& body);

  std::string endpoint_;
  std::mutex mu_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_STORE_ETCD_STORE_H_
