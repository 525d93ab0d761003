#include "trace/usage_history.h"

#include <charconv>
#include <cmath>

#include "model/limits.h"

namespace archimedes {

namespace {

// Times have any origin (Unix time included) but stay within ±2^40 s (35,000 years), so that
// differences of times cannot overflow.
constexpr int64_t kMaxHistoryTime = int64_t{1} << 40;

constexpr std::array<std::string_view, 7> kColumns = {"time",   "app",  "container", "cpu",
                                                      "memory", "disk", "network"};

void AppendField(std::string& row, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    row.append(text);
    return;
  }
  row.push_back('"');
  for (char c : text) {
    if (c == '"') row.push_back('"');
    row.push_back(c);
  }
  row.push_back('"');
}

void AppendNumber(std::string& row, float value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  row.append(buffer, end);
}

}  // namespace

UsageHistoryReader::UsageHistoryReader(std::string path) : csv_(std::move(path)) {
  if (!csv_.Next())
    csv_.Fail("empty file; expected the header " + std::string(kUsageHistoryHeader));
  bool header_ok = csv_.size() == static_cast<int>(kColumns.size());
  for (int i = 0; header_ok && i < csv_.size(); ++i) header_ok = csv_.field(i) == kColumns[i];
  if (!header_ok) csv_.Fail("expected the header " + std::string(kUsageHistoryHeader));
}

bool UsageHistoryReader::Next() {
  if (!csv_.Next()) return false;
  csv_.ExpectFields(static_cast<int>(kColumns.size()));
  record_.time = csv_.Int(0, "time", -kMaxHistoryTime, kMaxHistoryTime);
  record_.app = csv_.field(1);
  record_.container = csv_.field(2);
  if (record_.app.empty()) csv_.Fail("column app is empty");
  if (record_.container.empty()) csv_.Fail("column container is empty");
  for (int d = 0; d < 4; ++d) {
    record_.usage[d] = static_cast<float>(
        csv_.Double(3 + d, kColumns[3 + d], 0, static_cast<double>(kMaxResourceAmount)));
  }
  record_.usage[static_cast<int>(Dim::kGpu)] = 0.0f;

  key_.assign(record_.app);
  key_.push_back('\0');
  key_.append(record_.container);
  const auto known = static_cast<int32_t>(last_time_.size());
  record_.series = SeriesOfKey();
  if (record_.series == known) {
    last_time_.push_back(record_.time);
    return true;
  }
  int64_t& last = last_time_[record_.series];
  if (record_.time < last) {
    csv_.Fail("time " + std::to_string(record_.time) + " of container " +
              std::string(record_.container) + " (app " + std::string(record_.app) +
              ") is before its previous row's time " + std::to_string(last) +
              "; rows of a container must be in time order");
  }
  last = record_.time;
  return true;
}

// Rows of a file sorted by time cycle through the containers in the same order every time, and a
// file sorted by container repeats one: the series that followed the previous row's last time, and
// the previous row's own, are tried before the names are hashed (a hash lookup per row, in a table
// of thousands, costs a cache miss or two).
int32_t UsageHistoryReader::SeriesOfKey() {
  int32_t series = -1;
  if (previous_ >= 0) {
    const int32_t guess = next_[previous_];
    if (guess >= 0 && keys_[guess] == key_) {
      series = guess;
    } else if (keys_[previous_] == key_) {
      series = previous_;
    }
  }
  if (series < 0) {
    const auto [it, inserted] = series_.try_emplace(key_, static_cast<int32_t>(keys_.size()));
    series = it->second;
    if (inserted) {
      keys_.push_back(key_);
      next_.push_back(-1);
    }
  }
  if (previous_ >= 0) next_[previous_] = series;
  previous_ = series;
  return series;
}

UsageHistoryWriter::UsageHistoryWriter(const std::string& path) : out_(path) {
  out_.Write(std::string(kUsageHistoryHeader) + "\n");
}

void UsageHistoryWriter::Write(int64_t time, std::string_view app, std::string_view container,
                               const std::array<float, kNumDims>& usage) {
  row_.clear();
  row_.append(std::to_string(time));
  row_.push_back(',');
  AppendField(row_, app);
  row_.push_back(',');
  AppendField(row_, container);
  for (int d = 0; d < 4; ++d) {
    row_.push_back(',');
    AppendNumber(row_, usage[d]);
  }
  row_.push_back('\n');
  out_.Write(row_);
}

void UsageHistoryWriter::Commit() { out_.Commit(); }

}  // namespace archimedes
