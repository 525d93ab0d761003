// Reading Kubernetes JSON as Go does. Objects (Pod, Node: json tags, camelCase) are read with the
// API machinery's case-sensitive keys; the scheduler extender's envelopes (ExtenderArgs, ...: no
// json tags, PascalCase) with encoding/json's rule: the exact key first, else the first key equal
// under Unicode case folding (ASCII here). Unknown keys are ignored, as Kubernetes clients ignore
// the fields of newer servers; `null` reads as absent. Every accessor names the JSON path of a
// value of the wrong type in its KubeError.
#ifndef ARCHIMEDES_KUBE_FIELDS_H_
#define ARCHIMEDES_KUBE_FIELDS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/kube_error.h"

namespace archimedes {

// A value and its path, for errors.
class Field {
 public:
  Field(const nlohmann::json* value, std::string path) : value_(value), path_(std::move(path)) {}

  bool present() const { return value_ != nullptr && !value_->is_null(); }
  const std::string& path() const { return path_; }
  const nlohmann::json& json() const { return *value_; }

  // Members: case-sensitive (`Get`) or as encoding/json matches an untagged field (`GetFolded`).
  // A member of an absent value is absent; of a non-object, an error.
  Field Get(std::string_view key) const;
  Field GetFolded(std::string_view key) const;
  // The elements of an array (none when absent).
  std::vector<Field> Items() const;

  // Typed reads; an absent value gives the fallback.
  std::string String(const std::string& fallback = "") const;
  int64_t Int(int64_t fallback = 0) const;
  bool Bool(bool fallback = false) const;
  std::map<std::string, std::string> StringMap() const;
  std::vector<std::string> Strings() const;

  [[noreturn]] void Fail(const std::string& problem) const;

 private:
  void Expect(bool ok, const char* what) const;
  const nlohmann::json* value_;
  std::string path_;
};

inline constexpr size_t kMaxKubeJsonDepth = 64;

// Parses JSON text (at most kMaxKubeJsonDepth levels deep); throws KubeError naming `source` and
// the offset of a syntax error.
nlohmann::json ParseJson(const std::string& source, std::string_view text);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_FIELDS_H_
