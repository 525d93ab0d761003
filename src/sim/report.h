// Side-by-side reports of simulation runs: a table for people, JSON for tools (the shape of
// issue 2: allocation_rate, utilization, fragmentation_rate, hot_node_time, sla, batch,
// disruption, latency_us per policy; rates are fractions in [0, 1]; plus issue 4's
// unplaced_replica_share and peak_sum {predicted, observed} × {cpu millicores, memory bytes}).
#ifndef ARCHIMEDES_SIM_REPORT_H_
#define ARCHIMEDES_SIM_REPORT_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/workload.h"
#include "sim/metrics.h"

namespace archimedes {

struct PolicyResult {
  std::string policy;
  Metrics metrics;
};

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// What was simulated, for the report header and the "scenario" object of the JSON.
nlohmann::json DescribeScenario(const Scenario& scenario, uint64_t seed, int64_t warmup_s);

// One row of the side-by-side table: its label and each policy's value as printed. The text
// table and the HTML report (sim/html_report.h) both print these, so they say the same.
struct SummaryRow {
  std::string label;
  std::function<std::string(const Metrics&)> value;
};
std::vector<SummaryRow> SummaryRows(const std::vector<PolicyResult>& results);

// "scenario: NAME" and a line of what it holds (nodes, services, jobs, days, warm-up), then the
// jobs rejected, if any.
std::string FormatScenarioHeader(const nlohmann::json& scenario);

std::string FormatTable(const nlohmann::json& scenario, const std::vector<PolicyResult>& results);
nlohmann::json ToJson(const nlohmann::json& scenario, const std::vector<PolicyResult>& results);

// The JSON report's "report" object, which says what the document is: its format and format
// version (raised on any change a reader must know of), the tool that wrote it (version and
// commit), and the unit of every figure that has one, keyed by its path with `*` for a policy's
// name or a dimension.
inline constexpr int kReportFormatVersion = 1;
nlohmann::json ReportFormatJson(const std::string& tool_version, const std::string& tool_commit);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_REPORT_H_
