#include "server/leadership.h"

#include <utility>

namespace archimedes {

Leadership::Leadership(KvStore& store, const std::string& prefix, std::string address,
                       int64_t ttl_s)
    : store_(store), key_(prefix + "leader"), address_(std::move(address)), ttl_s_(ttl_s) {}

bool Leadership::TryLead() {
  if (term_ != 0) return true;
  // A read first: while someone leads, standing by costs no lease.
  if (std::optional<KeyValue> current = store_.Get(key_)) {
    leader_ = current->value;
    return false;
  }
  const int64_t lease = store_.GrantLease(ttl_s_);
  CreateResult result;
  try {
    result = store_.CreateIfAbsent(key_, address_, lease);
  } catch (...) {
    store_.RevokeLease(lease);
    throw;
  }
  leader_ = result.current.value;
  // Not created, yet bound to our lease: our own create, tried again after its answer was lost.
  if (result.created || result.current.lease == lease) {
    lease_ = lease;
    term_ = result.current.create_revision;
    return true;
  }
  store_.RevokeLease(lease);
  return false;
}

bool Leadership::Renew() {
  if (term_ == 0) return false;
  if (store_.KeepAlive(lease_) > 0) return true;
  term_ = 0;
  lease_ = 0;
  leader_.clear();
  return false;
}

void Leadership::Resign() {
  if (term_ == 0) return;
  term_ = 0;
  store_.RevokeLease(std::exchange(lease_, 0));
  leader_.clear();
}

}  // namespace archimedes
