// The one error type of every reader: it names the file, the line (when there is one) and what is
// wrong, so that a user can go straight to the bad input.
#ifndef ARCHIMEDES_TRACE_TRACE_ERROR_H_
#define ARCHIMEDES_TRACE_TRACE_ERROR_H_

#include <cstdint>
#include <stdexcept>
#include <string>

namespace archimedes {

class TraceError : public std::runtime_error {
 public:
  // line 0 means "the file as a whole".
  TraceError(const std::string& file, int64_t line, const std::string& reason)
      : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + reason),
        file_(file),
        line_(line) {}

  const std::string& file() const { return file_; }
  int64_t line() const { return line_; }

 private:
  std::string file_;
  int64_t line_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_TRACE_ERROR_H_
