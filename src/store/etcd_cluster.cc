#include "store/etcd_cluster.h"

namespace archimedes {

EtcdCluster::EtcdCluster(const std::vector<std::string>& endpoints,
                         std::chrono::milliseconds timeout) {
  if (endpoints.empty()) throw StoreError("an etcd cluster needs at least one endpoint");
  for (const std::string& endpoint : endpoints) {
    members_.push_back(std::make_unique<EtcdStore>(endpoint, timeout));
    name_ += (name_.empty() ? "" : ",") + endpoint;
  }
}

template <typename Call>
auto EtcdCluster::OnAnyMember(Call call) {
  const size_t first = current_;
  std::string failures;
  for (size_t i = 0; i < members_.size(); ++i) {
    const size_t member = (first + i) % members_.size();
    try {
      auto result = call(*members_[member]);
      current_ = member;
      return result;
    } catch (const StoreError& e) {
      if (members_.size() == 1) throw;
      failures += std::string(failures.empty() ? "" : "; ") + e.what();
    }
  }
  throw StoreError("every member of etcd " + name_ + " failed: " + failures);
}

int64_t EtcdCluster::Put(const std::string& key, const std::string& value, int64_t lease) {
  return OnAnyMember([&](EtcdStore& s) { return s.Put(key, value, lease); });
}

std::optional<KeyValue> EtcdCluster::Get(const std::string& key) {
  return OnAnyMember([&](EtcdStore& s) { return s.Get(key); });
}

std::vector<KeyValue> EtcdCluster::GetPrefix(const std::string& prefix) {
  return OnAnyMember([&](EtcdStore& s) { return s.GetPrefix(prefix); });
}

std::vector<KeyValue> EtcdCluster::GetPrefixKeys(const std::string& prefix) {
  return OnAnyMember([&](EtcdStore& s) { return s.GetPrefixKeys(prefix); });
}

std::vector<KeyValue> EtcdCluster::GetRange(const std::string& from, const std::string& end,
                                            int64_t limit) {
  return OnAnyMember([&](EtcdStore& s) { return s.GetRange(from, end, limit); });
}

int64_t EtcdCluster::Delete(const std::string& key) {
  return OnAnyMember([&](EtcdStore& s) { return s.Delete(key); });
}

int64_t EtcdCluster::DeletePrefix(const std::string& prefix) {
  return OnAnyMember([&](EtcdStore& s) { return s.DeletePrefix(prefix); });
}

CreateResult EtcdCluster::CreateIfAbsent(const std::string& key, const std::string& value,
                                         int64_t lease) {
  return OnAnyMember([&](EtcdStore& s) { return s.CreateIfAbsent(key, value, lease); });
}

TxnResult EtcdCluster::Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                           const std::vector<TxnOp>& failure) {
  return OnAnyMember([&](EtcdStore& s) { return s.Txn(compares, success, failure); });
}

int64_t EtcdCluster::GrantLease(int64_t ttl_seconds) {
  return OnAnyMember([&](EtcdStore& s) { return s.GrantLease(ttl_seconds); });
}

int64_t EtcdCluster::KeepAlive(int64_t lease) {
  return OnAnyMember([&](EtcdStore& s) { return s.KeepAlive(lease); });
}

void EtcdCluster::RevokeLease(int64_t lease) {
  OnAnyMember([&](EtcdStore& s) {
    s.RevokeLease(lease);
    return 0;
  });
}

int64_t EtcdCluster::Revision() {
  return OnAnyMember([&](EtcdStore& s) { return s.Revision(); });
}

void EtcdCluster::Compact(int64_t revision) {
  OnAnyMember([&](EtcdStore& s) {
    s.Compact(revision);
    return 0;
  });
}

}  // namespace archimedes
