#include "sim/html_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/text_table.h"
#include "report/bar_chart.h"
#include "report/heat_map.h"
#include "report/html_page.h"
#include "report/line_chart.h"

namespace archimedes {
namespace {

using report::LineChart;
using report::LineSeries;
using report::Point;
using report::ValueFormat;

constexpr double kHour = 3600;
// Waits are drawn up to this many times their tolerance; the rest are off the chart's right edge.
constexpr double kMaxWaitShare = 3;

std::vector<Point> Points(const TimeSeries& series, double scale = 1) {
  std::vector<Point> points;
  points.reserve(series.values.size());
  for (size_t i = 0; i < series.values.size(); ++i) {
    points.push_back({static_cast<double>(series.TimeAt(i)) / kHour, series.values[i] * scale});
  }
  return points;
}

// The time axis of every chart over time: hours from the start, the warm-up shaded.
LineChart OverTime(const std::string& title, const std::string& y_label, const RunSeries& any) {
  LineChart chart{.title = title, .x_label = "simulated hours", .y_label = y_label};
  if (any.warmup_s > 0) {
    chart.bands.push_back({0, static_cast<double>(any.warmup_s) / kHour, "warm-up, not measured"});
  }
  return chart;
}

// One horizontal line per distinct value, labelled with every reason it stands for.
std::vector<report::Reference> MergedReferences(const std::vector<report::Reference>& lines) {
  std::map<double, std::string> by_value;
  for (const report::Reference& r : lines) {
    std::string& label = by_value[r.at];
    if (label.find(r.label) == std::string::npos) label += (label.empty() ? "" : "; ") + r.label;
  }
  std::vector<report::Reference> merged;
  merged.reserve(by_value.size());
  for (const auto& [at, label] : by_value) merged.push_back({at, label});
  return merged;
}

std::string SummarySection(const std::vector<ReportedRun>& runs,
                           std::vector<std::string>& figures) {
  std::vector<PolicyResult> results;
  results.reserve(runs.size());
  for (const ReportedRun& run : runs) results.push_back(run.result);
  std::vector<std::vector<std::string>> rows = {{""}};
  for (const PolicyResult& r : results) rows[0].push_back(r.policy);
  for (const SummaryRow& row : SummaryRows(results)) {
    std::vector<std::string> cells = {row.label};
    for (const PolicyResult& r : results) cells.push_back(row.value(r.metrics));
    rows.push_back(std::move(cells));
  }
  figures.push_back(report::HtmlTable(rows));
  return "The table of the text report, one column per policy. Rates are averaged over the "
         "measured period, after the warm-up; every chart below comes from these same runs.";
}

std::string ResourceSection(const std::vector<ReportedRun>& runs,
                            std::vector<std::string>& figures) {
  const RunSeries& first = runs.front().series;
  for (Dim dim : kAllDims) {
    const int d = static_cast<int>(dim);
    bool present = false;
    for (const ReportedRun& run : runs) {
      for (const TimeSeries* s : {&run.series.allocation[d], &run.series.utilization[d]}) {
        present |= std::any_of(s->values.begin(), s->values.end(), [](double v) { return v > 0; });
      }
    }
    if (!present) continue;
    const std::string name(DimName(dim));
    std::vector<report::Reference> references;
    if (first.hot_threshold[d] > 0) {
      references.push_back(
          {first.hot_threshold[d], "hot threshold " + Percent(first.hot_threshold[d])});
    }
    for (const ReportedRun& run : runs) {
      if (run.series.burst_buffer > 0) {
        references.push_back({1 - run.series.burst_buffer,
                              "burst buffer above " + Percent(1 - run.series.burst_buffer)});
      }
    }
    references = MergedReferences(references);
    for (bool utilization : {true, false}) {
      LineChart chart = OverTime((utilization ? "Utilisation " : "Allocation ") + name,
                                 utilization ? "used / capacity" : "requested / capacity", first);
      chart.y_format = ValueFormat::kPercent;
      chart.y_references = references;
      for (const ReportedRun& run : runs) {
        const TimeSeries& s = utilization ? run.series.utilization[d] : run.series.allocation[d];
        chart.series.push_back(
            {.name = run.result.policy + " (mean " + Percent(s.MeanFrom(run.series.warmup_s)) + ")",
             .points = Points(s)});
      }
      figures.push_back(report::RenderLineChart(chart));
    }
  }
  return "Per dimension, the fleet's usage and requests as a share of its capacity, sampled every "
         "usage tick and metrics interval; the legend gives each policy's mean over the measured "
         "period, the table's figure. The dashed line marks the hot threshold (a node above it "
         "harms its services) and the burst buffer (batch leaves it to the services' peaks).";
}

// The share of first starts that waited at most x times their tolerance, as a staircase.
std::vector<Point> WaitCdf(std::vector<double> shares) {
  std::sort(shares.begin(), shares.end());
  std::vector<Point> points = {{0, 0}};
  const auto n = static_cast<double>(shares.size());
  for (size_t i = 0; i < shares.size(); ++i) {
    if (shares[i] > kMaxWaitShare) break;
    // One step per distinct value: its height counts every start at that value.
    if (i + 1 < shares.size() && shares[i + 1] == shares[i]) continue;
    points.push_back({shares[i], static_cast<double>(i + 1) / n});
  }
  points.push_back({kMaxWaitShare, points.back().y});
  return points;
}

std::string WaitSection(const std::vector<ReportedRun>& runs, std::vector<std::string>& figures) {
  std::vector<std::vector<std::string>> table = {{"", "wait/tolerance p50", "p99",
                                                  "started in tolerance", "serverless", "offline",
                                                  "lateness, prio-weighted"}};
  for (const ReportedRun& run : runs) {
    const Metrics& m = run.result.metrics;
    table.push_back({run.result.policy, Fixed(m.wait_tolerance_share_p50, 2),
                     Fixed(m.wait_tolerance_share_p99, 2), Percent(m.started_within_tolerance),
                     Percent(m.started_within_tolerance_by_type[0]),
                     Percent(m.started_within_tolerance_by_type[1]),
                     Fixed(m.weighted_lateness_s, 0) + " s"});
  }
  std::string missing;
  for (JobType type : {JobType::kServerless, JobType::kOffline}) {
    const auto t = static_cast<size_t>(type);
    const std::string kind(JobTypeName(type));
    LineChart chart{.title = "Batch waits, " + kind,
                    .x_label = "wait / delay tolerance",
                    .y_label = "share of tasks started",
                    .y_format = ValueFormat::kPercent,
                    .y_max = 1,
                    .x_references = {{1, "tolerance"}},
                    .steps = true};
    bool any = false;
    for (const ReportedRun& run : runs) {
      const std::vector<double>& shares = run.series.wait_shares[t];
      if (shares.empty()) continue;
      any = true;
      std::vector<std::pair<double, double>> weighted;
      weighted.reserve(shares.size());
      for (double s : shares) weighted.emplace_back(s, 1);
      chart.series.push_back({.name = run.result.policy + " (p50 " +
                                      Fixed(Percentile(weighted, 0.5), 2) + ", p99 " +
                                      Fixed(Percentile(weighted, 0.99), 2) + ")",
                              .points = WaitCdf(shares),
                              .color = report::SeriesColor(&run - runs.data())});
    }
    if (any) {
      figures.push_back(report::RenderLineChart(chart));
    } else {
      missing += " No " + kind + " task of a job submitted after the warm-up started.";
    }
  }
  figures.push_back(report::HtmlTable(table));
  return "How long batch tasks waited for their first start, as a share of their job's delay "
         "tolerance (1 = started at the last moment allowed), for jobs submitted after the "
         "warm-up: the cumulative share of tasks per job type (waits beyond " +
         Fixed(kMaxWaitShare, 0) +
         "x their tolerance run off the right edge). The table gives the percentiles over both "
         "types, as the JSON does." +
         missing;
}

std::string SlaSection(const std::vector<ReportedRun>& runs, std::vector<std::string>& figures) {
  report::BarChart sla{.title = "SLA honoured per policy",
                       .y_label = "contracts honoured",
                       .y_format = ValueFormat::kPercent,
                       .y_max = 1,
                       .series = {{.name = "services"}, {.name = "jobs"}}};
  std::set<std::string> reasons;
  std::vector<std::map<std::string, int>> broken_by_reason(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) {
    const Metrics& m = runs[r].result.metrics;
    sla.categories.push_back(runs[r].result.policy);
    sla.series[0].values.push_back(m.sla_services);
    sla.series[1].values.push_back(m.sla_jobs);
    for (const ContractRecord& c : runs[r].contracts) {
      std::set<std::string> own;
      for (const Breach& b : c.breaches) own.insert(b.reason);
      for (const std::string& reason : own) {
        ++broken_by_reason[r][reason];
        reasons.insert(reason);
      }
    }
  }
  figures.push_back(report::RenderBarChart(sla));
  if (!reasons.empty()) {
    report::BarChart by_reason{.title = "Contracts breached, by reason",
                               .y_label = "contracts",
                               .categories = {reasons.begin(), reasons.end()}};
    std::vector<std::vector<std::string>> table = {{""}};
    table[0].insert(table[0].end(), reasons.begin(), reasons.end());
    for (size_t r = 0; r < runs.size(); ++r) {
      report::BarSeries series{.name = runs[r].result.policy};
      table.push_back({runs[r].result.policy});
      for (const std::string& reason : reasons) {
        series.values.push_back(broken_by_reason[r][reason]);
        table.back().push_back(std::to_string(broken_by_reason[r][reason]));
      }
      by_reason.series.push_back(std::move(series));
    }
    figures.push_back(report::RenderBarChart(by_reason));
    figures.push_back(report::HtmlTable(table));
  }
  return "The share of service and job contracts honoured over the measured period (the SLA rows "
         "of the table), and how many contracts were harmed for each reason (a contract harmed "
         "for two reasons counts under both; docs/sla.md defines them)." +
         std::string(reasons.empty() ? " No contract was breached." : "");
}

std::string HeatMapSection(const std::vector<ReportedRun>& runs,
                           std::vector<std::string>& figures) {
  for (const ReportedRun& run : runs) {
    const std::vector<NodeSeries>& nodes = run.series.heat_map_nodes;
    if (nodes.empty()) continue;
    report::HeatMap map{.title = "CPU used, " + run.result.policy,
                        .x_label = "simulated hours",
                        .x_step = static_cast<double>(nodes.front().service_cpu.step_s) / kHour};
    for (const NodeSeries& node : nodes) {
      map.row_labels.push_back(node.name);
      std::vector<double>& row = map.rows.emplace_back();
      for (size_t i = 0; i < node.service_cpu.values.size(); ++i) {
        const double used = node.service_cpu.values[i] + node.batch_cpu.values[i];
        row.push_back(node.cpu_capacity > 0 ? used / node.cpu_capacity : 0);
      }
    }
    figures.push_back(report::RenderHeatMap(map));
  }
  return "CPU used (services and batch) as a share of capacity, per node over time, for " +
         std::to_string(runs.front().series.heat_map_nodes.size()) +
         " nodes spread evenly over the fleet (the same nodes for every policy); a cell is the "
         "mean over its time span.";
}

std::string BusyNodeSection(const std::vector<ReportedRun>& runs,
                            std::vector<std::string>& figures) {
  for (const ReportedRun& run : runs) {
    for (const NodeSeries& node : run.series.busy_nodes) {
      const double cores = node.cpu_capacity / 1000;
      LineChart chart = OverTime(run.result.policy + ": " + node.name, "CPU cores", run.series);
      chart.y_max = cores * 1.05;
      chart.series.push_back({.name = "services, observed",
                              .points = Points(node.service_cpu, 1e-3),
                              .style = LineSeries::Style::kStackedArea,
                              .color = report::SeriesColor(0)});
      chart.series.push_back({.name = "batch",
                              .points = Points(node.batch_cpu, 1e-3),
                              .style = LineSeries::Style::kStackedArea,
                              .color = report::SeriesColor(4)});
      if (!node.predicted_cpu.values.empty()) {
        chart.series.push_back({.name = "services, predicted",
                                .points = Points(node.predicted_cpu, 1e-3),
                                .style = LineSeries::Style::kDashed,
                                .color = report::SeriesColor(2)});
      }
      std::vector<report::Reference> references = {{cores, "capacity"}};
      if (run.series.hot_threshold[0] > 0) {
        references.push_back({cores * run.series.hot_threshold[0], "hot threshold"});
      }
      if (run.series.burst_buffer > 0) {
        references.push_back({cores * (1 - run.series.burst_buffer), "burst buffer"});
      }
      chart.y_references = MergedReferences(references);
      figures.push_back(report::RenderLineChart(chart));
    }
  }
  return "On each policy's busiest nodes (highest mean CPU use after the warm-up): the CPU its "
         "services used, the batch work the policy ran beside them stacked on top, and the "
         "services' predicted CPU (the high-quantile profile curves every policy is judged by). "
         "Batch that fills the valleys under the prediction and stays below the burst buffer is "
         "what Archimedes aims for.";
}

std::string DisruptionSection(const std::vector<ReportedRun>& runs,
                              std::vector<std::string>& figures) {
  struct Kind {
    const char* title;
    TimeSeries RunSeries::*series;
  };
  for (const Kind& kind :
       {Kind{"Evictions", &RunSeries::evictions}, Kind{"Migrations", &RunSeries::migrations},
        Kind{"OOM kills", &RunSeries::oom_kills}}) {
    LineChart chart =
        OverTime(std::string(kind.title) + " per hour", "per hour", runs.front().series);
    chart.steps = true;
    for (const ReportedRun& run : runs) {
      const TimeSeries& s = run.series.*kind.series;
      double total = 0;
      for (double v : s.values) total += v;
      chart.series.push_back(
          {.name = run.result.policy + " (" + Fixed(total, 0) + ")", .points = Points(s)});
    }
    figures.push_back(report::RenderLineChart(chart));
  }
  return "Evictions, make-before-break migrations and OOM kills per simulated hour, over the "
         "whole run (the warm-up included, as the totals of the table and the JSON count them; "
         "the legend gives each total).";
}

}  // namespace

std::string FormatHtmlReport(const nlohmann::json& scenario, const std::vector<ReportedRun>& runs) {
  report::HtmlPage page("Archimedes: " + scenario.value("name", std::string()),
                        FormatScenarioHeader(scenario));
  if (runs.empty()) return page.Render();
  using Section = std::string (*)(const std::vector<ReportedRun>&, std::vector<std::string>&);
  const std::vector<std::pair<const char*, Section>> sections = {
      {"Summary", SummarySection},
      {"Utilisation and allocation over time", ResourceSection},
      {"Batch waits against tolerance", WaitSection},
      {"SLA per policy", SlaSection},
      {"CPU per node over time", HeatMapSection},
      {"Predicted and observed on busy nodes", BusyNodeSection},
      {"Disruption over time", DisruptionSection},
  };
  for (const auto& [heading, section] : sections) {
    std::vector<std::string> figures;
    const std::string intro = section(runs, figures);
    page.AddSection(heading, intro, figures);
  }
  return page.Render();
}

}  // namespace archimedes
