#include "server/magi_decisions.h"

#include <chrono>
#include <iostream>
#include <optional>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "server/api_error.h"
#include "server/event.h"

namespace archimedes {
namespace {

// With no change, the watch's stream is renewed this often (the same watch, from the next
// revision): a connection etcd silently dropped is noticed within it.
constexpr std::chrono::seconds kIdleRenewal{30};

}  // namespace

MagiDecisionWatch::MagiDecisionWatch(ApiContext& context, const EtcdLocation& location)
    : context_(context), prefix_(location.prefix + "magi/decisions/node-offline/") {
  for (const std::string& endpoint : location.endpoints) {
    stores_.push_back(std::make_unique<EtcdStore>(endpoint));
  }
}

MagiDecisionWatch::~MagiDecisionWatch() { Stop(); }

void MagiDecisionWatch::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void MagiDecisionWatch::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (const auto& store : stores_) store->CancelWatch();
  if (thread_.joinable()) thread_.join();
}

bool MagiDecisionWatch::Leading() const {
  return context_.ready && context_.leading && !context_.stopping;
}

void MagiDecisionWatch::Pause(std::chrono::milliseconds period) {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, period, [this] { return stopping_; });
}

void MagiDecisionWatch::Loop() {
  size_t endpoint = 0;
  std::string last_failure;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    if (!Leading()) {
      {
        std::lock_guard lock(context_.mu);
        context_.decisions_synced = false;
      }
      Pause(std::chrono::milliseconds(500));
      continue;
    }
    EtcdStore& store = *stores_[endpoint];
    try {
      int64_t from = List(store) + 1;
      if (!last_failure.empty()) {
        std::cerr << "archimedes serve: following MAGI's decisions again through " << store.name()
                  << std::endl;
        last_failure.clear();
      }
      bool leading = true;
      while (leading) {
        from = store.Watch(prefix_, from, kIdleRenewal, [&](const WatchEvent& event) {
          Apply(event);
          leading = Leading();
          return leading;
        }) + 1;
        leading = leading && Leading();
        std::lock_guard lock(mu_);
        if (stopping_) return;
      }
    } catch (const StoreError& e) {
      if (last_failure != e.what()) {
        std::cerr << "archimedes serve: cannot follow MAGI's decisions: " << e.what() << std::endl;
        last_failure = e.what();
      }
      endpoint = (endpoint + 1) % stores_.size();
      Pause(std::chrono::seconds(1));
    }
  }
}

int64_t MagiDecisionWatch::List(EtcdStore& store) {
  const int64_t revision = store.Revision();
  std::set<std::string> offline;
  for (const KeyValue& kv : store.GetPrefix(prefix_)) offline.insert(kv.key.substr(prefix_.size()));
  {
    std::lock_guard lock(context_.mu);
    context_.decided_offline = offline;
    context_.decisions_synced = true;
  }
  for (const std::string& node : offline) MakeNotReady(node);
  return revision;
}

void MagiDecisionWatch::Apply(const WatchEvent& event) {
  const std::string node = event.kv.key.substr(prefix_.size());
  if (event.type == WatchEvent::Type::kDelete) {
    {
      std::lock_guard lock(context_.mu);
      context_.decided_offline.erase(node);
    }
    std::cerr << "archimedes serve: MAGI readmitted node " << node
              << ": it turns Ready once its agent is heard" << std::endl;
    return;
  }
  {
    std::lock_guard lock(context_.mu);
    context_.decided_offline.insert(node);
  }
  context_.metrics.CountMagiDecision();
  MakeNotReady(node);
}

void MagiDecisionWatch::MakeNotReady(const std::string& node) {
  std::optional<NodeState> state;
  {
    std::lock_guard lock(context_.mu);
    state = context_.plane.NodeStateOf(node);
  }
  if (!state || *state == NodeState::kNotReady) return;
  try {
    context_.Mutate({.kind = EventKind::kNodeStatus,
                     .target = node,
                     .body = nlohmann::json{{"status", {{"condition", "NotReady"}}}}.dump()});
    std::cerr << "archimedes serve: node " << node
              << " NotReady: MAGI's quorum recorded it offline; what ran there is placed again"
              << std::endl;
  } catch (const ApiError& e) {
    std::cerr << "archimedes serve: node " << node << " stays " << NodeStateName(*state) << ": "
              << e.what() << std::endl;
  }
}

}  // namespace archimedes
