// The simulate report's page from hand-made runs: what each section shows, and what it says when
// a run has nothing to show for it.
#include "sim/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace archimedes {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TimeSeries Flat(int64_t step_s, size_t count, double value) {
  return {.step_s = step_s, .values = std::vector<double>(count, value)};
}

ReportedRun HandMadeRun(const std::string& policy) {
  ReportedRun run{.result = {.policy = policy}};
  RunSeries& s = run.series;
  s.warmup_s = 3600;
  s.end_s = 7200;
  s.hot_threshold = {0.9, 1.0};
  s.burst_buffer = 0.1;
  for (int d = 0; d < kNumDims; ++d) {
    s.allocation[d] = Flat(300, 24, d < 2 ? 0.5 : 0.0);
    s.utilization[d] = Flat(60, 120, d < 2 ? 0.25 : 0.0);
  }
  // The warm-up's usage counts for no mean.
  for (int d = 0; d < 2; ++d) std::fill_n(s.utilization[d].values.begin(), 60, 0.9);
  s.wait_shares[static_cast<size_t>(JobType::kOffline)] = {0.1, 0.5, 2.0};
  s.evictions = s.migrations = s.oom_kills = Flat(3600, 2, 1);
  NodeSeries node{.name = "node-1",
                  .cpu_capacity = 4000,
                  .service_cpu = Flat(300, 24, 1000),
                  .batch_cpu = Flat(300, 24, 500),
                  .predicted_cpu = Flat(300, 24, 1200)};
  s.heat_map_nodes = {node};
  s.busy_nodes = {node};
  run.contracts = {
      {.kind = "service",
       .name = "web",
       .honoured = false,
       .breaches = {{0, 60, "hot node"}, {120, 180, "hot node"}, {200, 260, "OOM-killed"}}},
      {.kind = "job", .name = "j", .honoured = false, .breaches = {{10, 10, "started late"}}}};
  return run;
}

TEST(HtmlReportTest, EveryChartItDrawsHasData) {
  const std::string page = FormatHtmlReport(
      {{"name", "hand-made"}}, {HandMadeRun("k8s-default"), HandMadeRun("archimedes")});
  const int charts = Count(page, "<svg class=\"chart\"");
  // Utilisation and allocation of cpu and memory (the other dimensions are all zero), offline
  // waits (no serverless start), SLA, breaches by reason, a heat map and a busy node per policy,
  // three kinds of disruption.
  EXPECT_EQ(charts, 4 + 1 + 2 + 2 + 2 + 3);
  EXPECT_EQ(page.find("Utilisation disk"), std::string::npos);
  EXPECT_NE(page.find("No serverless task of a job submitted after the warm-up started."),
            std::string::npos);
  // The legends (text; the same name is each line's title): means over the measured period,
  // totals over the whole run.
  EXPECT_EQ(Count(page, ">k8s-default (mean 25.0%)</text>"), 2);
  EXPECT_EQ(Count(page, ">k8s-default (mean 50.0%)</text>"), 2);
  EXPECT_EQ(Count(page, ">archimedes (2)</text>"), 3);
  EXPECT_NE(page.find("hot threshold 90.0%; burst buffer above 90.0%"), std::string::npos);
  EXPECT_NE(page.find("warm-up, not measured"), std::string::npos);
}

TEST(HtmlReportTest, BreachesCountContractsPerReason) {
  const std::string page = FormatHtmlReport({{"name", "hand-made"}}, {HandMadeRun("reclaim")});
  // A contract harmed twice for one reason counts once under it.
  EXPECT_NE(page.find("<tr><th></th><th>OOM-killed</th><th>hot node</th><th>started late</th></tr>"
                      "<tr><td>reclaim</td><td>1</td><td>1</td><td>1</td></tr>"),
            std::string::npos);
}

TEST(HtmlReportTest, NoBreachNoBreachChart) {
  ReportedRun run = HandMadeRun("archimedes");
  run.contracts.clear();
  const std::string page = FormatHtmlReport({{"name", "hand-made"}}, {run});
  EXPECT_EQ(page.find("Contracts breached, by reason"), std::string::npos);
  EXPECT_NE(page.find("No contract was breached."), std::string::npos);
}

}  // namespace
}  // namespace archimedes
