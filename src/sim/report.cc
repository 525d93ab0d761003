#include "sim/report.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "model/text_table.h"
#include "sim/services_only.h"

namespace archimedes {

nlohmann::json DescribeScenario(const Scenario& scenario, uint64_t seed, int64_t warmup_s) {
  int64_t replicas = 0, tasks = 0;
  double cpu_capacity = 0, cpu_requested_by_services = 0;
  for (const Node& n : scenario.nodes) cpu_capacity += static_cast<double>(n.allocatable.cpu());
  for (const Service& s : scenario.workload.services) {
    replicas += s.replicas;
    if (s.start_time <= 0) {
      cpu_requested_by_services += static_cast<double>(s.requests.cpu()) * s.replicas;
    }
  }
  int serverless = 0;
  for (const BatchJob& j : scenario.workload.jobs) {
    tasks += j.tasks;
    serverless += j.type == JobType::kServerless;
  }
  return {{"name", scenario.name},
          {"nodes", scenario.nodes.size()},
          {"services", scenario.workload.services.size()},
          {"service_replicas", replicas},
          {"service_cpu_request_share_at_start",
           cpu_capacity > 0 ? cpu_requested_by_services / cpu_capacity : 0.0},
          {"jobs", scenario.workload.jobs.size()},
          {"serverless_jobs", serverless},
          {"tasks", tasks},
          {"node_events", scenario.workload.node_events.size()},
          {"days", static_cast<double>(scenario.duration_s) / kSecondsPerDay},
          {"warmup_s", warmup_s},
          {"seed", seed}};
}

namespace {

// The services-only run's CPU utilisation, where the comparison has one (sim/services_only.h).
std::optional<double> ServicesOnlyCpu(const std::vector<PolicyResult>& results) {
  for (const PolicyResult& r : results) {
    if (r.policy == kServicesOnly && r.metrics.utilization[0] > 0) {
      return r.metrics.utilization[0];
    }
  }
  return std::nullopt;
}

// A batch row's cell, or "-" where no job was measured (a run without batch, such as
// services-only): its waits and shares would be vacuous.
std::function<std::string(const Metrics&)> WithJobs(
    std::function<std::string(const Metrics&)> value) {
  return [value = std::move(value)](const Metrics& m) {
    return m.jobs_counted > 0 ? value(m) : std::string("-");
  };
}

// A planner latency in ms, or "-" for a policy that made no such call.
std::function<std::string(const Metrics&)> PlannerMs(int64_t Metrics::*calls,
                                                     double Metrics::*microseconds) {
  return [calls, microseconds](const Metrics& m) {
    return m.*calls > 0 ? Fixed(m.*microseconds / 1000.0, 1) + " ms" : std::string("-");
  };
}

}  // namespace

std::vector<SummaryRow> SummaryRows(const std::vector<PolicyResult>& results) {
  const double base_cpu = results.empty() ? 0 : results.front().metrics.utilization[0];
  std::vector<SummaryRow> rows = {
      {"allocation cpu", [](const Metrics& m) { return Percent(m.allocation_rate[0]); }},
      {"allocation memory", [](const Metrics& m) { return Percent(m.allocation_rate[1]); }},
      {"utilization cpu", [](const Metrics& m) { return Percent(m.utilization[0]); }},
      {"  of usable", [](const Metrics& m) { return Percent(m.cpu_utilization_of_usable); }},
      {"  vs first policy",
       [base_cpu](const Metrics& m) {
         return base_cpu > 0 ? Fixed(m.utilization[0] / base_cpu, 2) + "x" : std::string("-");
       }},
  };
  // Utilisation with co-location ÷ before it, where the comparison has the services-only run.
  if (const std::optional<double> before = ServicesOnlyCpu(results)) {
    rows.push_back({"  vs services-only", [before = *before](const Metrics& m) {
                      return Fixed(m.utilization[0] / before, 2) + "x";
                    }});
  }
  rows.insert(
      rows.end(),
      {
          {"utilization memory", [](const Metrics& m) { return Percent(m.utilization[1]); }},
          {"fragmentation rate", [](const Metrics& m) { return Percent(m.fragmentation_rate); }},
          {"hot node-time", [](const Metrics& m) { return Percent(m.hot_node_time); }},
          {"unplaced replica-time",
           [](const Metrics& m) { return Percent(m.unplaced_replica_share); }},
          {"predicted peaks cpu",
           [](const Metrics& m) { return Fixed(m.predicted_peak_sum[0] / 1000.0, 0) + " cores"; }},
          {"  observed",
           [](const Metrics& m) { return Fixed(m.observed_peak_sum[0] / 1000.0, 0) + " cores"; }},
          {"  unplaced replicas",
           [](const Metrics& m) { return Fixed(m.unplaced_peak_sum[0] / 1000.0, 0) + " cores"; }},
          {"predicted peaks memory",
           [](const Metrics& m) { return Fixed(m.predicted_peak_sum[1] / kGiB, 0) + " GiB"; }},
          {"  observed",
           [](const Metrics& m) { return Fixed(m.observed_peak_sum[1] / kGiB, 0) + " GiB"; }},
          {"  unplaced replicas",
           [](const Metrics& m) { return Fixed(m.unplaced_peak_sum[1] / kGiB, 0) + " GiB"; }},
          {"SLA services", [](const Metrics& m) { return Percent(m.sla_services); }},
          {"SLA jobs", WithJobs([](const Metrics& m) { return Percent(m.sla_jobs); })},
          {"SLA all", [](const Metrics& m) { return Percent(m.sla_all); }},
          {"batch core-h/day",
           [](const Metrics& m) { return Fixed(m.batch_core_hours_per_day, 0); }},
          {"  offered core-h/day",
           [](const Metrics& m) { return Fixed(m.offered_core_hours_per_day, 0); }},
          {"batch wait p50",
           WithJobs([](const Metrics& m) { return Fixed(m.wait_p50_s, 0) + " s"; })},
          {"batch wait p99",
           WithJobs([](const Metrics& m) { return Fixed(m.wait_p99_s, 0) + " s"; })},
          {"wait/tolerance p50",
           WithJobs([](const Metrics& m) { return Fixed(m.wait_tolerance_share_p50, 2); })},
          {"wait/tolerance p99",
           WithJobs([](const Metrics& m) { return Fixed(m.wait_tolerance_share_p99, 2); })},
          {"started in tolerance",
           WithJobs([](const Metrics& m) { return Percent(m.started_within_tolerance); })},
          {"  serverless", WithJobs([](const Metrics& m) {
             return Percent(m.started_within_tolerance_by_type[0]);
           })},
          {"  offline", WithJobs([](const Metrics& m) {
             return Percent(m.started_within_tolerance_by_type[1]);
           })},
          {"lateness, prio-weighted",
           WithJobs([](const Metrics& m) { return Fixed(m.weighted_lateness_s, 0) + " s"; })},
          {"tasks finished", [](const Metrics& m) { return std::to_string(m.tasks_finished); }},
          {"tasks failed (expired)",
           [](const Metrics& m) { return std::to_string(m.tasks_failed); }},
          {"tasks reported late early",
           [](const Metrics& m) { return std::to_string(m.tasks_reported_late); }},
          {"batch core-h/day lost",
           [](const Metrics& m) { return Fixed(m.lost_core_hours_per_day, 0); }},
          {"evictions /1000 c-days",
           [](const Metrics& m) { return Fixed(m.evictions_per_1000_container_days, 2); }},
          {"migrations /1000 c-days",
           [](const Metrics& m) { return Fixed(m.migrations_per_1000_container_days, 2); }},
          {"OOM kills", [](const Metrics& m) { return std::to_string(m.oom_kills); }},
          {"health migrations",
           [](const Metrics& m) { return std::to_string(m.health_migrations); }},
          {"health scale-outs",
           [](const Metrics& m) { return std::to_string(m.health_scale_outs); }},
          {"latency p50", [](const Metrics& m) { return Fixed(m.latency_p50_us, 1) + " us"; }},
          {"latency p99", [](const Metrics& m) { return Fixed(m.latency_p99_us, 1) + " us"; }},
          {"planner call p50", PlannerMs(&Metrics::plans, &Metrics::plan_latency_p50_us)},
          {"planner call p99", PlannerMs(&Metrics::plans, &Metrics::plan_latency_p99_us)},
          {"  full re-plan p50", PlannerMs(&Metrics::replans, &Metrics::replan_latency_p50_us)},
          {"  full re-plan p99", PlannerMs(&Metrics::replans, &Metrics::replan_latency_p99_us)},
          {"wall time", [](const Metrics& m) { return Fixed(m.wall_seconds, 1) + " s"; }},
      });
  // A fleet with GPUs: how much of them the requests hold (1 − the GPUs left unallocated).
  const bool gpus = std::any_of(results.begin(), results.end(), [](const PolicyResult& r) {
    return r.metrics.allocation_rate[static_cast<int>(Dim::kGpu)] > 0;
  });
  if (gpus) {
    rows.insert(rows.begin() + 2, {"allocation gpu", [](const Metrics& m) {
                                     return Percent(m.allocation_rate[static_cast<int>(Dim::kGpu)]);
                                   }});
  }
  return rows;
}

std::string FormatScenarioHeader(const nlohmann::json& scenario) {
  std::string out = "scenario: " + scenario.value("name", std::string()) + "\n";
  if (const auto regime = scenario.find("regime"); regime != scenario.end()) {
    out += "  regime: " + regime->value("name", std::string()) + " (batch_load " +
           Fixed(regime->value("batch_load", 0.0), 3) +
           "): " + regime->value("headline", std::string()) + "\n";
  }
  out += "  " + std::to_string(scenario.value("nodes", 0)) + " nodes, " +
         std::to_string(scenario.value("services", 0)) + " services (" +
         std::to_string(scenario.value("service_replicas", 0)) + " replicas, " +
         Percent(scenario.value("service_cpu_request_share_at_start", 0.0)) +
         " of allocatable CPU requested), " + std::to_string(scenario.value("jobs", 0)) +
         " jobs (" + std::to_string(scenario.value("tasks", 0)) + " tasks), " +
         Fixed(scenario.value("days", 0.0), 1) + " days, metrics after a " +
         Fixed(scenario.value("warmup_s", 0) / 3600.0, 0) + " h warm-up\n";
  if (const auto rejected = scenario.find("rejected_jobs");
      rejected != scenario.end() && !rejected->empty()) {
    out += "  " + std::to_string(rejected->size()) + " jobs rejected, not run:\n";
    for (const auto& why : *rejected) out += "    " + why.get<std::string>() + "\n";
  }
  return out;
}

std::string FormatTable(const nlohmann::json& scenario, const std::vector<PolicyResult>& results) {
  constexpr int kLabelWidth = 26;
  // Wide enough for every value and for the longest policy name, with two spaces before it.
  int column_width = 15;
  for (const PolicyResult& r : results) {
    column_width = std::max(column_width, static_cast<int>(r.policy.size()) + 2);
  }
  std::string out = FormatScenarioHeader(scenario) + "\n";
  std::vector<TextTable::Column> columns = {
      {.width = kLabelWidth, .align = TextTable::Align::kLeft}};
  columns.resize(results.size() + 1, {.width = column_width, .align = TextTable::Align::kRight});
  TextTable table(std::move(columns));
  std::vector<std::string> header = {""};
  for (const PolicyResult& r : results) header.push_back(r.policy);
  table.AddRow(std::move(header));
  for (const SummaryRow& row : SummaryRows(results)) {
    std::vector<std::string> cells = {row.label};
    for (const PolicyResult& r : results) cells.push_back(row.value(r.metrics));
    table.AddRow(std::move(cells));
  }
  return out + table.Format();
}

nlohmann::json ToJson(const nlohmann::json& scenario, const std::vector<PolicyResult>& results) {
  nlohmann::json policies = nlohmann::json::object();
  for (const PolicyResult& r : results) {
    const Metrics& m = r.metrics;
    nlohmann::json allocation, utilization;
    for (Dim d : kAllDims) {
      allocation[std::string(DimName(d))] = m.allocation_rate[static_cast<int>(d)];
      utilization[std::string(DimName(d))] = m.utilization[static_cast<int>(d)];
    }
    policies[r.policy] = {
        {"allocation_rate", allocation},
        {"utilization", utilization},
        {"utilization_of_usable", {{"cpu", m.cpu_utilization_of_usable}}},
        {"fragmentation_rate", m.fragmentation_rate},
        {"hot_node_time", m.hot_node_time},
        {"unplaced_replica_share", m.unplaced_replica_share},
        {"peak_sum",
         {{"predicted", {{"cpu", m.predicted_peak_sum[0]}, {"memory", m.predicted_peak_sum[1]}}},
          {"observed", {{"cpu", m.observed_peak_sum[0]}, {"memory", m.observed_peak_sum[1]}}},
          {"unplaced", {{"cpu", m.unplaced_peak_sum[0]}, {"memory", m.unplaced_peak_sum[1]}}}}},
        {"sla",
         {{"services", m.sla_services},
          {"jobs", m.sla_jobs},
          {"all", m.sla_all},
          {"services_counted", m.services_counted},
          {"jobs_counted", m.jobs_counted}}},
        {"batch",
         {{"core_hours_per_day", m.batch_core_hours_per_day},
          {"offered_core_hours_per_day", m.offered_core_hours_per_day},
          {"lost_core_hours_per_day", m.lost_core_hours_per_day},
          {"wait_p50_s", m.wait_p50_s},
          {"wait_p99_s", m.wait_p99_s},
          {"wait_tolerance_share_p50", m.wait_tolerance_share_p50},
          {"wait_tolerance_share_p99", m.wait_tolerance_share_p99},
          {"started_within_tolerance", m.started_within_tolerance},
          {"started_within_tolerance_serverless", m.started_within_tolerance_by_type[0]},
          {"started_within_tolerance_offline", m.started_within_tolerance_by_type[1]},
          {"weighted_lateness_s", m.weighted_lateness_s},
          {"tasks",
           {{"submitted", m.tasks_submitted},
            {"finished", m.tasks_finished},
            {"running", m.tasks_running},
            {"queued", m.tasks_queued},
            {"failed", m.tasks_failed},
            {"reported_late", m.tasks_reported_late}}}}},
        {"disruption",
         {{"evictions_per_1000_container_days", m.evictions_per_1000_container_days},
          {"migrations_per_1000_container_days", m.migrations_per_1000_container_days},
          {"evictions", m.evictions},
          {"migrations", m.migrations},
          {"oom_kills", m.oom_kills},
          {"health_migrations", m.health_migrations},
          {"health_scale_outs", m.health_scale_outs},
          {"failure_kills", m.failure_kills}}},
        {"latency_us",
         {{"p50", m.latency_p50_us}, {"p99", m.latency_p99_us}, {"decisions", m.decisions}}},
        {"planner_latency_us",
         {{"p50", m.plan_latency_p50_us}, {"p99", m.plan_latency_p99_us}, {"calls", m.plans}}},
        {"replan_latency_us",
         {{"p50", m.replan_latency_p50_us},
          {"p99", m.replan_latency_p99_us},
          {"calls", m.replans}}},
        {"measured_days", m.measured_days},
        {"wall_seconds", m.wall_seconds}};
  }
  if (const std::optional<double> before = ServicesOnlyCpu(results)) {
    for (const PolicyResult& r : results) {
      policies[r.policy]["utilization_vs_services_only"] = {
          {"cpu", r.metrics.utilization[0] / *before}};
    }
  }
  return {{"scenario", scenario}, {"policies", policies}};
}

nlohmann::json ReportFormatJson(const std::string& tool_version, const std::string& tool_commit) {
  const std::string per_day = "core-hours per measured day";
  const std::string share = "share in [0, 1]";
  return {{"format", "archimedes-simulation-report"},
          {"format_version", kReportFormatVersion},
          {"tool", {{"name", "archimedes"}, {"version", tool_version}, {"commit", tool_commit}}},
          {"units",
           {{"scenario.service_cpu_request_share_at_start", "ratio of cpu requests to allocatable"},
            {"scenario.days", "days"},
            {"scenario.warmup_s", "seconds"},
            {"policies.*.allocation_rate.*", "ratio of Σ requests to Σ capacity, time-averaged"},
            {"policies.*.utilization.*", "ratio of Σ usage to Σ capacity, time-averaged"},
            {"policies.*.utilization_of_usable.cpu",
             "ratio of Σ usage to Σ capacity × (1 − burst buffer), time-averaged"},
            {"policies.*.utilization_vs_services_only.cpu",
             "ratio of CPU utilization to the services-only run's"},
            {"policies.*.fragmentation_rate", "share of free capacity, in [0, 1]"},
            {"policies.*.hot_node_time", "share of node-time, in [0, 1]"},
            {"policies.*.unplaced_replica_share", "share of desired replica-ticks, in [0, 1]"},
            {"policies.*.peak_sum.*.cpu", "millicores"},
            {"policies.*.peak_sum.*.memory", "bytes"},
            {"policies.*.sla.services", share},
            {"policies.*.sla.jobs", share},
            {"policies.*.sla.all", share},
            {"policies.*.batch.core_hours_per_day", per_day},
            {"policies.*.batch.offered_core_hours_per_day", per_day},
            {"policies.*.batch.lost_core_hours_per_day", per_day},
            {"policies.*.batch.wait_p50_s", "seconds"},
            {"policies.*.batch.wait_p99_s", "seconds"},
            {"policies.*.batch.wait_tolerance_share_p50", "ratio of wait to delay tolerance"},
            {"policies.*.batch.wait_tolerance_share_p99", "ratio of wait to delay tolerance"},
            {"policies.*.batch.started_within_tolerance*", "share of jobs, in [0, 1]"},
            {"policies.*.batch.weighted_lateness_s",
             "seconds, mean of max(0, start − deadline) per task weighted by job priority"},
            {"policies.*.batch.tasks.*", "tasks"},
            {"policies.*.disruption.*_per_1000_container_days", "events per 1,000 container-days"},
            {"policies.*.latency_us.p50", "microseconds"},
            {"policies.*.latency_us.p99", "microseconds"},
            {"policies.*.planner_latency_us.p50", "microseconds"},
            {"policies.*.planner_latency_us.p99", "microseconds"},
            {"policies.*.replan_latency_us.p50", "microseconds"},
            {"policies.*.replan_latency_us.p99", "microseconds"},
            {"policies.*.measured_days", "days"},
            {"policies.*.wall_seconds", "seconds"}}}};
}

}  // namespace archimedes
