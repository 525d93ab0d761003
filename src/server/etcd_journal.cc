#include "server/etcd_journal.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

namespace archimedes {
namespace {

constexpr size_t kMaxBatchEvents = 100;
constexpr size_t kMaxBatchBytes = size_t{1} << 20;
constexpr int64_t kReadPage = 1000;
constexpr int kSeqDigits = 20;
constexpr auto kRetryFor = std::chrono::seconds(5);

bool ReadNumber(std::string_view& text, char end, int64_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr == text.data() + text.size() || *ptr != end || out < 0) return false;
  text.remove_prefix(static_cast<size_t>(ptr - text.data()) + 1);
  return true;
}

}  // namespace

std::string EncodeEvent(const Event& event) {
  std::string out = std::to_string(static_cast<int>(event.kind)) + " " +
                    std::to_string(event.time) + " " + std::to_string(event.target.size()) + " " +
                    std::to_string(event.idempotency_key.size()) + "\n";
  out.reserve(out.size() + event.target.size() + event.idempotency_key.size() + event.body.size());
  out += event.target;
  out += event.idempotency_key;
  out += event.body;
  return out;
}

Event DecodeEvent(int64_t seq, const std::string& value) {
  std::string_view text = value;
  int64_t kind = 0, time = 0, target = 0, key = 0;
  if (!ReadNumber(text, ' ', kind) || !ReadNumber(text, ' ', time) ||
      !ReadNumber(text, ' ', target) || !ReadNumber(text, '\n', key) ||
      kind > static_cast<int64_t>(kLastEventKind) ||
      target + key > static_cast<int64_t>(text.size())) {
    throw JournalError("event " + std::to_string(seq) + " is malformed: \"" + value.substr(0, 80) +
                       "\"");
  }
  Event event{.kind = static_cast<EventKind>(kind), .time = time};
  event.target = std::string(text.substr(0, static_cast<size_t>(target)));
  event.idempotency_key =
      std::string(text.substr(static_cast<size_t>(target), static_cast<size_t>(key)));
  event.body = std::string(text.substr(static_cast<size_t>(target + key)));
  return event;
}

EtcdJournal::EtcdJournal(std::unique_ptr<KvStore> store, std::string prefix,
                         const JournalSettings& settings)
    : store_(std::move(store)), prefix_(std::move(prefix)) {
  path_ = "etcd " + store_->name() + " " + prefix_;
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : settings) object[name] = value;
  const std::string wanted = object.dump();
  CreateResult result;
  try {
    result = store_->CreateIfAbsent(prefix_ + "settings", wanted);
  } catch (const StoreError& e) {
    throw JournalError(path_ + ": cannot read the settings: " + e.what());
  }
  if (result.created) return;
  const nlohmann::json stored = nlohmann::json::parse(result.current.value, nullptr, false);
  if (!stored.is_object()) {
    throw JournalError(path_ + ": the settings key holds \"" + result.current.value +
                       "\", not a JSON object");
  }
  for (const auto& [name, value] : settings) {
    const std::string was = stored.contains(name)
                                ? stored.value(name, std::string())
                                : SettingOfOlderJournals(name).value_or(std::string());
    if (was != value) {
      throw JournalError(path_ + " was written with " + name + " " + was + ", not " + value +
                         ": its events replay only under the same " + name + " (start with --" +
                         name + " " + was + ", or another prefix in --store)");
    }
  }
}

std::string EtcdJournal::EventKey(int64_t seq) const {
  char digits[kSeqDigits + 1];
  std::snprintf(digits, sizeof(digits), "%020lld", static_cast<long long>(seq));
  return prefix_ + "events/" + digits;
}

int64_t EtcdJournal::Append(Event event) {
  if (term_ == 0) throw JournalError(path_ + ": this replica does not lead: it cannot append");
  return commit_.Append(std::move(event));
}

void EtcdJournal::Lead(int64_t term, int64_t last) {
  commit_.RestartAfter(last);
  term_ = term;
}

void EtcdJournal::Sync(int64_t seq) {
  commit_.Sync(seq, [this](const GroupCommit::Batch& batch) { WriteInTransactions(batch); });
}

