// Reading the files tests compare against: any file's text, the shared Kubernetes fixtures
// (../shared/k8s-fixtures/, support/shared_data.h) and the API server wire data of
// tests/kube/api/.
#ifndef ARCHIMEDES_TESTS_SUPPORT_FIXTURE_FILES_H_
#define ARCHIMEDES_TESTS_SUPPORT_FIXTURE_FILES_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/shared_data.h"

namespace archimedes::testing {

// The whole file, bytes as they are ("" when it cannot be read).
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json KubeFixture(const std::string& name) {
  return nlohmann::json::parse(ReadText(SharedPath("k8s-fixtures/" + name)));
}

// A file of tests/kube/api/: JSON, or the first line of a .jsonl (one watch event).
inline nlohmann::json KubeRecording(const std::string& name) {
  const std::string text = ReadText(std::string(ARCHIMEDES_SOURCE_DIR) + "/tests/kube/api/" + name);
  return nlohmann::json::parse(name.ends_with(".jsonl") ? text.substr(0, text.find('\n')) : text);
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_FIXTURE_FILES_H_
