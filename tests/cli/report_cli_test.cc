// What a user of `simulate`, `profile` and `faults` sees beside the results: progress on stderr
// (never on stdout), and the HTML reports, whose figures are those of the text and JSON reports.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/fixture_files.h"

namespace archimedes {
namespace {

using testing::TempPath;

const std::string kExamples = std::string(ARCHIMEDES_SOURCE_DIR) + "/examples";

struct SplitRun {
  int status;
  std::string out;
  std::string err;
};

using testing::ReadText;

// Runs `archimedes <args>` with stdout and stderr apart (stderr is a file: not a terminal).
SplitRun RunApart(const std::string& args) {
  const std::string err_path = TempPath("stderr.txt");
  const std::string command = std::string(ARCHIMEDES_BINARY) + " " + args + " 2>" + err_path;
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  SplitRun run{WEXITSTATUS(status), out, ReadText(err_path)};
  std::filesystem::remove(err_path);
  return run;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100 * share);
  return buffer;
}

TEST(ProgressCliTest, SimulateShowsPlainLinesOnStderrWhenNotATerminal) {
  const SplitRun r =
      RunApart("simulate --nodes 20 --days 1 --warmup 3600 --policy k8s-default,reclaim");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("ETA"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("simulated "), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "no in-place rewriting in a log";
  for (const char* policy : {"k8s-default", "reclaim"}) {
    int lines = 0;
    bool eta = false, done = false;
    for (const std::string& line : Lines(r.err)) {
      if (line.find(policy) == std::string::npos) continue;
      ++lines;
      eta |= line.find("tasks ") != std::string::npos && line.find("ETA") != std::string::npos;
      done |= line.find("done in") != std::string::npos;
    }
    EXPECT_TRUE(eta) << r.err;
    EXPECT_TRUE(done) << r.err;
    // A line every tenth of the run (the run takes well under 30 s), the start and the end.
    EXPECT_GE(lines, 10) << r.err;
    EXPECT_LE(lines, 13) << r.err;
  }
}

TEST(ProgressCliTest, QuietSilencesIt) {
  const SplitRun r =
      RunApart("simulate --nodes 20 --days 1 --warmup 3600 --policy k8s-default --quiet");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.err, "");
  const SplitRun faults = RunApart("faults --nodes 30 --days 1 --quiet");
  ASSERT_EQ(faults.status, 0) << faults.out;
  EXPECT_EQ(faults.err, "");
}

TEST(ProgressCliTest, FaultsShowSimulatedTimeAndFaults) {
  const SplitRun r = RunApart("faults --nodes 30 --days 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("simulated 1d of 1d, 100%"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" begun"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("ETA"), std::string::npos);
}

// Every row of the text table is a row of the HTML table, cell for cell; each utilisation chart's
// legend gives the JSON's mean.
TEST(ReportCliTest, SimulateReportSaysWhatTheTextAndJsonSay) {
  const std::string html_path = TempPath("report.html"), json_path = TempPath("report.json");
  const SplitRun r =
      RunApart("simulate --nodes 20 --days 2 --policy k8s-default,archimedes --quiet --report " +
               html_path + " --json " + json_path);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = ReadText(html_path);
  const nlohmann::json doc = nlohmann::json::parse(ReadText(json_path));
  std::filesystem::remove(html_path);
  std::filesystem::remove(json_path);

  constexpr size_t kLabelWidth = 26, kColumnWidth = 15;
  int rows = 0;
  bool in_table = false;
  for (const std::string& line : Lines(r.out)) {
    if (line.find("k8s-default") != std::string::npos) {
      in_table = true;
      continue;
    }
    if (!in_table || line.size() != kLabelWidth + 2 * kColumnWidth) continue;
    auto trim = [](std::string s) {
      s.erase(s.find_last_not_of(' ') + 1);
      return s;
    };
    auto strip = [&](const std::string& s) { return trim(s.substr(s.find_first_not_of(' '))); };
    const std::string row = "<tr><td>" + trim(line.substr(0, kLabelWidth)) + "</td><td>" +
                            strip(line.substr(kLabelWidth, kColumnWidth)) + "</td><td>" +
                            strip(line.substr(kLabelWidth + kColumnWidth)) + "</td></tr>";
    EXPECT_NE(html.find(row), std::string::npos) << row;
    ++rows;
  }
  EXPECT_GT(rows, 30);
  for (const char* policy : {"k8s-default", "archimedes"}) {
    for (const char* dim : {"cpu", "memory"}) {
      const double mean = doc["policies"][policy]["utilization"][dim].get<double>();
      const std::string legend = std::string(policy) + " (mean " + Percent(mean) + ")";
      EXPECT_NE(html.find(legend), std::string::npos) << legend;
    }
  }
  for (const char* section :
       {"Utilisation cpu", "Allocation memory", "Batch waits, offline", "SLA honoured per policy",
        "CPU used, archimedes", "Evictions per hour", "services, predicted"}) {
    EXPECT_NE(html.find(section), std::string::npos) << section;
  }
  for (const char* outside : {"<script", "http:", "https:", "src=", "<link"}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
}

TEST(ReportCliTest, ProfileReportShowsClassesAdviceAndWarnings) {
  const std::string history = TempPath("history.csv"), html_path = TempPath("profile.html"),
                    json_path = TempPath("profile.json");
  const std::string scenario = kExamples + "/small-scenario.json";
  ASSERT_EQ(RunApart("simulate --scenario " + scenario +
                     " --policy k8s-default --quiet --record-usage " + history)
                .status,
            0);
  const SplitRun r = RunApart("profile --history " + history + " --scenario " + scenario +
                              " --report " + html_path + " --json " + json_path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("applications profiled  done in"), std::string::npos) << r.err;
  const std::string html = ReadText(html_path);
  const nlohmann::json doc = nlohmann::json::parse(ReadText(json_path));
  for (const std::string& path : {history, html_path, json_path}) std::filesystem::remove(path);

  for (const nlohmann::json& c : doc["classes"]) {
    EXPECT_NE(html.find("<td>" + std::to_string(c["id"].get<int>()) + "</td><td>" +
                        c["description"].get<std::string>() + "</td><td>" +
                        std::to_string(c["members"].get<int>()) + "</td>"),
              std::string::npos)
        << c;
  }
  for (const nlohmann::json& app : doc["applications"]) {
    EXPECT_NE(html.find(app["app"].get<std::string>()), std::string::npos) << app;
  }
  EXPECT_NE(html.find("Class shapes, cpu"), std::string::npos);
  EXPECT_NE(html.find("CPU per replica: request and advice"), std::string::npos);
  const size_t warnings = doc.contains("warnings") ? doc["warnings"].size() : 0;
  if (warnings > 0) {
    EXPECT_NE(html.find(std::to_string(warnings) + " warnings"), std::string::npos);
  } else {
    EXPECT_NE(html.find("No health warning was raised."), std::string::npos);
  }
}

}  // namespace
}  // namespace archimedes
