// The native usage-history format (docs/profiles.md): one CSV row per container and sample,
//
//   time,app,container,cpu,memory,disk,network
//
// time in whole seconds; cpu in millicores, memory in bytes, disk and network in bytes/s, each a
// non-negative finite number of at most 2^46 (fractions allowed); every row ends with a line end.
// Rows of one container (app + container name) come
// in non-decreasing time order; rows of different containers may interleave freely. Sampling may be
// irregular and have gaps. GPU is not part of the history (its usage is reported as 0).
//
// UsageHistoryReader streams the file row by row (memory grows with the number of containers, not
// rows) and throws TraceError naming the file, the line and the problem for a wrong header, a
// malformed or negative value, or a row that goes back in time for its container.
// UsageHistoryWriter writes rows in the same format, atomically; `archimedes simulate
// --record-usage` uses it.
#ifndef ARCHIMEDES_TRACE_USAGE_HISTORY_H_
#define ARCHIMEDES_TRACE_USAGE_HISTORY_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/resources.h"
#include "trace/csv_reader.h"
#include "trace/output_file.h"
#include "trace/trace_error.h"

namespace archimedes {

inline constexpr std::string_view kUsageHistoryHeader =
    "time,app,container,cpu,memory,disk,network";

// One row. The views stay valid until the next call of UsageHistoryReader::Next.
struct UsageRecord {
  int64_t time = 0;
  std::string_view app;
  std::string_view container;
  // The container's number: 0, 1, ... in the order containers first appear in the file. A reader
  // that keeps something per container indexes it by this instead of hashing the names again.
  int32_t series = -1;
  std::array<float, kNumDims> usage{};  // gpu always 0
};

class UsageHistoryReader {
 public:
  // Opens `path` and checks its header. Throws TraceError.
  explicit UsageHistoryReader(std::string path);

  // Reads the next row; false at the end of the file. Throws TraceError on a bad row.
  bool Next();
  const UsageRecord& record() const { return record_; }

  const std::string& path() const { return csv_.path(); }
  int64_t line() const { return csv_.line(); }

 private:
  CsvReader csv_;
  UsageRecord record_;
  // The series of the row whose names are in key_ (app '\0' container).
  int32_t SeriesOfKey();

  std::string key_;  // reused to avoid an allocation per row
  std::unordered_map<std::string, int32_t> series_;
  // By series: its key, its last time, and the series that followed it in the file last time.
  std::vector<std::string> keys_;
  std::vector<int64_t> last_time_;
  std::vector<int32_t> next_;
  int32_t previous_ = -1;  // the previous row's series
};

class UsageHistoryWriter {
 public:
  // Starts the file at `path` with its header; it appears there only on Commit (see
  // trace/output_file.h). Throws TraceError when it cannot.
  explicit UsageHistoryWriter(const std::string& path);

  // Appends one row. `app` and `container` are quoted when they contain a comma or a quote.
  // Throws TraceError when the write fails.
  void Write(int64_t time, std::string_view app, std::string_view container,
             const std::array<float, kNumDims>& usage);

  // Puts the whole file in place of `path`; throws TraceError when the write fails. Without it,
  // nothing is written.
  void Commit();

 private:
  AtomicOutputFile out_;
  std::string row_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_USAGE_HISTORY_H_
