#include "trace/json_reader.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include "model/duration.h"
#include "trace/input_file.h"

namespace archimedes {
namespace {

using nlohmann::json;

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string ShortNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

int EditDistance(const std::string& a, const std::string& b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A key given twice in one object is as likely a mistake as an unknown one, but nlohmann keeps
// only the last; this parser callback tracks the open objects and arrays to reject it with a path.
// It also stops nesting deeper than kMaxJsonDepth while parsing: a value nested 100,000 deep parses
// (nlohmann's parser keeps its own stack) but anything recursive over it afterwards, such as
// printing it, would overflow the call stack.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& source) : source_(&source) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        CountElement();
        if (frames_.size() >= kMaxJsonDepth) {
          throw JsonError(*source_, Path(),
                          "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        }
        frames_.push_back({event == json::parse_event_t::array_start, -1, {}, {}});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          throw JsonError(*source_, Path(), "key " + Quoted(top.key) + " appears twice");
        }
        break;
      }
      case json::parse_event_t::value:
        CountElement();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    int64_t index;    // of the current element, in an array
    std::string key;  // the current key, in an object
    std::set<std::string> keys;
  };

  void CountElement() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.array) {
        path += "[" + std::to_string(f.index) + "]";
      } else {
        path += (path.empty() ? "" : ".") + f.key;
      }
    }
    return path;
  }

  const std::string* source_;
  std::vector<Frame> frames_;
};

}  // namespace

JsonError::JsonError(const std::string& file, const std::string& path, const std::string& problem)
    : TraceError(file, 0, path.empty() ? problem : path + ": " + problem),
      path_(path),
      problem_(problem) {}

