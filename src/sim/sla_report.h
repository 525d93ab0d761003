// Per-contract SLA accounting (`archimedes simulate --sla-report FILE`): for every service and
// every counted job, whether its contract was honoured over the measured period, and when and why
// it was harmed. The totals of DESIGN §5 (services, jobs, all) are these records counted.
#ifndef ARCHIMEDES_SIM_SLA_REPORT_H_
#define ARCHIMEDES_SIM_SLA_REPORT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace archimedes {

// A stretch of time a contract was harmed, for one reason: "hot node" (a replica ran on a node
// above the contention threshold), "unavailable" (replicas missing: not placed, killed, evicted),
// "below minimum availability" (fewer replicas than the PDB-like minimum: the whole service
// counts as harmed), "OOM-killed" (a replica was OOM-killed, by its memory limit or its node's
// memory, within a start-up delay and a tick); for jobs "started late", "expired" (tasks never
// started within the submitter's patience) or "not completed".
struct Breach {
  int64_t start = 0;
  int64_t end = 0;  // exclusive; equals start for an instant (a late start)
  std::string reason;
};

struct ContractRecord {
  std::string kind;  // "service" or "job"
  std::string name;
  bool honoured = true;
  double target = 0;    // services: availability; jobs: start-delay bound in seconds
  double achieved = 0;  // services: unharmed share of replica-time; jobs: worst start delay (s)
  std::vector<Breach> breaches;  // at most kMaxBreaches, earliest first
};

inline constexpr size_t kMaxBreaches = 100;

// Extends the last breach when it has the same reason and ends at `start`, else appends one
// (up to kMaxBreaches).
void AddBreach(std::vector<Breach>& breaches, int64_t start, int64_t end, const char* reason);

// {"policies": {"<name>": {"services": {"honoured": n, "broken": n}, "jobs": {...},
//   "contracts": [{"kind", "name", "honoured", "target", "achieved", "breaches": [...]}]}}}
nlohmann::json SlaReportJson(
    const std::vector<std::pair<std::string, std::vector<ContractRecord>>>& policies);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_SLA_REPORT_H_
