// Group commit, the part every Journal (server/journal.h) shares: events are numbered and queued
// as requests are accepted, and one writer at a time takes everything queued at once, so the
// requests that arrive while a write runs share the next one. Thread-safe.
#ifndef ARCHIMEDES_SERVER_GROUP_COMMIT_H_
#define ARCHIMEDES_SERVER_GROUP_COMMIT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "server/event.h"

namespace archimedes {

class GroupCommit {
 public:
  using Batch = std::vector<std::pair<int64_t, Event>>;

  // Queues `event` and returns its number: one more than the last one appended.
  int64_t Append(Event event);
  // Returns at once when event `seq` is durable; otherwise calls `write` with everything queued
  // (in order, batches in order). `write` calls MarkDurable as its events reach the store; when it
  // throws, the events it did not write are lost, and the exception goes to the caller.
  void Sync(int64_t seq, const std::function<void(const Batch&)>& write);
  void MarkDurable(int64_t seq) { durable_ = seq; }
  int64_t durable() const { return durable_; }

  // Drops whatever is queued: the store holds every event up to `last`, and numbering goes on
  // from there (a replica that takes the lead).
  void RestartAfter(int64_t last);
  // Event `seq` was read back from the store: numbering goes on after it.
  void Stored(int64_t seq);

 private:
  std::mutex queue_mu_;
  Batch queue_;
  int64_t appended_ = 0;
  std::mutex write_mu_;  // one writer at a time: batches go in order
  std::atomic<int64_t> durable_{0};
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_GROUP_COMMIT_H_
