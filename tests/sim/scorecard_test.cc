// The scorecard: best policies per headline (services-only never), rows a run does not carry left
// out, batch figures of a run without jobs shown as "–", and the command above every table.
#include "sim/scorecard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace archimedes {
namespace {

nlohmann::json Policy(double util, double core_hours, double lateness, int jobs_counted) {
  return {{"utilization", {{"cpu", util}}},
          {"allocation_rate", {{"gpu", 0.0}}},
          {"sla", {{"services", 1.0}, {"jobs", 0.5}, {"jobs_counted", jobs_counted}}},
          {"batch",
           {{"core_hours_per_day", core_hours},
            {"started_within_tolerance", 0.5},
            {"weighted_lateness_s", lateness}}}};
}

ScorecardRun ToyRun() {
  return {.name = "toy",
          .command = "archimedes simulate --nodes 2",
          .headlines = {"core_hours", "lateness", "sla_services"},
          .report = {{"policies",
                      {{"archimedes", Policy(0.6, 100, 30, 4)},
                       {"reclaim", Policy(0.7, 1234567.4, 1500, 4)},
                       {"services-only", Policy(0.9, 0, 0, 0)}}}},
          .wall_seconds = 3};
}

const ScorecardRow& Row(const std::string& key) {
  for (const ScorecardRow& row : ScorecardRows()) {
    if (row.key == key) return row;
  }
  throw std::out_of_range(key);
}

TEST(ScorecardTest, TheBestPolicyFollowsTheRowsDirectionAndIsNeverServicesOnly) {
  using Names = std::vector<std::string>;
  const ScorecardRun run = ToyRun();
  EXPECT_EQ(BestPolicies(run.report, Row("core_hours")), Names{"reclaim"});
  EXPECT_EQ(BestPolicies(run.report, Row("lateness")), Names{"archimedes"});  // lower is better
  // services-only has the highest utilisation but runs no batch: not a contender.
  EXPECT_EQ(BestPolicies(run.report, Row("cpu_utilization")), Names{"reclaim"});
  EXPECT_EQ(BestPolicies(run.report, Row("sla_services")), (Names{"archimedes", "reclaim"}));
  EXPECT_TRUE(BestPolicies(run.report, Row("evictions")).empty());  // no policy has the figure
}

TEST(ScorecardTest, MarkdownHoldsTheSummaryTheCommandAndOnlyTheRowsTheRunCarries) {
  const std::string md = FormatScorecardMarkdown("Title", "Intro.", {ToyRun()});
  EXPECT_NE(md.find("# Title\n\nIntro."), std::string::npos);
  EXPECT_NE(md.find("| toy | batch core-h/day | reclaim | 100 | 1,234,567 (reclaim) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| toy | lateness, prio-weighted | archimedes | 30 s | 1,500 s (reclaim) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("```sh\narchimedes simulate --nodes 2\n```"), std::string::npos);
  // Headline rows in bold with the best figure in bold; services-only's batch figures are "–".
  // Whole numbers and seconds with their thousands separated, as the docs write them.
  EXPECT_NE(md.find("| **batch core-h/day** | 100 | **1,234,567** | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **lateness, prio-weighted** | **30 s** | 1,500 s | – |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| CPU utilization | 60.0% | 70.0% | 90.0% |"), std::string::npos) << md;
  // A tie names every policy that ties.
  EXPECT_NE(md.find("| toy | SLA services | archimedes, reclaim |"), std::string::npos) << md;
  // No GPU in the fleet, no eviction figure in the reports: no such rows.
  EXPECT_EQ(md.find("GPU allocation"), std::string::npos);
  EXPECT_EQ(md.find("evictions"), std::string::npos);
  EXPECT_NE(md.find("Wall time 3 s."), std::string::npos);
}

TEST(ScorecardTest, JsonKeepsEachRunsCommandHeadlinesAndPolicies) {
  const nlohmann::json doc = ScorecardJson({ToyRun()});
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["command"], "archimedes simulate --nodes 2");
  EXPECT_EQ(doc["runs"][0]["headlines"],
            nlohmann::json({"core_hours", "lateness", "sla_services"}));
  EXPECT_DOUBLE_EQ(
      doc["runs"][0]["policies"]["reclaim"]["batch"]["core_hours_per_day"].get<double>(),
      1234567.4);
}

}  // namespace
}  // namespace archimedes
