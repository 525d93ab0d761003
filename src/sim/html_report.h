// `archimedes simulate --report FILE.html`: every policy of one comparison side by side in one
// self-contained page (report/html_page.h, docs/reports.md): the summary table of the text report,
// allocation and utilisation per dimension over time with the hot threshold and the burst buffer,
// batch waits against tolerance per job type, SLA per policy and breaches by reason, a node × time
// heat map of CPU per policy, the services' predicted and observed CPU with the batch beside them
// on the busiest nodes, and disruption over time.
//
// Every figure comes from the runs the table and the JSON report come from: the table through the
// same SummaryRows, the charts from each run's RunSeries, whose means after the warm-up and whose
// totals the legends give and which equal the JSON's figures (sim/run_series.h).
#ifndef ARCHIMEDES_SIM_HTML_REPORT_H_
#define ARCHIMEDES_SIM_HTML_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report.h"
#include "sim/run_series.h"
#include "sim/sla_report.h"

namespace archimedes {

// One policy's run as the page shows it.
struct ReportedRun {
  PolicyResult result;
  RunSeries series;
  std::vector<ContractRecord> contracts;  // the run's SimOptions::sla_records
};

// `scenario` is DescribeScenario's description.
std::string FormatHtmlReport(const nlohmann::json& scenario, const std::vector<ReportedRun>& runs);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_HTML_REPORT_H_
