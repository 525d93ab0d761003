// A KvStore (store/kv_store.h) over the members of one etcd cluster: each call goes to the member
// that answered last; when it fails there (unreachable, timed out, or an error such as a member
// cut off from its quorum), it is tried on each other member once, in turn, before the last
// failure is thrown. etcd's reads and writes are linearizable on every member, so any member's
// answer is as good as another's.
//
// A write whose answer was lost may have been applied before it is tried again elsewhere: a Put
// writes the same value twice (harmless), a lease may be granted twice (the spare one expires),
// and a Txn or CreateIfAbsent may find its own earlier effect — their callers write compares that
// tell (server/etcd_journal.h, server/leadership.h).
#ifndef ARCHIMEDES_STORE_ETCD_CLUSTER_H_
#define ARCHIMEDES_STORE_ETCD_CLUSTER_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "store/etcd_store.h"

namespace archimedes {

class EtcdCluster : public KvStore {
 public:
  // `endpoints` like {"http://127.0.0.1:2379", ...}, at least one. Throws StoreError.
  explicit EtcdCluster(const std::vector<std::string>& endpoints,
                       std::chrono::milliseconds timeout = std::chrono::seconds(2));

  // The endpoints, comma-separated.
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
  int64_t Revision() override;
  void Compact(int64_t revision) override;

 private:
  template <typename Call>
  auto OnAnyMember(Call call);

  std::string name_;
  std::vector<std::unique_ptr<EtcdStore>> members_;
  std::atomic<size_t> current_{0};
};

}  // namespace archimedes

#endif  // ARCHIMEDES_STORE_ETCD_CLUSTER_H_
