// The scorecard of `archimedes evaluate` (issue 21, docs/results.md): several simulate reports,
// each with the command that reproduces it and the figures it is read by, in one markdown page and
// one JSON document. Every run compares the same policies; each run's table holds the rows its
// reports carry (a GPU row only where the fleet has GPUs, a services-only ratio only where that
// run was made), its headline rows marked, and the best policy per headline named in a summary.
#ifndef ARCHIMEDES_SIM_SCORECARD_H_
#define ARCHIMEDES_SIM_SCORECARD_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace archimedes {

struct ScorecardRun {
  std::string name;                    // "generated, fits, seed 1"
  std::string command;                 // the `archimedes simulate …` line that reproduces it
  std::vector<std::string> headlines;  // keys of ScorecardRows() this run is read by
  nlohmann::json report;               // simulate's JSON report (sim/report.h ToJson)
  double wall_seconds = 0;
};

// One figure of a scorecard table: its key, label, where it sits in a policy's JSON report, how it
// is printed, and whether more is better.
struct ScorecardRow {
  std::string key;
  std::string label;
  std::string path;  // JSON pointer below policies.<name>, e.g. "/batch/core_hours_per_day"
  enum class Format { kPercent, kWhole, kDecimal, kSeconds, kRatio } format;
  bool higher_is_better;
  bool of_jobs = false;  // a batch figure: "–" for a policy that judged no job (services-only)
};
const std::vector<ScorecardRow>& ScorecardRows();

// The policies that do best on `row` in `report` (several when they tie), among those other than
// services-only (which runs no batch); empty when none has the figure.
std::vector<std::string> BestPolicies(const nlohmann::json& report, const ScorecardRow& row);

// `title` and `preamble` (markdown) head the page; then the summary (one line per run and
// headline: the best policy, archimedes' figure, the best other's), then per run its command and
// its table.
std::string FormatScorecardMarkdown(const std::string& title, const std::string& preamble,
                                    const std::vector<ScorecardRun>& runs);
// {"runs": [{name, command, headlines, wall_seconds, scenario, policies}]}.
nlohmann::json ScorecardJson(const std::vector<ScorecardRun>& runs);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_SCORECARD_H_
