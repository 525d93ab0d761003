// A streaming reader of comma-separated files (RFC 4180 quoting, CRLF or LF line ends, an optional
// header line) whose every error names the file and line. Rows are read one at a time, so memory
// does not grow with the file.
#ifndef ARCHIMEDES_TRACE_CSV_READER_H_
#define ARCHIMEDES_TRACE_CSV_READER_H_

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_error.h"

namespace archimedes {

class CsvReader {
 public:
  // Throws TraceError when the file cannot be opened.
  explicit CsvReader(std::string path);

  // Reads the next row into fields(); false at the end of the file. Blank lines are skipped.
  bool Next();

  const std::string& path() const { return path_; }
  int64_t line() const { return line_; }
  int size() const { return static_cast<int>(fields_.size()); }
  std::string_view field(int i) const { return fields_[i]; }

  // Throws TraceError unless the row has exactly `n` fields.
  void ExpectFields(int n) const;
  // Reads the header line and throws TraceError unless it names `columns`, in order.
  void ExpectHeader(const std::vector<std::string>& columns);
  // Field `i` parsed as a number; throws TraceError naming the column on malformed or empty text.
  int64_t Int(int i, std::string_view column) const;
  double Double(int i, std::string_view column) const;
  // As above, but an empty field gives nullopt.
  std::optional<int64_t> OptionalInt(int i, std::string_view column) const;
  std::optional<double> OptionalDouble(int i, std::string_view column) const;

  [[noreturn]] void Fail(const std::string& reason) const;

 private:
  std::string path_;
  std::ifstream in_;
  std::string raw_;
  std::vector<std::string> fields_;
  int64_t line_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_CSV_READER_H_
