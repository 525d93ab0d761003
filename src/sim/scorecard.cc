#include "sim/scorecard.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "model/text_table.h"
#include "sim/services_only.h"

namespace archimedes {
namespace {

using Format = ScorecardRow::Format;
// Figures this close (relative) are a tie: printed alike, neither is better.
constexpr double kTie = 1e-9;
constexpr std::string_view kArchimedes = "archimedes";

std::optional<double> ValueOf(const nlohmann::json& policy, const ScorecardRow& row) {
  static const nlohmann::json::json_pointer kJobsCounted("/sla/jobs_counted");
  if (row.of_jobs && policy.contains(kJobsCounted) && policy.at(kJobsCounted) == 0) {
    return std::nullopt;
  }
  const nlohmann::json::json_pointer pointer(row.path);
  if (!policy.contains(pointer) || !policy.at(pointer).is_number()) return std::nullopt;
  return policy.at(pointer).get<double>();
}

// A whole number with thousands separated by commas, as the docs write them: 168,553.
std::string Grouped(double v) {
  std::string digits = Fixed(std::abs(v), 0);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return v <= -0.5 ? "-" + digits : digits;
}

std::string Formatted(double v, Format format) {
  switch (format) {
    case Format::kPercent:
      return Percent(v);
    case Format::kWhole:
      return Grouped(v);
    case Format::kDecimal:
      return Fixed(v, 2);
    case Format::kSeconds:
      return Grouped(v) + " s";
    case Format::kRatio:
      return Fixed(v, 2) + "×";
  }
  return Fixed(v, 2);
}

const nlohmann::json& Policies(const nlohmann::json& report) {
  static const nlohmann::json kNone = nlohmann::json::object();
  const auto it = report.find("policies");
  return it == report.end() ? kNone : *it;
}

// A row is shown where some policy has it and, for the GPU row, where the fleet has GPUs at all.
bool Shown(const nlohmann::json& report, const ScorecardRow& row) {
  bool any = false;
  for (const auto& [name, policy] : Policies(report).items()) {
    const std::optional<double> v = ValueOf(policy, row);
    any |= v.has_value() && (row.key != "gpu_allocation" || *v > 0);
  }
  return any;
}

std::string Cell(const nlohmann::json& policy, const ScorecardRow& row) {
  const std::optional<double> v = ValueOf(policy, row);
  return v ? Formatted(*v, row.format) : "–";
}

const ScorecardRow* RowByKey(const std::string& key) {
  for (const ScorecardRow& row : ScorecardRows()) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

// The best policy's figure among those other than archimedes and services-only, for the summary.
std::optional<std::pair<std::string, double>> BestBaseline(const nlohmann::json& report,
                                                           const ScorecardRow& row) {
  std::optional<std::pair<std::string, double>> best;
  for (const auto& [name, policy] : Policies(report).items()) {
    if (name == kServicesOnly || name.starts_with(kArchimedes)) continue;
    const std::optional<double> v = ValueOf(policy, row);
    if (!v) continue;
    if (!best || (row.higher_is_better ? *v > best->second : *v < best->second)) {
      best = std::make_pair(name, *v);
    }
  }
  return best;
}

}  // namespace

const std::vector<ScorecardRow>& ScorecardRows() {
  static const std::vector<ScorecardRow> kRows = {
      {"cpu_utilization", "CPU utilization", "/utilization/cpu", Format::kPercent, true},
      {"cpu_of_usable", "CPU utilization of usable", "/utilization_of_usable/cpu", Format::kPercent,
       true},
      {"cpu_vs_services_only", "CPU utilization vs services-only",
       "/utilization_vs_services_only/cpu", Format::kRatio, true},
      {"gpu_allocation", "GPU allocation", "/allocation_rate/gpu", Format::kPercent, true},
      {"unplaced", "unplaced replica-time", "/unplaced_replica_share", Format::kPercent, false},
      {"sla_services", "SLA services", "/sla/services", Format::kPercent, true},
      {"sla_jobs", "SLA jobs", "/sla/jobs", Format::kPercent, true, true},
      {"core_hours", "batch core-h/day", "/batch/core_hours_per_day", Format::kWhole, true, true},
      {"offered", "batch offered core-h/day", "/batch/offered_core_hours_per_day", Format::kWhole,
       true, true},
      {"in_tolerance", "started in tolerance", "/batch/started_within_tolerance", Format::kPercent,
       true, true},
      {"lateness", "lateness, prio-weighted", "/batch/weighted_lateness_s", Format::kSeconds, false,
       true},
      {"evictions", "evictions /1000 c-days", "/disruption/evictions_per_1000_container_days",
       Format::kDecimal, false},
  };
  return kRows;
}

std::vector<std::string> BestPolicies(const nlohmann::json& report, const ScorecardRow& row) {
  std::vector<std::string> best;
  double best_value = 0;
  for (const auto& [name, policy] : Policies(report).items()) {
    if (name == kServicesOnly) continue;
    const std::optional<double> v = ValueOf(policy, row);
    if (!v) continue;
    if (!best.empty() && std::abs(*v - best_value) <= kTie * std::max(1.0, std::abs(best_value))) {
      best.push_back(name);
    } else if (best.empty() || (row.higher_is_better ? *v > best_value : *v < best_value)) {
      best = {name};
      best_value = *v;
    }
  }
  return best;
}

std::string FormatScorecardMarkdown(const std::string& title, const std::string& preamble,
                                    const std::vector<ScorecardRun>& runs) {
  std::string out = "# " + title + "\n\n" + preamble + "\n\n## Summary\n\n";
  out += "| run | headline | best | archimedes | best baseline |\n|---|---|---|---|---|\n";
  for (const ScorecardRun& run : runs) {
    for (const std::string& key : run.headlines) {
      const ScorecardRow* row = RowByKey(key);
      if (row == nullptr || !Shown(run.report, *row)) continue;
      const nlohmann::json& policies = Policies(run.report);
      const auto ours = policies.find(kArchimedes);
      const auto baseline = BestBaseline(run.report, *row);
      std::string best;
      for (const std::string& name : BestPolicies(run.report, *row)) {
        best += (best.empty() ? "" : ", ") + name;
      }
      out += "| " + run.name + " | " + row->label + " | " + best + " | " +
             (ours == policies.end() ? "–" : Cell(*ours, *row)) + " | " +
             (baseline ? Formatted(baseline->second, row->format) + " (" + baseline->first + ")"
                       : "–") +
             " |\n";
    }
  }
  for (const ScorecardRun& run : runs) {
    out += "\n## " + run.name + "\n\n```sh\n" + run.command + "\n```\n\n";
    const nlohmann::json& policies = Policies(run.report);
    out += "| |";
    std::string rule = "|---|";
    for (const auto& [name, policy] : policies.items()) {
      out += " " + name + " |";
      rule += "---|";
    }
    out += "\n" + rule + "\n";
    for (const ScorecardRow& row : ScorecardRows()) {
      if (!Shown(run.report, row)) continue;
      const bool headline =
          std::find(run.headlines.begin(), run.headlines.end(), row.key) != run.headlines.end();
      const std::vector<std::string> best =
          headline ? BestPolicies(run.report, row) : std::vector<std::string>{};
      out += "| " + (headline ? "**" + row.label + "**" : row.label) + " |";
      for (const auto& [name, policy] : policies.items()) {
        const std::string cell = Cell(policy, row);
        const bool bold = std::find(best.begin(), best.end(), name) != best.end();
        out += " " + (bold ? "**" + cell + "**" : cell) + " |";
      }
      out += "\n";
    }
    out += "\nWall time " + Fixed(run.wall_seconds, 0) + " s.\n";
  }
  return out;
}

nlohmann::json ScorecardJson(const std::vector<ScorecardRun>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const ScorecardRun& run : runs) {
    out.push_back({{"name", run.name},
                   {"command", run.command},
                   {"headlines", run.headlines},
                   {"wall_seconds", run.wall_seconds},
                   {"scenario", run.report.value("scenario", nlohmann::json::object())},
                   {"policies", Policies(run.report)}});
  }
  return {{"runs", out}};
}

}  // namespace archimedes
