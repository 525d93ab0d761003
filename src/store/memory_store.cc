#include "store/memory_store.h"

#include <stdexcept>

namespace archimedes {
namespace {

bool HasPrefix(const std::string& key, const std::string& prefix) {
  return key.compare(0, prefix.size(), prefix) == 0;
}

template <typename T>
bool Holds(Compare::Result result, const T& have, const T& want) {
  switch (result) {
    case Compare::Result::kEqual:
      return have == want;
    case Compare::Result::kNotEqual:
      return have != want;
    case Compare::Result::kGreater:
      return have > want;
    case Compare::Result::kLess:
      return have < want;
  }
  return false;
}

}  // namespace

MemoryStore::MemoryStore(int64_t now) : now_(now) {}

StoreError MemoryStore::Error(const char* operation, const std::string& cause) const {
  return StoreError(name_ + ": " + operation + ": " + cause);
}

void MemoryStore::AdvanceTo(int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (now < now_) {
    throw std::invalid_argument("memory store: time cannot go back from " + std::to_string(now_) +
                                " to " + std::to_string(now));
  }
  now_ = now;
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second.expires_at <= now_) {
      EndLeaseLocked(it++);
    } else {
      ++it;
    }
  }
}

int64_t MemoryStore::now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

std::optional<KeyValue> MemoryStore::GetLocked(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  const Entry& e = it->second;
  return KeyValue{key, e.value, e.create_revision, e.mod_revision, e.version, e.lease};
}

std::vector<KeyValue> MemoryStore::RangeLocked(const std::string& prefix, bool with_values) const {
  std::vector<KeyValue> out;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end() && HasPrefix(it->first, prefix);
       ++it) {
    const Entry& e = it->second;
    out.push_back(KeyValue{it->first, with_values ? e.value : std::string(), e.create_revision,
                           e.mod_revision, e.version, e.lease});
  }
  return out;
}

void MemoryStore::CheckLeaseLocked(int64_t lease, const char* operation) const {
  if (lease != 0 && leases_.count(lease) == 0) {
    throw Error(operation, "requested lease not found");
  }
}

void MemoryStore::PutLocked(const std::string& key, const std::string& value, int64_t lease,
                            int64_t revision) {
  auto [it, created] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (created) {
    e.create_revision = revision;
  } else if (e.lease != 0 && e.lease != lease) {
    leases_.at(e.lease).keys.erase(key);
  }
  e.value = value;
  e.mod_revision = revision;
  ++e.version;
  e.lease = lease;
  if (lease != 0) leases_.at(lease).keys.insert(key);
}

bool MemoryStore::DeleteLocked(const std::string& key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  if (it->second.lease != 0) leases_.at(it->second.lease).keys.erase(key);
  entries_.erase(it);
  return true;
}

void MemoryStore::EndLeaseLocked(std::map<int64_t, Lease>::iterator lease) {
  bool deleted = false;
  for (const std::string& key : lease->second.keys) deleted |= entries_.erase(key) > 0;
  leases_.erase(lease);
  if (deleted) ++revision_;
}

int64_t MemoryStore::Put(const std::string& key, const std::string& value, int64_t lease) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckLeaseLocked(lease, "put");
  PutLocked(key, value, lease, ++revision_);
  return revision_;
}

std::optional<KeyValue> MemoryStore::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return GetLocked(key);
}

std::vector<KeyValue> MemoryStore::GetPrefix(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  return RangeLocked(prefix, /*with_values=*/true);
}

std::vector<KeyValue> MemoryStore::GetPrefixKeys(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  return RangeLocked(prefix, /*with_values=*/false);
}

std::vector<KeyValue> MemoryStore::GetRange(const std::string& from, const std::string& end,
                                            int64_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<KeyValue> out;
  for (auto it = entries_.lower_bound(from);
       it != entries_.end() && it->first < end && static_cast<int64_t>(out.size()) < limit; ++it) {
    const Entry& e = it->second;
    out.push_back(
        KeyValue{it->first, e.value, e.create_revision, e.mod_revision, e.version, e.lease});
  }
  return out;
}

