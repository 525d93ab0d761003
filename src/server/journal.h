// The service's durable state: every accepted event, in order, in one SQLite database in WAL mode
// (`<data>/journal.db`). Append returns once the event is on disk (synchronous=FULL), so a 2xx
// sent after it survives a kill -9 or a power cut. The settings that decide how events replay
// (policy, clock, cycles) are kept beside them: a journal is only replayed under its own.
//
// Not thread-safe: its owner serialises calls.
#ifndef ARCHIMEDES_SERVER_JOURNAL_H_
#define ARCHIMEDES_SERVER_JOURNAL_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

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

  // Stores `event` durably and returns its sequence number (1, 2, ...). Throws JournalError.
  int64_t Append(const Event& event);
  // Calls `visit` with every stored event in order.
  void ForEach(const std::function<void(int64_t seq, const Event&)>& visit) const;
  const std::string& path() const { return path_; }

 private:
  void Exec(const char* sql) const;
  [[noreturn]] void Fail(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_JOURNAL_H_
