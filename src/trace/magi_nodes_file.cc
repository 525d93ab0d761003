#include "trace/magi_nodes_file.h"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "model/host_port.h"
#include "trace/json_reader.h"

namespace archimedes {
namespace {

WatchedNode ReadNode(const JsonValue& value) {
  JsonObject object(value);
  WatchedNode node;
  node.name = object.Require("name").Name();
  const JsonValue address = object.Require("address");
  node.address = address.String();
  if (const std::string problem = HostPortProblem(node.address); !problem.empty()) {
    address.Fail(problem);
  }
  if (std::optional<JsonValue> pod = object.Find("pod")) node.pod = pod->String();
  if (std::optional<JsonValue> url = object.Find("health_url")) {
    node.health_url = url->String();
    if (node.health_url.rfind("http://", 0) != 0) {
      url->Fail("\"" + node.health_url + "\" is not an http:// URL");
    }
  }
  object.RejectUnknownKeys();
  return node;
}

}  // namespace

std::vector<WatchedNode> ReadMagiNodesFile(const std::string& path) {
  const nlohmann::json doc = ReadJsonFile(path);
  JsonObject top(JsonValue(path, doc));
  const JsonValue list = top.Require("nodes");
  top.RejectUnknownKeys();
  std::vector<WatchedNode> nodes;
  std::map<std::string, size_t> index_of_name;
  for (const JsonValue& element : list.Elements()) {
    WatchedNode node = ReadNode(element);
    const auto [first, inserted] = index_of_name.emplace(node.name, nodes.size());
    if (!inserted) {
      element.Fail("node \"" + node.name + "\" is listed twice (first as nodes[" +
                   std::to_string(first->second) + "])");
    }
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) list.Fail("lists no nodes");
  return nodes;
}

}  // namespace archimedes
