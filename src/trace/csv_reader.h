// A streaming reader of comma-separated files (RFC 4180 quoting, CRLF or LF line ends, an optional
// header line) whose every error names the file and line. Rows are read one at a time, so memory
// does not grow with the file, and fields are views: no allocation per row.
//
// Every line must end with a line end unless the reader is told the file's writer leaves the
// last one without: a missing one is the only sign of a file cut inside its last field. Every line
// must be valid UTF-8, so that no name read from it turns into something else on its way out.
#ifndef ARCHIMEDES_TRACE_CSV_READER_H_
#define ARCHIMEDES_TRACE_CSV_READER_H_

#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_error.h"

namespace archimedes {

class CsvReader {
 public:
  static constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
  static constexpr double kMinDouble = std::numeric_limits<double>::lowest();
  static constexpr double kMaxDouble = std::numeric_limits<double>::max();

  enum class LastLineEnd { kRequired, kOptional };

  // Throws TraceError when the file cannot be opened.
  explicit CsvReader(std::string path, LastLineEnd last_line_end = LastLineEnd::kRequired);

  // Reads the next row into fields(); false at the end of the file. Blank lines are skipped.
  // Throws TraceError on a line that is not UTF-8 and on a last line without its required end.
  bool Next();

  const std::string& path() const { return path_; }
  int64_t line() const { return line_; }
  int size() const { return static_cast<int>(fields_.size()); }
  std::string_view field(int i) const { return fields_[i]; }

  // Throws TraceError unless the row has exactly `n` fields.
  void ExpectFields(int n) const;
  // Reads the header line and throws TraceError unless it names `columns`, in order.
  void ExpectHeader(const std::vector<std::string>& columns);
  // Field `i` parsed as a number in [min, max]; throws TraceError naming the column on malformed
  // or empty text, and the value and the range when it is outside ("column cpus: 1e+18 is outside
  // [0, 7.03687e+13]"). A double is always finite.
  int64_t Int(int i, std::string_view column, int64_t min = kMinInt, int64_t max = kMaxInt) const;
  double Double(int i, std::string_view column, double min = kMinDouble,
                double max = kMaxDouble) const;
  // As above, but an empty field gives nullopt.
  std::optional<int64_t> OptionalInt(int i, std::string_view column, int64_t min = kMinInt,
                                     int64_t max = kMaxInt) const;
  std::optional<double> OptionalDouble(int i, std::string_view column, double min = kMinDouble,
                                       double max = kMaxDouble) const;

  [[noreturn]] void Fail(const std::string& reason) const;

 private:
  template <typename T>
  [[noreturn]] void OutOfRange(std::string_view column, std::string_view text, T min, T max) const;

  // The next line without its end into `line`; `ended`: it had one. False at the end of the file.
  bool ReadLine(std::string_view& line, bool& ended);
  // Splits `line` into fields_: views into the line, or into unquoted_ for a field with quotes.
  void Split(std::string_view line);

  std::string path_;
  std::ifstream in_;
  // The file is read in blocks; a line that spans two of them is gathered in carry_.
  std::vector<char> block_;
  size_t block_begin_ = 0, block_end_ = 0;
  std::string carry_;
  std::string unquoted_;  // reserved to the line's length first, so that views into it stay valid
  std::vector<std::string_view> fields_;
  LastLineEnd last_line_end_;
  int64_t line_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_CSV_READER_H_
