#include "sim/sla_report.h"

namespace archimedes {

void AddBreach(std::vector<Breach>& breaches, int64_t start, int64_t end, const char* reason) {
  if (!breaches.empty() && breaches.back().end == start && breaches.back().reason == reason) {
    breaches.back().end = end;
    return;
  }
  if (breaches.size() < kMaxBreaches) breaches.push_back({start, end, reason});
}

nlohmann::json SlaReportJson(
    const std::vector<std::pair<std::string, std::vector<ContractRecord>>>& policies) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [policy, records] : policies) {
    nlohmann::json contracts = nlohmann::json::array();
    int honoured[2] = {0, 0}, broken[2] = {0, 0};
    for (const ContractRecord& r : records) {
      const int k = r.kind == "service" ? 0 : 1;
      ++(r.honoured ? honoured[k] : broken[k]);
      nlohmann::json breaches = nlohmann::json::array();
      for (const Breach& b : r.breaches) {
        breaches.push_back({{"start_s", b.start}, {"end_s", b.end}, {"reason", b.reason}});
      }
      contracts.push_back({{"kind", r.kind},
                           {"name", r.name},
                           {"honoured", r.honoured},
                           {"target", r.target},
                           {"achieved", r.achieved},
                           {"breaches", breaches}});
    }
    out[policy] = {{"services", {{"honoured", honoured[0]}, {"broken", broken[0]}}},
                   {"jobs", {{"honoured", honoured[1]}, {"broken", broken[1]}}},
                   {"contracts", contracts}};
  }
  return {{"policies", out}};
}

}  // namespace archimedes
