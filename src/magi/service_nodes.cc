#include "magi/service_nodes.h"

#include <httplib.h>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace archimedes::magi {
namespace {

std::vector<NodeTarget> ParseNodeList(const std::string& server, const std::string& body) {
  const std::string where = server + "/v1/nodes";
  const nlohmann::json list = nlohmann::json::parse(body, nullptr, false);
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    throw std::runtime_error(where + ": not a NodeList: " + body.substr(0, 200));
  }
  std::vector<NodeTarget> nodes;
  try {
    for (const nlohmann::json& item : list["items"]) {
      const nlohmann::json spec = item.value("spec", nlohmann::json::object());
      const std::string address = spec.value("address", std::string());
      const std::string name =
          item.value("metadata", nlohmann::json::object()).value("name", std::string());
      if (address.empty() || name.empty()) continue;
      const std::string probe = spec.value("probe", std::string("healthz"));
      if (probe != "healthz" && probe != "tcp") {
        throw std::runtime_error(where + ": node " + name + ": probe \"" + probe +
                                 "\" is not healthz or tcp");
      }
      nodes.push_back({name, spec.value("pod", std::string()), address,
                       probe == "tcp" ? "" : "http://" + address + "/healthz"});
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(where + ": a node is not as serve writes it: " + e.what());
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeTarget& a, const NodeTarget& b) { return a.name < b.name; });
  return nodes;
}

}  // namespace

std::vector<NodeTarget> ReadServiceNodes(const std::string& servers,
                                         std::chrono::milliseconds timeout) {
  std::string failures;
  size_t start = 0;
  while (start <= servers.size()) {
    size_t end = servers.find(',', start);
    if (end == std::string::npos) end = servers.size();
    std::string server = servers.substr(start, end - start);
    start = end + 1;
    while (!server.empty() && server.back() == '/') server.pop_back();
    if (server.empty()) continue;
    httplib::Client client(server);
    if (!client.is_valid()) {
      failures += "; " + server + ": not an http://HOST:PORT URL";
      continue;
    }
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
    client.set_connection_timeout(micros / 1000000, micros % 1000000);
    client.set_read_timeout(micros / 1000000, micros % 1000000);
    const httplib::Result r = client.Get("/v1/nodes");
    if (!r) {
      failures += "; " + server + ": " + httplib::to_string(r.error());
    } else if (r->status != 200) {
      failures +=
          "; " + server + ": status " + std::to_string(r->status) + " " + r->body.substr(0, 200);
    } else {
      return ParseNodeList(server, r->body);
    }
  }
  if (failures.empty()) throw std::runtime_error("no server given to read the nodes from");
  throw std::runtime_error("cannot read the nodes: " + failures.substr(2));
}

}  // namespace archimedes::magi
