#include "server/sqlite_journal.h"

namespace archimedes {
namespace {

// Finalises a statement however its scope ends.
struct Statement {
  sqlite3_stmt* stmt = nullptr;
  ~Statement() { sqlite3_finalize(stmt); }
};

std::string Column(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  return text == nullptr ? std::string()
                         : std::string(reinterpret_cast<const char*>(text),
                                       static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

}  // namespace

SqliteJournal::SqliteJournal(const std::string& path, const JournalSettings& settings)
    : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw JournalError(path + ": cannot open: " + why);
  }
  try {
    sqlite3_busy_timeout(db_, 5000);
    Exec("PRAGMA journal_mode=WAL");
    Exec("PRAGMA synchronous=FULL");
    Exec("CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)");
    Exec(
        "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, "
        "time INTEGER NOT NULL, target TEXT NOT NULL, body TEXT NOT NULL, "
        "idempotency_key TEXT NOT NULL)");
    // A journal that has settings was written before; one that misses a setting it judges by the
    // value journals older than that setting held.
    Statement count;
    sqlite3_prepare_v2(db_, "SELECT COUNT(*) FROM settings", -1, &count.stmt, nullptr);
    const bool older =
        sqlite3_step(count.stmt) == SQLITE_ROW && sqlite3_column_int(count.stmt, 0) > 0;
    for (const auto& [name, value] : settings) {
      Statement select;
      sqlite3_prepare_v2(db_, "SELECT value FROM settings WHERE name = ?", -1, &select.stmt,
                         nullptr);
      sqlite3_bind_text(select.stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      std::optional<std::string> stored;
      if (sqlite3_step(select.stmt) == SQLITE_ROW) {
        stored = Column(select.stmt, 0);
      } else if (older) {
        stored = SettingOfOlderJournals(name);
      }
      if (stored) {
        if (*stored != value) {
          throw JournalError(path + " was written with " + name + " " + *stored + ", not " + value +
                             ": its events replay only under the same " + name + " (start with --" +
                             name + " " + *stored + ", or another --data)");
        }
        continue;
      }
      Statement insert;
      sqlite3_prepare_v2(db_, "INSERT INTO settings (name, value) VALUES (?, ?)", -1, &insert.stmt,
                         nullptr);
      sqlite3_bind_text(insert.stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert.stmt, 2, value.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(insert.stmt) != SQLITE_DONE) Fail("cannot store setting " + name);
    }
    if (sqlite3_prepare_v2(db_,
                           "INSERT INTO events (seq, kind, time, target, body, idempotency_key) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           -1, &insert_, nullptr) != SQLITE_OK) {
      Fail("cannot prepare the insert");
    }
  } catch (...) {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
    throw;
  }
}

SqliteJournal::~SqliteJournal() {
  sqlite3_finalize(insert_);
  sqlite3_close(db_);
}

void SqliteJournal::Exec(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    throw JournalError(path_ + ": " + sql + ": " + why);
  }
}

void SqliteJournal::Fail(const std::string& what) const {
  throw JournalError(path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

int64_t SqliteJournal::Append(Event event) { return commit_.Append(std::move(event)); }

void SqliteJournal::Sync(int64_t seq) {
  commit_.Sync(seq, [this](const GroupCommit::Batch& batch) { Write(batch); });
}

void SqliteJournal::Write(const GroupCommit::Batch& batch) {
  Exec("BEGIN");
  for (const auto& [number, event] : batch) {
    sqlite3_reset(insert_);
    sqlite3_bind_int64(insert_, 1, number);
    sqlite3_bind_int(insert_, 2, static_cast<int>(event.kind));
    sqlite3_bind_int64(insert_, 3, event.time);
    sqlite3_bind_text(insert_, 4, event.target.data(), static_cast<int>(event.target.size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(insert_, 5, event.body.data(), static_cast<int>(event.body.size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(insert_, 6, event.idempotency_key.data(),
                      static_cast<int>(event.idempotency_key.size()), SQLITE_STATIC);
    if (sqlite3_step(insert_) != SQLITE_DONE) {
      const std::string why = sqlite3_errmsg(db_);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw JournalError(path_ + ": cannot append event " + std::to_string(number) + ": " + why);
    }
  }
  sqlite3_clear_bindings(insert_);
  Exec("COMMIT");
  commit_.MarkDurable(batch.back().first);
}

void SqliteJournal::ForEach(int64_t after,
                            const std::function<void(int64_t seq, const Event&)>& visit) {
  Statement select;
  if (sqlite3_prepare_v2(db_,
                         "SELECT seq, kind, time, target, body, idempotency_key FROM events "
                         "WHERE seq > ? ORDER BY seq",
                         -1, &select.stmt, nullptr) != SQLITE_OK) {
    Fail("cannot read the events");
  }
  sqlite3_bind_int64(select.stmt, 1, after);
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(select.stmt)) == SQLITE_ROW) {
    const int kind = sqlite3_column_int(select.stmt, 1);
    if (kind < 0 || kind > static_cast<int>(kLastEventKind)) {
      throw JournalError(path_ + ": event " + std::to_string(sqlite3_column_int64(select.stmt, 0)) +
                         " has unknown kind " + std::to_string(kind));
    }
    const Event event{.kind = static_cast<EventKind>(kind),
                      .time = sqlite3_column_int64(select.stmt, 2),
                      .target = Column(select.stmt, 3),
                      .body = Column(select.stmt, 4),
                      .idempotency_key = Column(select.stmt, 5)};
    const int64_t seq = sqlite3_column_int64(select.stmt, 0);
    commit_.Stored(seq);
    visit(seq, event);
  }
  if (rc != SQLITE_DONE) Fail("cannot read the events");
}

}  // namespace archimedes
