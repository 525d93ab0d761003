#include "sim/shrink.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "engine/policy.h"
#include "model/text_table.h"
#include "sim/peak_load.h"
#include "sim/report.h"

namespace archimedes {
namespace {

// Indices of the nodes ShrinkFleet keeps, in fleet order.
std::vector<int> KeptNodes(const std::vector<Node>& fleet, int nodes) {
  const int total = static_cast<int>(fleet.size());
  if (nodes <= 0 || nodes > total) {
    throw std::invalid_argument("cannot cut a fleet of " + std::to_string(total) + " nodes to " +
                                std::to_string(nodes));
  }
  std::vector<std::vector<int>> types;  // members of each type, in order of first appearance
  for (int n = 0; n < total; ++n) {
    auto same = [&](const std::vector<int>& t) {
      return fleet[t[0]].capacity == fleet[n].capacity &&
             fleet[t[0]].allocatable == fleet[n].allocatable;
    };
    auto it = std::find_if(types.begin(), types.end(), same);
    if (it == types.end()) {
      types.push_back({n});
    } else {
      it->push_back(n);
    }
  }
  // Largest remainder: floor of each exact share, then one more for the largest remainders.
  std::vector<int> keep(types.size());
  std::vector<std::pair<int64_t, size_t>> remainders;  // (−remainder × total, type)
  int assigned = 0;
  for (size_t t = 0; t < types.size(); ++t) {
    const int64_t exact = static_cast<int64_t>(nodes) * static_cast<int64_t>(types[t].size());
    keep[t] = static_cast<int>(exact / total);
    assigned += keep[t];
    remainders.push_back({-(exact % total), t});
  }
  std::stable_sort(remainders.begin(), remainders.end());
  for (size_t i = 0; assigned < nodes; ++i, ++assigned) ++keep[remainders[i].second];
  std::vector<int> kept;
  for (size_t t = 0; t < types.size(); ++t) {
    const int64_t size = static_cast<int64_t>(types[t].size());
    for (int64_t i = 0; i < keep[t]; ++i) {
      kept.push_back(types[t][(2 * i + 1) * size / (int64_t{2} * keep[t])]);  // evenly spaced
    }
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// Whether the kept nodes' allocatable cpu and memory can hold `need` at all.
bool RequestsFit(const std::vector<Node>& fleet, const std::vector<int>& kept,
                 const Resources& need) {
  Resources allocatable;
  for (int n : kept) allocatable += fleet[n].allocatable;
  return need.cpu() <= allocatable.cpu() && need.memory() <= allocatable.memory();
}

}  // namespace

Scenario ShrinkFleet(const Scenario& scenario, int nodes) {
  const std::vector<int> kept = KeptNodes(scenario.nodes, nodes);
  Scenario out = scenario;
  out.nodes.clear();
  std::unordered_set<std::string> dropped;
  for (const Node& n : scenario.nodes) dropped.insert(n.name);
  for (int n : kept) {
    out.nodes.push_back(scenario.nodes[n]);
    dropped.erase(scenario.nodes[n].name);
  }
  std::erase_if(out.workload.node_events, [&](const NodeEvent& e) {
    return e.kind != NodeEvent::Kind::kAdd && dropped.count(e.node) > 0;
  });
  return out;
}

bool HostsServices(const Metrics& m) {
  return m.unplaced_replica_share == 0 && m.hot_node_time == 0 && m.sla_services == 1;
}

ShrinkResult FindSmallestFleet(const Scenario& scenario, const Policy& policy,
                               const ShrinkOptions& options, const Metrics* full_run) {
  if (options.profiles == nullptr) throw std::invalid_argument("shrink search without profiles");
  const int total = static_cast<int>(scenario.nodes.size());
  ShrinkResult result{.policy = policy.name, .full_nodes = total};
  auto record = [&](ShrinkStep step) {
    if (options.on_step) options.on_step(policy.name, step);
    result.steps.push_back(step);
    return result.steps.back();
  };
  auto simulate = [&](int nodes) {
    const Scenario cut = ShrinkFleet(scenario, nodes);
    const Metrics m = SimulateMeasuringPeaks(cut, policy, options.sim, *options.profiles);
    return record({.nodes = nodes, .hosts = HostsServices(m), .simulated = true, .metrics = m});
  };

  const ShrinkStep full = full_run != nullptr ? record({.nodes = total,
                                                        .hosts = HostsServices(*full_run),
                                                        .simulated = true,
                                                        .metrics = *full_run})
                                              : simulate(total);
  result.at_needed = full.metrics;
  if (!full.hosts) return result;
  result.nodes_needed = total;

  // Sizes whose allocatable cannot hold the requests desired when measuring starts fail unseen.
  Resources need;
  DesiredReplicas desired(scenario.workload);
  for (size_t s = 0; s < scenario.workload.services.size(); ++s) {
    const int replicas = desired.At(static_cast<int32_t>(s), options.sim.warmup_s);
    for (int r = 0; r < replicas; ++r) need += scenario.workload.services[s].requests;
  }
  int lo = 0;
  for (int k = total - 1; k > 0; --k) {
    if (!RequestsFit(scenario.nodes, KeptNodes(scenario.nodes, k), need)) {
      lo = k;
      record({.nodes = k, .hosts = false, .simulated = false});
      break;
    }
  }
  int hi = total;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    const ShrinkStep step = simulate(mid);
    if (step.hosts) {
      hi = mid;
      result.nodes_needed = mid;
      result.at_needed = step.metrics;
    } else {
      lo = mid;
    }
  }
  return result;
}

std::string FormatShrinkTable(const std::vector<ShrinkResult>& results) {
  struct Row {
    std::string label;
    std::function<std::string(const ShrinkResult&)> value;
  };
  const std::vector<Row> rows = {
      {"nodes needed",
       [](const ShrinkResult& r) {
         return r.nodes_needed < 0 ? "> " + std::to_string(r.full_nodes)
                                   : std::to_string(r.nodes_needed);
       }},
      {"  of the full fleet",
       [](const ShrinkResult& r) {
         return r.nodes_needed < 0 ? std::string("-")
                                   : Percent(static_cast<double>(r.nodes_needed) / r.full_nodes);
       }},
      {"sizes simulated",
       [](const ShrinkResult& r) {
         return std::to_string(std::count_if(r.steps.begin(), r.steps.end(),
                                             [](const ShrinkStep& s) { return s.simulated; }));
       }},
      {"hot node-time", [](const ShrinkResult& r) { return Percent(r.at_needed.hot_node_time); }},
      {"unplaced replica-time",
       [](const ShrinkResult& r) { return Percent(r.at_needed.unplaced_replica_share); }},
      {"SLA services", [](const ShrinkResult& r) { return Percent(r.at_needed.sla_services); }},
      {"allocation cpu",
       [](const ShrinkResult& r) { return Percent(r.at_needed.allocation_rate[0]); }},
      {"utilization cpu",
       [](const ShrinkResult& r) { return Percent(r.at_needed.utilization[0]); }},
      {"predicted peaks cpu",
       [](const ShrinkResult& r) {
         return Fixed(r.at_needed.predicted_peak_sum[0] / 1000.0, 0) + " cores";
       }},
      {"predicted peaks memory",
       [](const ShrinkResult& r) {
         return Fixed(r.at_needed.predicted_peak_sum[1] / kGiB, 0) + " GiB";
       }},
  };
  constexpr int kLabelWidth = 26, kColumnWidth = 15;
  std::vector<TextTable::Column> columns = {
      {.width = kLabelWidth, .align = TextTable::Align::kLeft}};
  columns.resize(results.size() + 1, {.width = kColumnWidth, .align = TextTable::Align::kRight});
  TextTable table(std::move(columns));
  std::vector<std::string> header = {""};
  for (const ShrinkResult& r : results) header.push_back(r.policy);
  table.AddRow(std::move(header));
  for (const Row& row : rows) {
    std::vector<std::string> cells = {row.label};
    for (const ShrinkResult& r : results) cells.push_back(row.value(r));
    table.AddRow(std::move(cells));
  }
  return "\nshrink: fewest nodes (cut from the same fleet, node types kept proportional) on which "
         "every service replica runs, no node is hot and every service SLA holds; figures at that "
         "size\n\n" +
         table.Format();
}

nlohmann::json ShrinkToJson(const std::vector<ShrinkResult>& results) {
  nlohmann::json out = nlohmann::json::object();
  for (const ShrinkResult& r : results) {
    nlohmann::json steps = nlohmann::json::array();
    for (const ShrinkStep& s : r.steps) {
      nlohmann::json step = {{"nodes", s.nodes}, {"hosts", s.hosts}, {"simulated", s.simulated}};
      if (s.simulated) {
        step["hot_node_time"] = s.metrics.hot_node_time;
        step["unplaced_replica_share"] = s.metrics.unplaced_replica_share;
        step["sla_services"] = s.metrics.sla_services;
      }
      steps.push_back(std::move(step));
    }
    const Metrics& m = r.at_needed;
    out[r.policy] = {
        {"full_nodes", r.full_nodes},
        {"nodes_needed",
         r.nodes_needed < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.nodes_needed)},
        {"at_needed",
         {{"nodes", r.nodes_needed < 0 ? r.full_nodes : r.nodes_needed},
          {"hot_node_time", m.hot_node_time},
          {"unplaced_replica_share", m.unplaced_replica_share},
          {"sla_services", m.sla_services},
          {"allocation_rate_cpu", m.allocation_rate[0]},
          {"utilization_cpu", m.utilization[0]},
          {"peak_sum",
           {{"predicted", {{"cpu", m.predicted_peak_sum[0]}, {"memory", m.predicted_peak_sum[1]}}},
            {"observed", {{"cpu", m.observed_peak_sum[0]}, {"memory", m.observed_peak_sum[1]}}}}}}},
        {"steps", steps}};
  }
  return out;
}

}  // namespace archimedes
