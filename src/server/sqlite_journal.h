// A Journal (server/journal.h) in one SQLite database in WAL mode (`<data>/journal.db`). Sync
// writes everything queued in one transaction with synchronous=FULL: a synced event survives a
// kill -9 or a power cut. The settings are kept in a table beside the events.
#ifndef ARCHIMEDES_SERVER_SQLITE_JOURNAL_H_
#define ARCHIMEDES_SERVER_SQLITE_JOURNAL_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>

#include "server/group_commit.h"
#include "server/journal.h"

namespace archimedes {

class SqliteJournal : public Journal {
 public:
  // Opens or creates the journal at `path`. `settings` are compared with those it was created
  // with: a difference is a JournalError naming the setting, both values and the file.
  SqliteJournal(const std::string& path, const JournalSettings& settings);
  ~SqliteJournal() override;
  SqliteJournal(const SqliteJournal&) = delete;
  SqliteJournal& operator=(const SqliteJournal&) = delete;

  int64_t Append(Event event) override;
  void Sync(int64_t seq) override;
  int64_t committed() const override { return commit_.durable(); }
  void ForEach(int64_t after, const std::function<void(int64_t seq, const Event&)>& visit) override;
  const std::string& path() const override { return path_; }

 private:
  // Writes `batch` in one transaction.
  void Write(const GroupCommit::Batch& batch);
  void Exec(const char* sql) const;
  [[noreturn]] void Fail(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  GroupCommit commit_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_SQLITE_JOURNAL_H_
