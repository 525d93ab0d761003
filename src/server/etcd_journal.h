// A Journal (server/journal.h) in etcd: the log that the replicas of `archimedes serve` share
// (server/replica.h). Under the store's prefix P:
//
//   P settings       the settings the log was started with (JSON), written once
//   P events/<seq>   one key per event, seq in 20 zero-padded digits (key order is log order),
//                    written once; its value is "<kind> <time> <target bytes> <key bytes>\n"
//                    followed by the target, the Idempotency-Key and the request body, verbatim
//   P leader         who leads (server/leadership.h)
//
// Only the leader appends, and only while it leads. Every write is one etcd transaction that
// creates a batch's event keys if the leader key still has the create revision of this
// leadership (its term) and the batch's first key does not exist yet: a deposed leader's append
// fails (fencing), and no sequence number is ever written twice. A batch holds at most 100 events
// and 1 MiB (etcd's default limits per transaction: 128 operations, 1.5 MiB). A transaction etcd
// cannot take (no member answers, or they are electing a leader) is tried again for 5 s before
// Sync fails; one whose answer was lost and that applied is recognised by its own first key.
//
// Followers Read the events after the last one they applied; at their turn to lead, they Lead.
#ifndef ARCHIMEDES_SERVER_ETCD_JOURNAL_H_
#define ARCHIMEDES_SERVER_ETCD_JOURNAL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/etcd_location.h"
#include "server/group_commit.h"
#include "server/journal.h"
#include "store/kv_store.h"

namespace archimedes {

class EtcdJournal : public Journal {
 public:
  // Checks `settings` against those the log was started with (a JournalError names the setting,
  // both values and the prefix), or writes them when the log is new. Throws JournalError when
  // etcd cannot be reached.
  EtcdJournal(std::unique_ptr<KvStore> store, std::string prefix, const JournalSettings& settings);

  // Throws JournalError while this process does not lead.
  int64_t Append(Event event) override;
  void Sync(int64_t seq) override;
  int64_t committed() const override { return commit_.durable(); }
  void ForEach(int64_t after, const std::function<void(int64_t seq, const Event&)>& visit) override;
  // "etcd http://127.0.0.1:2379,... /archimedes/".
  const std::string& path() const override { return path_; }

  // At most `limit` stored events numbered above `after`, in order. Throws JournalError.
  std::vector<std::pair<int64_t, Event>> Read(int64_t after, int64_t limit);
  // From now on appends, as the leader whose leader key has create revision `term`, after event
  // `last` (the last one in the log: the caller has read them all since it took the lead).
  void Lead(int64_t term, int64_t last);

  // Bounds etcd's history: discards what the store superseded before the revision noted at the
  // previous call (KvStore::Compact; store-wide, as etcd's compaction is), then notes the
  // revision now for the next call. Called periodically by the leader, it keeps one period of
  // history for whoever reads or watches at a past revision, as kube-apiserver's compaction does.
  // The log's own keys are never superseded, so every event stays. Returns the revision compacted
  // at, 0 at the first call. Throws JournalError.
  int64_t CompactHistory();

  KvStore& store() { return *store_; }
  const std::string& prefix() const { return prefix_; }

 private:
  // Writes `batch` in transactions within etcd's limits, each marked durable once written.
  void WriteInTransactions(const GroupCommit::Batch& batch);
  void Write(const GroupCommit::Batch& batch, size_t begin, size_t end);
  std::string EventKey(int64_t seq) const;

  std::unique_ptr<KvStore> store_;
  std::string prefix_;
  std::string path_;
  std::atomic<int64_t> term_{0};  // 0: not leading
  int64_t noted_revision_ = 0;    // CompactHistory's
  GroupCommit commit_;
};

// The value of an event's key, and back (throws JournalError naming `seq`).
std::string EncodeEvent(const Event& event);
Event DecodeEvent(int64_t seq, const std::string& value);

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_ETCD_JOURNAL_H_
