// The service's durable state: every accepted event, in order, in one SQLite database in WAL mode
// (`<data>/journal.db`). Append numbers an event and queues it; Sync(seq) returns once that event
// is on disk (synchronous=FULL: it survives a kill -9 or a power cut), writing everything queued
// so far in one transaction — group commit: one fsync for all the requests that arrived while the
// previous one ran. The settings that decide how events replay (policy, clock, cycles) are kept
// beside them: a journal is only replayed under its own.
//
// Append and Sync are thread-safe; Append is called in the order the events apply.
#ifndef ARCHIMEDES_SERVER_JOURNAL_H_
#define ARCHIMEDES_SERVER_JOURNAL_H_

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "server/event.h"

namespace archimedes {

class JournalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Journal {
 public:
  // Opens or creates the journal at `path`. `settings` are compared with those it was created
  // with: a difference is a JournalError naming the setting, both values and the file.
  Journal(const std::string& path, const std::map<std::string, std::string>& settings);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Queues `event` and returns its sequence number (1, 2, ...).
  int64_t Append(Event event);
  // Returns once every event up to `seq` is on disk. Throws JournalError when the store fails:
  // the queued events are then lost, and so must be what they did.
  void Sync(int64_t seq);
  // The last sequence number on disk.
  int64_t committed() const { return committed_; }
  // Calls `visit` with every stored event in order. Not while events are appended.
  void ForEach(const std::function<void(int64_t seq, const Event&)>& visit);
  const std::string& path() const { return path_; }

 private:
  void Exec(const char* sql) const;
  [[noreturn]] void Fail(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  std::mutex queue_mu_;
  std::vector<std::pair<int64_t, Event>> queue_;
  int64_t appended_ = 0;
  std::mutex write_mu_;  // one writer of the database at a time
  std::atomic<int64_t> committed_{0};
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_JOURNAL_H_