json ReadJsonFile(const std::string& path) {
  std::ifstream in = OpenInputFile(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw TraceError(path, 0, "cannot read the file");
  return ParseJsonText(path, buffer.str());
}

json ParseJsonText(const std::string& path, const std::string& text) {
  try {
    return json::parse(text, DuplicateKeyCheck(path));
  } catch (const json::parse_error& e) {
    // Report the offending character's line in TraceError's own field, and its column here.
    size_t offset = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    int64_t line = 1;
    int64_t column = 1;
    for (size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string detail = e.what();
    size_t start = detail.find(": ", detail.find("parse error"));
    if (start != std::string::npos) detail = detail.substr(start + 2);
    throw TraceError(path, line,
                     "malformed JSON at column " + std::to_string(column) + ": " + detail);
  } catch (const json::out_of_range& e) {
    // A number too large for a double; nlohmann does not say where it is.
    std::string detail = e.what();
    throw TraceError(path, 0, "malformed JSON: " + detail.substr(detail.find(']') + 2));
  }
}

JsonValue::JsonValue(const std::string& source, const json& value, std::string path)
    : source_(&source), json_(&value), path_(std::move(path)) {}

JsonError JsonValue::Error(const std::string& problem) const {
  return JsonError(*source_, path_, problem);
}

void JsonValue::Fail(const std::string& problem) const { throw Error(problem); }

std::string JsonValue::Describe() const {
  // A structured value is summarised, never printed: it may be large, and printing recurses.
  if (json_->is_structured()) {
    const size_t n = json_->size();
    return json_->is_array()
               ? "an array of " + std::to_string(n) + (n == 1 ? " element" : " elements")
               : "an object of " + std::to_string(n) + (n == 1 ? " key" : " keys");
  }
  std::string text = json_->dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(json_->type_name()) + " " + text;
}

JsonValue JsonValue::Member(const std::string& key, const json& member) const {
  return JsonValue(*source_, member, path_.empty() ? key : path_ + "." + key);
}

std::vector<JsonValue> JsonValue::Elements() const {
  if (!json_->is_array()) Fail("expected an array, got " + Describe());
  std::vector<JsonValue> out;
  out.reserve(json_->size());
  for (size_t i = 0; i < json_->size(); ++i) {
    out.emplace_back(*source_, (*json_)[i], path_ + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::string JsonValue::String() const {
  if (!json_->is_string()) Fail("expected a string, got " + Describe());
  return json_->get<std::string>();
}

std::string JsonValue::Name() const {
  std::string name = String();
  if (name.empty()) Fail("a name must not be empty");
  return name;
}

bool JsonValue::Bool() const {
  if (!json_->is_boolean()) Fail("expected true or false, got " + Describe());
  return json_->get<bool>();
}

int64_t JsonValue::Integer(int64_t min, int64_t max) const {
  int64_t v = 0;
  if (json_->is_number_unsigned()) {
    if (json_->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Fail("number out of range");
    }
    v = json_->get<int64_t>();
  } else if (json_->is_number_integer()) {
    v = json_->get<int64_t>();
  } else if (json_->is_number_float()) {
    double d = json_->get<double>();
    if (d != std::floor(d) || std::fabs(d) >= 9.2e18) {
      Fail("expected a whole number, got " + json_->dump());
    }
    v = static_cast<int64_t>(d);
  } else {
    Fail("expected a whole number, got " + Describe());
  }
  if (v < min) Fail(std::to_string(v) + " is below the minimum " + std::to_string(min));
  if (v > max) Fail(std::to_string(v) + " is above the maximum " + std::to_string(max));
  return v;
}

int JsonValue::Int(int min, int max) const { return static_cast<int>(Integer(min, max)); }

double JsonValue::Number(double min, double max) const {
  if (!json_->is_number()) Fail("expected a number, got " + Describe());
  double v = json_->get<double>();
  if (v < min) Fail(json_->dump() + " is below the minimum " + ShortNumber(min));
  if (v > max) Fail(json_->dump() + " is above the maximum " + ShortNumber(max));
  return v;
}

std::vector<double> JsonValue::Numbers() const {
  if (!json_->is_array()) Fail("expected an array of numbers, got " + Describe());
  std::vector<double> out;
  out.reserve(json_->size());
  for (size_t i = 0; i < json_->size(); ++i) {
    const json& element = (*json_)[i];
    if (!element.is_number()) {
      // The element's path is built only for the complaint.
      const JsonValue bad(*source_, element, path_ + "[" + std::to_string(i) + "]");
      bad.Fail("expected a number, got " + bad.Describe());
    }
    out.push_back(element.get<double>());
  }
  return out;
}

int64_t JsonValue::Duration(int64_t min, int64_t max) const {
  int64_t v = 0;
  if (json_->is_string()) {
    try {
      v = ParseDuration(json_->get<std::string>());
    } catch (const DurationError& e) {
      Fail(e.what());
    }
  } else if (json_->is_number()) {
    v = Integer();
  } else {
    Fail("expected seconds or a duration such as \"5m\", got " + Describe());
  }
  if (v < min) Fail(FormatDuration(v) + " is below the minimum " + FormatDuration(min));
  if (v > max) Fail(FormatDuration(v) + " is above the maximum " + FormatDuration(max));
  return v;
}

std::map<std::string, std::string> JsonValue::StringMap() const {
  if (!json_->is_object()) Fail("expected an object of strings, got " + Describe());
  std::map<std::string, std::string> out;
  for (const auto& [key, member] : json_->items()) out[key] = Member(key, member).String();
  return out;
}

std::string JsonValue::ScalarText() const {
  if (json_->is_string()) return json_->get<std::string>();
  if (!json_->is_number()) Fail("expected a string or a number, got " + Describe());
  return json_->dump();
}

JsonObject::JsonObject(const JsonValue& value) : value_(value) {
  if (!value.raw().is_object()) value.Fail("expected an object, got " + value.Describe());
}

std::optional<JsonValue> JsonObject::Find(const std::string& key) {
  known_.insert(key);
  auto it = value_.raw().find(key);
  if (it == value_.raw().end()) return std::nullopt;
  return value_.Member(key, *it);
}

JsonValue JsonObject::Require(const std::string& key) {
  if (std::optional<JsonValue> v = Find(key)) return *v;
  std::string problem = "missing required key " + Quoted(key);
  for (const auto& [present, unused] : value_.raw().items()) {
    if (EditDistance(present, key) <= 2) problem += " (found " + Quoted(present) + ")";
  }
  value_.Fail(problem);
}

void JsonObject::RejectUnknownKeys() const {
  for (const auto& [key, member] : value_.raw().items()) {
    if (known_.contains(key)) continue;
    std::string problem = "unknown key " + Quoted(key);
    std::string closest;
    int best = 3;
    for (const std::string& k : known_) {
      int d = EditDistance(k, key);
      if (d < best) best = d, closest = k;
    }
    if (!closest.empty()) {
      problem += "; did you mean " + Quoted(closest) + "?";
    } else {
      std::string list;
      for (const std::string& k : known_) list += (list.empty() ? "" : ", ") + k;
      problem += "; expected one of " + list;
    }
    value_.Member(key, member).Fail(problem);
  }
}

}  // namespace archimedes
