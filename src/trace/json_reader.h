// Strict reading of JSON documents: the one layer under every JSON format the project reads
// (scenarios and jobs, profiles, fault scenarios, the base of a scenario file), so that all of
// them complain alike. Every complaint is a JsonError naming the file, the JSON path of the value
// at fault — `jobs[3].requests.cpu`, `[2].at` in a bare array, empty for the document itself —
// and the problem:
//
//   scenario.json: services[1].replicsa: unknown key "replicsa"; did you mean "replicas"?
//
// Objects are strict: a key never asked for is rejected (the closest known key suggested), a
// missing required key is reported (a near miss named). A value of the wrong type names what was
// expected and what was found ("expected a string, got number 5"). ReadJsonFile also rejects a
// key given twice in one object, which nlohmann would silently collapse.
//
// A JsonValue refers to its document and its source name without copying them: both must outlive
// it.
#ifndef ARCHIMEDES_TRACE_JSON_READER_H_
#define ARCHIMEDES_TRACE_JSON_READER_H_

#include <climits>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/trace_error.h"

namespace archimedes {

class JsonError : public TraceError {
 public:
  JsonError(const std::string& file, const std::string& path, const std::string& problem);

  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// Objects and arrays may nest this deep in a document; no format of the project needs more than
// six levels.
inline constexpr size_t kMaxJsonDepth = 64;

// The parsed document of a file. Throws TraceError when the file cannot be read or the JSON is
// malformed (with the line, and the column in the message), JsonError for a duplicated key or for
// nesting deeper than kMaxJsonDepth.
nlohmann::json ReadJsonFile(const std::string& path);
// The same for a document given as text (a request body), `source` naming it in errors.
nlohmann::json ParseJsonText(const std::string& source, const std::string& text);

class JsonValue {
 public:
  JsonValue(const std::string& source, const nlohmann::json& value, std::string path = "");
  // A temporary would not outlive the value.
  JsonValue(std::string&& source, const nlohmann::json& value, std::string path = "") = delete;
  JsonValue(const std::string& source, nlohmann::json&& value, std::string path = "") = delete;

  const nlohmann::json& raw() const { return *json_; }
  const std::string& source() const { return *source_; }
  const std::string& path() const { return path_; }

  JsonError Error(const std::string& problem) const;
  [[noreturn]] void Fail(const std::string& problem) const;

  // The value's type and its text, cut to 40 characters: `number 5`, `string "5x"`; an array or
  // object by its size alone (`an array of 3 elements`).
  std::string Describe() const;

  // The member `key` of this object, whose value is `member`.
  JsonValue Member(const std::string& key, const nlohmann::json& member) const;
  // The elements of an array.
  std::vector<JsonValue> Elements() const;

  std::string String() const;
  // A string that names something: not empty.
  std::string Name() const;
  bool Bool() const;
  // A whole number (a float with no fraction counts) in [min, max].
  int64_t Integer(int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max()) const;
  int Int(int min = INT_MIN, int max = INT_MAX) const;
  double Number(double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity()) const;
  // An array of numbers, checked element by element.
  std::vector<double> Numbers() const;
  // Whole seconds, or a duration string such as "90s" or "1h30m" (model/duration.h), in
  // [min, max].
  int64_t Duration(int64_t min = std::numeric_limits<int64_t>::min(),
                   int64_t max = std::numeric_limits<int64_t>::max()) const;
  // An object whose members are all strings.
  std::map<std::string, std::string> StringMap() const;
  // A string's text or a number's (`500`, `0.8`): a parameter written either way.
  std::string ScalarText() const;

 private:
  const std::string* source_;
  const nlohmann::json* json_;
  std::string path_;
};

// A JSON object whose keys are asked for by name; a key never asked for is a typo.
class JsonObject {
 public:
  // Fails unless `value` is an object.
  explicit JsonObject(const JsonValue& value);

  const JsonValue& value() const { return value_; }

  // The member `key`, or nullopt when absent; either way `key` becomes known.
  std::optional<JsonValue> Find(const std::string& key);
  // The member `key`; fails when it is absent, naming a present key spelled nearly alike.
  JsonValue Require(const std::string& key);
  // Fails on the first key never passed to Find or Require. Call once every key has been asked
  // for.
  void RejectUnknownKeys() const;

 private:
  JsonValue value_;
  std::set<std::string> known_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_JSON_READER_H_
