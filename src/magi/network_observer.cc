#include "magi/network_observer.h"

#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <utility>

namespace archimedes::magi {
namespace {

std::set<std::string> ReadBlockedNodes(const std::string& path) {
  std::set<std::string> blocked;
  if (path.empty()) return blocked;
  std::ifstream in(path);  // an absent file blocks nothing
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) blocked.insert(line);
  }
  return blocked;
}

}  // namespace

NetworkObserver::NetworkObserver(KvStore& store, std::string key_prefix,
                                 std::chrono::milliseconds probe_timeout, std::string blocked_file)
    : store_(store),
      heartbeats_prefix_(std::move(key_prefix) + "heartbeats/"),
      probe_timeout_(probe_timeout),
      blocked_file_(std::move(blocked_file)) {
  if (probe_timeout_.count() <= 0) throw std::invalid_argument("probe timeout must be positive");
}

std::vector<MissedProbe> NetworkObserver::ProbeAll(const std::vector<NodeTarget>& nodes,
                                                   int64_t /*now*/) {
  const std::set<std::string> blocked = ReadBlockedNodes(blocked_file_);
  std::vector<std::future<ProbeResult>> probes;
  probes.reserve(nodes.size());
  for (const NodeTarget& n : nodes) {
    if (blocked.count(n.name)) {
      std::promise<ProbeResult> p;
      p.set_value(ProbeResult{false, false, "blocked by " + blocked_file_});
      probes.push_back(p.get_future());
    } else {
      probes.push_back(std::async(std::launch::async, ProbeNode, n, probe_timeout_));
    }
  }
  std::vector<MissedProbe> missed;
  for (size_t i = 0; i < nodes.size(); ++i) {
    ProbeResult r = probes[i].get();
    const bool probed_http = !nodes[i].health_url.empty();
    if (!r.tcp_ok || (probed_http && !r.http_ok)) missed.push_back({i, std::move(r)});
  }
  return missed;
}

std::vector<std::optional<int64_t>> NetworkObserver::HeartbeatAges(
    const std::vector<std::string>& nodes, int64_t now) {
  std::vector<std::optional<int64_t>> ages(nodes.size());
  if (nodes.empty()) return ages;
  std::map<std::string, int64_t> beat_at;
  for (const KeyValue& kv : store_.GetPrefix(heartbeats_prefix_)) {
    nlohmann::json hb = nlohmann::json::parse(kv.value, nullptr, false);
    if (hb.is_discarded() || !hb.contains("at") || !hb["at"].is_number_integer()) continue;
    beat_at[kv.key.substr(heartbeats_prefix_.size())] = hb["at"].get<int64_t>();
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (auto it = beat_at.find(nodes[i]); it != beat_at.end()) ages[i] = now - it->second;
  }
  return ages;
}

}  // namespace archimedes::magi
