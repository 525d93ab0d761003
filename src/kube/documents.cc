#include "kube/documents.h"

#include <charconv>

#include "kube/fields.h"
#include "kube/yaml.h"

namespace archimedes {
namespace {

// YAML 1.1's float as sigs.k8s.io/yaml resolves it (integers included):
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsYamlNumber(std::string_view text) {
  size_t i = 0;
  const auto sign = [&] {
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  };
  const auto digits = [&] {
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  sign();
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  } else {
    if (!digits()) return false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    sign();
    if (!digits()) return false;
  }
  return i == text.size();
}

nlohmann::json Scalar(const YamlNode& node) {
  const std::string& text = node.text;
  if (!node.plain) return text;  // quoted or explicitly tagged: a string
  if (node.IsNull()) return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (!IsYamlNumber(text)) return text;
  // from_chars reads no '+'.
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(begin, end, i); ec == std::errc() && p == end) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(begin, end, d); ec == std::errc() && p == end) return d;
  return text;  // out of a double's range
}

// ParseYaml bounds the nesting and the expanded size, so neither recursion nor output can run away.
nlohmann::json ToJson(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kScalar:
      return Scalar(node);
    case YamlNode::Kind::kSequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const YamlNode* item : node.items) a.push_back(ToJson(*item));
      return a;
    }
    case YamlNode::Kind::kMapping: {
      nlohmann::json o = nlohmann::json::object();
      for (const YamlEntry& entry : node.entries) o[entry.key] = ToJson(*entry.value);
      return o;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<nlohmann::json> ParseDocuments(const std::string& source, std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  if (text[first] == '{' || text[first] == '[') return {ParseJson(source, text)};
  std::vector<nlohmann::json> docs;
  try {
    const YamlDocuments yaml = ParseYaml(source, text);
    for (size_t i = 0; i < yaml.size(); ++i) {
      nlohmann::json j = ToJson(yaml[i]);
      if (!j.is_null()) docs.push_back(std::move(j));
    }
  } catch (const YamlError& e) {
    throw KubeError(source, "line " + std::to_string(e.line()) + ": " + e.problem());
  }
  return docs;
}

std::vector<nlohmann::json> ExpandLists(std::vector<nlohmann::json> docs) {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& doc : docs) {
    const bool list = doc.is_object() && doc.contains("items") && doc["items"].is_array() &&
                      doc.contains("kind") && doc["kind"].is_string() &&
                      doc["kind"].get<std::string>().ends_with("List");
    if (!list) {
      out.push_back(std::move(doc));
      continue;
    }
    for (nlohmann::json& item : doc["items"]) out.push_back(std::move(item));
  }
  return out;
}

}  // namespace archimedes
