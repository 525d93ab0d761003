#include "trace/usage_history_stream.h"

#include "trace/usage_history.h"

namespace archimedes {

UsageHistoryStream::UsageHistoryStream(const std::string& path) {
  UsageHistoryReader reader(path);
  thread_ = std::thread([this, reader = std::move(reader)]() mutable { Read(reader); });
}

UsageHistoryStream::~UsageHistoryStream() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool UsageHistoryStream::Next(UsageBatch& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || done_; });
  if (!ready_.empty()) {
    spare_.push_back(std::move(batch));
    batch = std::move(ready_.front());
    ready_.pop_front();
    changed_.notify_all();
    return true;
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  return false;
}

void UsageHistoryStream::Read(UsageHistoryReader& reader) {
  int32_t known = 0;  // series seen so far
  UsageBatch batch;
  // Hands `batch` over once there is room ahead; false when the stream is being destroyed.
  auto hand_over = [&](bool last) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stop_ || ready_.size() < kBatchesAhead; });
    if (stop_) return false;
    if (!batch.rows.empty()) ready_.push_back(std::move(batch));
    done_ = last;
    if (!spare_.empty()) {
      batch = std::move(spare_.back());
      spare_.pop_back();
    }
    changed_.notify_all();
    return true;
  };
  try {
    for (;;) {
      batch.rows.clear();
      batch.new_series.clear();
      batch.first_new_series = known;
      bool last = false;
      while (batch.rows.size() < kBatchRows) {
        if (!reader.Next()) {
          last = true;
          break;
        }
        const UsageRecord& r = reader.record();
        if (r.series == known) {
          batch.new_series.emplace_back(r.app, r.container);
          ++known;
        }
        batch.rows.push_back({.series = r.series, .time = r.time, .usage = r.usage});
        batch.last_line = reader.line();
      }
      if (!hand_over(last) || last) return;
    }
  } catch (...) {
    // The rows before the bad one are handed over first, then the error.
    const std::exception_ptr error = std::current_exception();
    if (!hand_over(false)) return;
    const std::lock_guard lock(mutex_);
    error_ = error;
    done_ = true;
    changed_.notify_all();
  }
}

}  // namespace archimedes
