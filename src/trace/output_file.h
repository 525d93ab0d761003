// The files the project writes (reports, profiles, scenarios, usage histories) are checked before
// a long run that fills them, and appear whole or not at all: the text goes to a temporary file in
// the same folder, which is then renamed over the path, so an interrupted or failed write never
// leaves a truncated file behind, and a reader never sees half of one.
//
// Every function throws TraceError naming the path and the reason.
#ifndef ARCHIMEDES_TRACE_OUTPUT_FILE_H_
#define ARCHIMEDES_TRACE_OUTPUT_FILE_H_

#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace archimedes {

// Fails unless a file can be created at `path` (its folder exists and is writable; the path is not
// a folder). Creates nothing that stays.
void CheckWritable(const std::string& path);

// Writes `text` to `path` atomically.
void WriteFileAtomically(const std::string& path, std::string_view text);

// `document` as JSON text (indented by `indent`, or on one line for -1) with a final line end.
// Text that is not valid UTF-8 is written with U+FFFD in its place. A NaN or infinite number is
// a bug upstream, never an output: it throws std::logic_error naming its JSON path.
std::string FormatJsonDocument(const nlohmann::json& document, int indent);

// `value` on one line as FormatJsonDocument writes it, without the line end: a part of a document
// written piece by piece, whose JSON path `path` names it in the error.
std::string FormatJsonValue(const nlohmann::json& value, const std::string& path);

// WriteFileAtomically(path, FormatJsonDocument(document, indent)).
void WriteJsonFile(const std::string& path, const nlohmann::json& document, int indent = 2);

// A file written as a stream: rows go to a temporary file beside `path`, which Commit renames
// over `path`. Destroyed uncommitted (a run that failed), it removes the temporary file.
class AtomicOutputFile {
 public:
  explicit AtomicOutputFile(std::string path);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void Write(std::string_view text);
  void Commit();

 private:
  std::string path_;
  std::string temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_OUTPUT_FILE_H_
