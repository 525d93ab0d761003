#include "server/magi_decisions.h"

#include <chrono>
#include <iostream>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/api_error.h"
#include "server/event.h"

namespace archimedes {
namespace {

// With no change, the watch's stream is renewed this often (the same watch, from the next
// revision): a connection etcd silently dropped is noticed within it.
constexpr std::chrono::seconds kIdleRenewal{30};

}  // namespace

// Keys under decisions/ are <kind>/<node>; serve acts on two kinds (docs/magi.md).
std::optional<MagiDecisionWatch::Record> MagiDecisionWatch::ParseKey(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos || slash + 1 == key.size()) return std::nullopt;
  const std::string kind = key.substr(0, slash);
  if (kind != "node-offline" && kind != "migrate") return std::nullopt;
  return Record{key.substr(slash + 1), kind == "migrate"};
}

MagiDecisionWatch::MagiDecisionWatch(ApiContext& context, const EtcdLocation& location)
    : context_(context), prefix_(location.prefix + "magi/decisions/") {
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
  std::set<std::string> approved;
  for (const KeyValue& kv : store.GetPrefixKeys(prefix_)) {
    const std::optional<Record> record = ParseKey(kv.key.substr(prefix_.size()));
    if (!record) continue;
    (record->migrate ? approved : offline).insert(record->node);
  }
  std::set<std::string> nodes = offline;
  {
    std::lock_guard lock(context_.mu);
    nodes.insert(context_.decided_offline.begin(), context_.decided_offline.end());
    context_.decided_offline = std::move(offline);
    context_.migration_approved = std::move(approved);
    context_.decisions_synced = true;
    context_.metrics.SetMagiReviewsPending(PendingReviews());
  }
  for (const std::string& node : nodes) Act(node);
  return revision;
}

int64_t MagiDecisionWatch::PendingReviews() const {
  int64_t pending = 0;
  for (const std::string& node : context_.decided_offline) {
    if (context_.migration_approved.count(node) == 0 && context_.plane.NodeStateOf(node)) {
      ++pending;
    }
  }
  return pending;
}

void MagiDecisionWatch::Apply(const WatchEvent& event) {
  const std::optional<Record> record = ParseKey(event.kv.key.substr(prefix_.size()));
  if (!record) return;
  const bool put = event.type == WatchEvent::Type::kPut;
  {
    std::lock_guard lock(context_.mu);
    std::set<std::string>& set =
        record->migrate ? context_.migration_approved : context_.decided_offline;
    if (put) {
      set.insert(record->node);
    } else {
      set.erase(record->node);
    }
    context_.metrics.SetMagiReviewsPending(PendingReviews());
  }
  if (put) context_.metrics.CountMagiDecision(record->migrate ? "migrate" : "node-offline");
  if (!put && !record->migrate) {
    std::cerr << "archimedes serve: MAGI readmitted node " << record->node
              << ": it turns Ready once its agent is heard" << std::endl;
  }
  if (put) Act(record->node);
}

void MagiDecisionWatch::Reconcile() {
  std::vector<std::string> lagging;
  {
    std::lock_guard lock(context_.mu);
    if (!context_.decisions_synced) return;
    for (const std::string& node : context_.decided_offline) {
      const std::optional<NodeState> state = context_.plane.NodeStateOf(node);
      const bool approved = context_.migration_approved.count(node) > 0;
      if (state == NodeState::kReady || (approved && state == NodeState::kSuspect)) {
        lagging.push_back(node);
      }
    }
    // Also kept current here: nodes registered or removed change it without a decision.
    context_.metrics.SetMagiReviewsPending(PendingReviews());
  }
  for (const std::string& node : lagging) Act(node);
}

void MagiDecisionWatch::Act(const std::string& node) {
  std::optional<NodeState> state;
  bool offline = false;
  bool approved = false;
  {
    std::lock_guard lock(context_.mu);
    state = context_.plane.NodeStateOf(node);
    offline = context_.decided_offline.count(node) > 0;
    approved = context_.migration_approved.count(node) > 0;
  }
  if (!state || !offline || *state == NodeState::kNotReady) return;
  const NodeState target = approved ? NodeState::kNotReady : NodeState::kSuspect;
  const std::string reason =
      approved ? "MAGI's quorum recorded it offline and approved moving what ran there"
               : "MAGI's quorum recorded it offline; what runs there moves once the members "
                 "approve the migration";
  try {
    context_.Mutate(
        {.kind = EventKind::kNodeStatus,
         .target = node,
         .body =
             nlohmann::json{{"status", {{"condition", NodeStateName(target)}, {"reason", reason}}}}
                 .dump()});
    std::cerr << "archimedes serve: node " << node << " " << NodeStateName(target) << ": " << reason
              << std::endl;
  } catch (const ApiError& e) {
    std::cerr << "archimedes serve: node " << node << " stays " << NodeStateName(*state) << ": "
              << e.what() << std::endl;
  }
}

}  // namespace archimedes
