// YAML (kube/yaml.h) as the project reads it: the tree itself, Kubernetes documents (manifests,
// POST /scheduler/nodes) and `serve`'s settings file. Broken input ends in a YamlError,
// KubeError or ConfigError and nothing else. What is read stays within kube/yaml.h's bounds: the
// documents weigh a few times the text at most (aliases included), and every document converts
// to JSON that dumps (its strings are UTF-8).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kube/documents.h"
#include "kube/kube_error.h"
#include "kube/yaml.h"
#include "server/config.h"

namespace {

using archimedes::YamlNode;

// The weight `node` says it has, recomputed.
size_t Weigh(const YamlNode& node) {
  size_t weight = 1 + node.text.size();
  for (const YamlNode* item : node.items) weight += Weigh(*item);
  for (const archimedes::YamlEntry& entry : node.entries) {
    weight += 1 + entry.key.size() + Weigh(*entry.value);
  }
  if (weight != node.weight) std::abort();
  return weight;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    size_t weight = 0;
    const archimedes::YamlDocuments docs = archimedes::ParseYaml("input", text);
    for (size_t i = 0; i < docs.size(); ++i) weight += Weigh(docs[i]);
    if (weight > 4 * size + 16) std::abort();
  } catch (const archimedes::YamlError&) {
  }
  try {
    for (const nlohmann::json& doc : archimedes::ParseDocuments("input", text)) (void)doc.dump();
  } catch (const archimedes::KubeError&) {
  }
  try {
    archimedes::ServerConfig config;
    archimedes::ReadConfigText("input", text, config);
  } catch (const archimedes::ConfigError&) {
  }
  return 0;
}