void EtcdJournal::WriteInTransactions(const GroupCommit::Batch& batch) {
  size_t begin = 0;
  while (begin < batch.size()) {
    size_t end = begin;
    size_t bytes = 0;
    while (end < batch.size() && end - begin < kMaxBatchEvents &&
           (end == begin || bytes + batch[end].second.body.size() <= kMaxBatchBytes)) {
      bytes += batch[end].second.body.size();
      ++end;
    }
    Write(batch, begin, end);
    commit_.MarkDurable(batch[end - 1].first);
    begin = end;
  }
}

void EtcdJournal::Write(const GroupCommit::Batch& batch, size_t begin, size_t end) {
  const std::string leader_key = prefix_ + "leader";
  const std::string first_key = EventKey(batch[begin].first);
  std::vector<TxnOp> puts;
  puts.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    puts.push_back({TxnOp::Kind::kPut, EventKey(batch[i].first), EncodeEvent(batch[i].second), 0});
  }
  const std::vector<Compare> fence = {
      {leader_key, Compare::Target::kCreateRevision, Compare::Result::kEqual, term_, ""},
      {first_key, Compare::Target::kCreateRevision, Compare::Result::kEqual, 0, ""}};
  const std::vector<TxnOp> look = {{TxnOp::Kind::kGet, leader_key, "", 0},
                                   {TxnOp::Kind::kGet, first_key, "", 0}};
  // etcd is briefly unavailable while its members elect a leader: tried again, the transaction
  // is safe (fenced, and recognised below if it did apply).
  TxnResult result;
  const auto give_up = std::chrono::steady_clock::now() + kRetryFor;
  while (true) {
    try {
      result = store_->Txn(fence, puts, look);
      break;
    } catch (const StoreError& e) {
      if (std::chrono::steady_clock::now() >= give_up) {
        throw JournalError(path_ + ": cannot append events " + std::to_string(batch[begin].first) +
                           "-" + std::to_string(batch[end - 1].first) + ": " + e.what());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  if (result.succeeded) return;
  const KeyValue* leader = nullptr;
  const KeyValue* first = nullptr;
  for (const KeyValue& kv : result.found) {
    if (kv.key == leader_key) leader = &kv;
    if (kv.key == first_key) first = &kv;
  }
  const bool still_leading = leader != nullptr && leader->create_revision == term_;
  // Our own transaction, applied once already: its answer was lost and it was tried again.
  if (still_leading && first != nullptr && first->value == puts.front().value) return;
  term_ = 0;
  throw JournalError(
      path_ + ": event " + std::to_string(batch[begin].first) + " was not appended: " +
      (still_leading ? "its sequence number is taken"
                     : "this replica no longer leads (" +
                           (leader == nullptr ? std::string("no leader key")
                                              : "the leader is now " + leader->value) +
                           "): a deposed leader does not write"));
}

std::vector<std::pair<int64_t, Event>> EtcdJournal::Read(int64_t after, int64_t limit) {
  std::vector<KeyValue> kvs;
  try {
    kvs = store_->GetRange(EventKey(after + 1), prefix_ + "events0", limit);
  } catch (const StoreError& e) {
    throw JournalError(path_ + ": cannot read the events after " + std::to_string(after) + ": " +
                       e.what());
  }
  std::vector<std::pair<int64_t, Event>> events;
  events.reserve(kvs.size());
  for (const KeyValue& kv : kvs) {
    const int64_t seq = after + 1 + static_cast<int64_t>(events.size());
    if (kv.key != EventKey(seq)) {
      throw JournalError(path_ + ": expected event " + std::to_string(seq) + ", found key " +
                         kv.key);
    }
    events.emplace_back(seq, DecodeEvent(seq, kv.value));
  }
  return events;
}

int64_t EtcdJournal::CompactHistory() {
  try {
    const int64_t now = store_->Revision();
    const int64_t compacted = noted_revision_;
    if (compacted > 0) store_->Compact(compacted);
    noted_revision_ = now;
    return compacted;
  } catch (const StoreError& e) {
    throw JournalError(path_ + ": cannot compact etcd's history: " + e.what());
  }
}

void EtcdJournal::ForEach(int64_t after,
                          const std::function<void(int64_t seq, const Event&)>& visit) {
  while (true) {
    const std::vector<std::pair<int64_t, Event>> page = Read(after, kReadPage);
    for (const auto& [seq, event] : page) {
      visit(seq, event);
      after = seq;
    }
    if (static_cast<int64_t>(page.size()) < kReadPage) break;
  }
  commit_.Stored(after);
}

}  // namespace archimedes
