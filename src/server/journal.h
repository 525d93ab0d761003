// The service's durable state: every accepted event, in order, numbered 1, 2, ... Replaying the
// events in order rebuilds the state (control_plane.h). Two stores keep them: SqliteJournal
// (server/sqlite_journal.h), a file of the data folder, and EtcdJournal (server/etcd_journal.h),
// the log that replicas of the service share in etcd.
//
// Append numbers an event and queues it; Sync(seq) returns once that event is durable, writing
// everything queued so far at once — group commit: one write for all the requests that arrived
// while the previous one ran. Append and Sync are thread-safe; Append is called in the order the
// events apply. A journal is replayed only under the settings it was written with (the policy,
// the clock, the cycles: what decides how its events replay).
#ifndef ARCHIMEDES_SERVER_JOURNAL_H_
#define ARCHIMEDES_SERVER_JOURNAL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/event.h"

namespace archimedes {

class JournalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The settings a journal's events replay under, as (name, value): a journal written under others
// refuses to open, naming the first that differs, in this order.
using JournalSettings = std::vector<std::pair<std::string, std::string>>;

// The value a journal written before setting `name` existed holds it at (its events replay under
// that), or nullopt for a setting every journal has.
inline std::optional<std::string> SettingOfOlderJournals(std::string_view name) {
  if (name == "adopt-profiles") return "0s";  // before adoption existed, profiles were not adopted
  return std::nullopt;
}

class Journal {
 public:
  virtual ~Journal() = default;

  // Queues `event` and returns its sequence number: one more than the last one stored or
  // appended.
  virtual int64_t Append(Event event) = 0;
  // Returns once every event up to `seq` is durable. Throws JournalError when the store fails (or,
  // in etcd, when this process no longer leads): the queued events are then lost, and so must be
  // what they did.
  virtual void Sync(int64_t seq) = 0;
  // The last sequence number known durable.
  virtual int64_t committed() const = 0;
  // Calls `visit` with every stored event numbered above `after`, in order; afterwards Append
  // numbers from the last one visited. Not while events are appended.
  virtual void ForEach(int64_t after,
                       const std::function<void(int64_t seq, const Event&)>& visit) = 0;
  // Where the events are, for messages: a file, or etcd's endpoints and key prefix.
  virtual const std::string& path() const = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_JOURNAL_H_
