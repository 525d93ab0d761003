#include "trace/csv_reader.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>

#include "trace/input_file.h"

namespace archimedes {

namespace {

// The offset of the first byte of `s` that does not belong to a well-formed UTF-8 sequence
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or npos.
size_t FirstInvalidUtf8(std::string_view s) {
  // Trace lines are ASCII: one pass without a branch per byte (it vectorises) settles them.
  unsigned char high = 0;
  for (const char c : s) high |= static_cast<unsigned char>(c);
  if (high < 0x80) return std::string_view::npos;
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    int length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      if (b == 0xE0) low = 0xA0;
      if (b == 0xED) high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      if (b == 0xF0) low = 0x90;
      if (b == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > s.size()) return i;
    for (int k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xBF)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

// Large enough that a read costs little per line, small enough to stay in cache.
constexpr size_t kBlockBytes = size_t{1} << 18;

CsvReader::CsvReader(std::string path, LastLineEnd last_line_end)
    : path_(std::move(path)),
      in_(OpenInputFile(path_)),
      block_(kBlockBytes),
      last_line_end_(last_line_end) {}

bool CsvReader::ReadLine(std::string_view& line, bool& ended) {
  carry_.clear();
  for (;;) {
    const char* begin = block_.data() + block_begin_;
    const size_t available = block_end_ - block_begin_;
    if (const auto* end = static_cast<const char*>(std::memchr(begin, '\n', available))) {
      const auto length = static_cast<size_t>(end - begin);
      block_begin_ += length + 1;
      ended = true;
      if (carry_.empty()) {
        line = {begin, length};
      } else {
        carry_.append(begin, length);
        line = carry_;
      }
      return true;
    }
    carry_.append(begin, available);
    in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
    if (in_.bad()) Fail("read error");
    block_begin_ = 0;
    block_end_ = static_cast<size_t>(in_.gcount());
    if (block_end_ == 0) {
      ended = false;
      line = carry_;
      return !carry_.empty();
    }
  }
}

void CsvReader::Split(std::string_view line) {
  fields_.clear();
  unquoted_.clear();
  unquoted_.reserve(line.size());
  size_t i = 0;
  for (;;) {
    const size_t start = i;
    while (i < line.size() && line[i] != ',' && line[i] != '"') ++i;
    if (i == line.size() || line[i] == ',') {
      fields_.push_back(line.substr(start, i - start));
    } else {
      // Quotes may open and close anywhere in a field (RFC 4180 and what spreadsheets write):
      // its text, without them and with "" as one quote, goes to unquoted_.
      const size_t from = unquoted_.size();
      unquoted_.append(line.substr(start, i - start));
      bool quoted = false;
      for (; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
          if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            unquoted_.push_back('"');
            ++i;
          } else if (c == '"') {
            quoted = false;
          } else {
            unquoted_.push_back(c);
          }
        } else if (c == '"') {
          quoted = true;
        } else if (c == ',') {
          break;
        } else {
          unquoted_.push_back(c);
        }
      }
      if (quoted) Fail("unterminated quoted field");
      fields_.push_back(std::string_view(unquoted_).substr(from));
    }
    if (i == line.size()) return;
    ++i;  // the comma
  }
}

bool CsvReader::Next() {
  std::string_view line;
  bool ended = false;
  while (ReadLine(line, ended)) {
    ++line_;
    if (!ended && last_line_end_ == LastLineEnd::kRequired) {
      Fail(
          "the last line has no line end: the file is cut short (its writer ends every line "
          "with one)");
    }
    if (const size_t bad = FirstInvalidUtf8(line); bad != std::string_view::npos) {
      Fail("byte " + std::to_string(bad + 1) + " is not valid UTF-8");
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    Split(line);
    return true;
  }
  return false;
}

void CsvReader::ExpectFields(int n) const {
  if (size() != n) {
    Fail("expected " + std::to_string(n) + " fields, found " + std::to_string(size()) +
         " (truncated or malformed row)");
  }
}

void CsvReader::ExpectHeader(const std::vector<std::string>& columns) {
  if (!Next()) Fail("empty file, expected a header line");
  ExpectFields(static_cast<int>(columns.size()));
  for (int i = 0; i < size(); ++i) {
    if (field(i) != columns[i]) {
      Fail("header column " + std::to_string(i + 1) + " is \"" + std::string(field(i)) +
           "\", expected \"" + columns[i] + "\"");
    }
  }
}

void CsvReader::Fail(const std::string& reason) const { throw TraceError(path_, line_, reason); }

std::optional<int64_t> CsvReader::OptionalInt(int i, std::string_view column, int64_t min,
                                              int64_t max) const {
  if (i >= size()) Fail("missing column " + std::string(column));
  std::string_view s = Trim(fields_[i]);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) OutOfRange(column, s, min, max);
  if (ec != std::errc() || end != s.data() + s.size()) {
    // Integral columns are sometimes written as "12.0" by the tools that exported the traces.
    const double d = *OptionalDouble(i, column);
    if (d != std::floor(d)) {
      Fail("column " + std::string(column) + ": \"" + std::string(s) + "\" is not an integer");
    }
    // Compared as doubles: a double of 2^63 or more does not convert to int64.
    if (d < static_cast<double>(min) || d > static_cast<double>(max) || std::fabs(d) >= 0x1p63) {
      OutOfRange(column, s, min, max);
    }
    v = static_cast<int64_t>(d);
  }
  if (v < min || v > max) OutOfRange(column, s, min, max);
  return v;
}

std::optional<double> CsvReader::OptionalDouble(int i, std::string_view column, double min,
                                                double max) const {
  if (i >= size()) Fail("missing column " + std::string(column));
  std::string_view s = Trim(fields_[i]);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) OutOfRange(column, s, min, max);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    Fail("column " + std::string(column) + ": \"" + std::string(s) + "\" is not a number");
  }
  if (v < min || v > max) OutOfRange(column, s, min, max);
  return v;
}

int64_t CsvReader::Int(int i, std::string_view column, int64_t min, int64_t max) const {
  std::optional<int64_t> v = OptionalInt(i, column, min, max);
  if (!v) Fail("column " + std::string(column) + " is empty");
  return *v;
}

double CsvReader::Double(int i, std::string_view column, double min, double max) const {
  std::optional<double> v = OptionalDouble(i, column, min, max);
  if (!v) Fail("column " + std::string(column) + " is empty");
  return *v;
}

template <typename T>
void CsvReader::OutOfRange(std::string_view column, std::string_view text, T min, T max) const {
  std::ostringstream range;
  range << "[" << min << ", " << max << "]";
  Fail("column " + std::string(column) + ": " + std::string(text) + " is outside the range " +
       range.str());
}

}  // namespace archimedes
