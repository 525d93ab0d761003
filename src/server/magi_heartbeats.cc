#include "server/magi_heartbeats.h"

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

namespace archimedes {
namespace {

// etcd refuses a transaction of more operations than its --max-txn-ops, 128 by default.
constexpr size_t kMaxTxnOps = 128;

}  // namespace

MagiHeartbeats::MagiHeartbeats(const EtcdLocation& location, int64_t period_s)
    : store_(location.endpoints),
      prefix_(location.prefix + "magi/heartbeats/"),
      period_s_(period_s) {}

void MagiHeartbeats::Renew(const std::vector<std::pair<std::string, int64_t>>& contacts,
                           int64_t now) {
  std::vector<std::pair<std::string, int64_t>> due;
  for (const auto& [node, at] : contacts) {
    const auto it = written_.find(node);
    if (it == written_.end() || (at > it->second.at && now - it->second.written >= period_s_)) {
      due.emplace_back(node, at);
    }
  }
  for (size_t start = 0; start < due.size(); start += kMaxTxnOps) {
    const size_t end = std::min(due.size(), start + kMaxTxnOps);
    std::vector<TxnOp> puts;
    puts.reserve(end - start);
    for (size_t i = start; i < end; ++i) {
      puts.push_back({.kind = TxnOp::Kind::kPut,
                      .key = prefix_ + due[i].first,
                      .value = nlohmann::json{{"at", due[i].second}}.dump()});
    }
    try {
      store_.Txn({}, puts, {});
    } catch (const StoreError& e) {
      if (last_failure_ != e.what()) {
        std::cerr << "archimedes serve: cannot write the nodes' heartbeats for MAGI: " << e.what()
                  << std::endl;
        last_failure_ = e.what();
      }
      return;
    }
    for (size_t i = start; i < end; ++i) written_[due[i].first] = {due[i].second, now};
  }
  if (!last_failure_.empty() && !due.empty()) {
    std::cerr << "archimedes serve: writing the nodes' heartbeats for MAGI again" << std::endl;
    last_failure_.clear();
  }
}

}  // namespace archimedes
