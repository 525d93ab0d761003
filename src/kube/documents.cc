#include "kube/documents.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <regex>

#include "kube/fields.h"

namespace archimedes {
namespace {

constexpr int kMaxYamlDepth = 64;

// JSON holds Unicode text only: a YAML scalar of other bytes is refused here, not when the object
// is written out again.
const std::string& Utf8Scalar(const YAML::Node& node, const std::string& source) {
  try {
    (void)nlohmann::json(node.Scalar()).dump();
  } catch (const nlohmann::json::type_error&) {
    throw KubeError(
        source, "line " + std::to_string(node.Mark().line + 1) + ": a value is not valid UTF-8");
  }
  return node.Scalar();
}

nlohmann::json Scalar(const YAML::Node& node, const std::string& source) {
  const std::string& text = Utf8Scalar(node, source);
  if (node.Tag() != "?") return text;  // quoted or explicitly tagged: a string
  if (text.empty() || text == "null" || text == "Null" || text == "NULL" || text == "~") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  int64_t i = 0;
  const char* end = text.data() + text.size();
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  if (auto [p, ec] = std::from_chars(begin, end, i); ec == std::errc() && p == end) return i;
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (text.size() < 64 && std::regex_match(text, kFloat)) {
    double d = 0;
    if (auto [p, ec] = std::from_chars(begin, end, d); ec == std::errc() && p == end) return d;
  }
  return text;
}

// `budget`: how many more values the document may expand to. Without aliases a YAML text holds
// fewer values than it has bytes; aliases of aliases ("billion laughs") expand exponentially and
// are refused when they run past that.
nlohmann::json ToJson(const YAML::Node& node, const std::string& source, int depth,
                      size_t& budget) {
  if (depth > kMaxYamlDepth) {
    throw KubeError(source, "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
  }
  if (budget == 0) {
    throw KubeError(source, "expands to more values than the text holds (aliases of aliases?)");
  }
  --budget;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      return Scalar(node, source);
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const YAML::Node& item : node) a.push_back(ToJson(item, source, depth + 1, budget));
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          throw KubeError(source, "line " + std::to_string(kv.first.Mark().line + 1) +
                                      ": a mapping key must be a plain value");
        }
        o[Utf8Scalar(kv.first, source)] = ToJson(kv.second, source, depth + 1, budget);
      }
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
  size_t budget = text.size() + 1;
  try {
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      nlohmann::json j = ToJson(doc, source, 0, budget);
      if (!j.is_null()) docs.push_back(std::move(j));
    }
  } catch (const YAML::Exception& e) {
    throw KubeError(source,
                    "not valid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
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