int64_t MemoryStore::Delete(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!DeleteLocked(key)) return 0;
  ++revision_;
  return 1;
}

int64_t MemoryStore::DeletePrefix(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> keys;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end() && HasPrefix(it->first, prefix);
       ++it) {
    keys.push_back(it->first);
  }
  for (const std::string& key : keys) DeleteLocked(key);
  if (!keys.empty()) ++revision_;
  return static_cast<int64_t>(keys.size());
}

CreateResult MemoryStore::CreateIfAbsent(const std::string& key, const std::string& value,
                                         int64_t lease) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::optional<KeyValue> existing = GetLocked(key)) return {false, std::move(*existing)};
  CheckLeaseLocked(lease, "create");
  PutLocked(key, value, lease, ++revision_);
  return {true, *GetLocked(key)};
}

bool MemoryStore::HoldsLocked(const Compare& c) const {
  auto it = entries_.find(c.key);
  if (it == entries_.end()) {
    if (c.target == Compare::Target::kValue) return false;  // as etcd: no value to compare
    return Holds<int64_t>(c.result, 0, c.number);
  }
  const Entry& e = it->second;
  switch (c.target) {
    case Compare::Target::kCreateRevision:
      return Holds(c.result, e.create_revision, c.number);
    case Compare::Target::kModRevision:
      return Holds(c.result, e.mod_revision, c.number);
    case Compare::Target::kVersion:
      return Holds(c.result, e.version, c.number);
    case Compare::Target::kValue:
      return Holds(c.result, e.value, c.value);
  }
  return false;
}

std::vector<KeyValue> MemoryStore::ApplyLocked(const std::vector<TxnOp>& ops,
                                               const char* operation) {
  std::set<std::string> written;
  for (const TxnOp& op : ops) {
    if (op.kind == TxnOp::Kind::kGet) continue;
    if (!written.insert(op.key).second)
      throw Error(operation, "duplicate key given in txn request");
    if (op.kind == TxnOp::Kind::kPut) CheckLeaseLocked(op.lease, operation);
  }
  const int64_t revision = revision_ + 1;
  bool changed = false;
  std::vector<KeyValue> found;
  for (const TxnOp& op : ops) {
    switch (op.kind) {
      case TxnOp::Kind::kPut:
        PutLocked(op.key, op.value, op.lease, revision);
        changed = true;
        break;
      case TxnOp::Kind::kGet:
        if (std::optional<KeyValue> kv = GetLocked(op.key)) found.push_back(std::move(*kv));
        break;
      case TxnOp::Kind::kDelete:
        changed |= DeleteLocked(op.key);
        break;
    }
  }
  if (changed) revision_ = revision;
  return found;
}

TxnResult MemoryStore::Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                           const std::vector<TxnOp>& failure) {
  std::lock_guard<std::mutex> lock(mu_);
  bool holds = true;
  for (const Compare& c : compares) holds = holds && HoldsLocked(c);
  TxnResult result;
  result.succeeded = holds;
  result.found = ApplyLocked(holds ? success : failure, "txn");
  return result;
}

int64_t MemoryStore::GrantLease(int64_t ttl_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ttl_seconds <= 0) {
    throw Error("grant lease", "lease TTL must be positive, got " + std::to_string(ttl_seconds));
  }
  const int64_t id = next_lease_++;
  leases_[id] = Lease{ttl_seconds, now_ + ttl_seconds, {}};
  return id;
}

int64_t MemoryStore::KeepAlive(int64_t lease) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = leases_.find(lease);
  if (it == leases_.end()) return 0;
  it->second.expires_at = now_ + it->second.ttl;
  return it->second.ttl;
}

void MemoryStore::RevokeLease(int64_t lease) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = leases_.find(lease);
  if (it != leases_.end()) EndLeaseLocked(it);
}

int64_t MemoryStore::Revision() {
  std::lock_guard lock(mu_);
  return revision_;
}

}  // namespace archimedes
