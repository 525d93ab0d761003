// A usage history (trace/usage_history.h) read ahead: a thread parses the file into batches of
// rows while the caller works on the previous batch, so that parsing and what the caller does with
// the rows (profiling) share the machine's cores instead of taking turns.
//
//   UsageHistoryStream stream(path);
//   UsageBatch batch;
//   while (stream.Next(batch)) { ... batch.rows ... }
//
// Errors of the file (UsageHistoryReader's TraceError) are thrown by the Next call that reaches
// the row, after every row before it has been handed over. Destroying the stream early stops the
// thread.
#ifndef ARCHIMEDES_TRACE_USAGE_HISTORY_STREAM_H_
#define ARCHIMEDES_TRACE_USAGE_HISTORY_STREAM_H_

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "model/resources.h"

namespace archimedes {

class UsageHistoryReader;

struct UsageRow {
  int32_t series = -1;  // UsageRecord::series
  int64_t time = 0;
  std::array<float, kNumDims> usage{};
};

struct UsageBatch {
  std::vector<UsageRow> rows;
  // (app, container) of the series first seen in this batch, in series order: series
  // `first_new_series + i` is new_series[i].
  int32_t first_new_series = 0;
  std::vector<std::pair<std::string, std::string>> new_series;
  int64_t last_line = 0;  // the file's line of the batch's last row
};

class UsageHistoryStream {
 public:
  // Opens `path` and checks its header (TraceError) before the thread starts.
  explicit UsageHistoryStream(const std::string& path);
  ~UsageHistoryStream();
  UsageHistoryStream(const UsageHistoryStream&) = delete;
  UsageHistoryStream& operator=(const UsageHistoryStream&) = delete;

  // The next batch into `batch` (its buffers are reused); false at the end of the file.
  bool Next(UsageBatch& batch);

 private:
  static constexpr size_t kBatchRows = 8192;
  static constexpr size_t kBatchesAhead = 4;

  // The thread: parses `reader`'s rows into batches until the end, an error or stop_.
  void Read(UsageHistoryReader& reader);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<UsageBatch> ready_;   // parsed, not yet taken
  std::vector<UsageBatch> spare_;  // taken back, for their buffers
  bool done_ = false;              // the thread has handed over its last batch
  bool stop_ = false;              // the stream is being destroyed
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_USAGE_HISTORY_STREAM_H_
