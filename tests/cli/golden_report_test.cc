// The simulator's figures are the product's claims: a refactor must leave them as they are. The
// small golden report (tests/golden/small.json, written by `scripts/golden.sh record`) is checked
// on every run; scripts/golden.sh checks the larger ones.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/command.h"
#include "support/report_json.h"

namespace archimedes {
namespace {

TEST(GoldenReportTest, SmallScenarioUnderEveryPolicyIsUnchanged) {
  const std::string out = testing::TempPath("small.json");
  const testing::CommandResult run = testing::RunArchimedes(
      "simulate --nodes 20 --days 2 --policy "
      "k8s-default,k8s-binpack,reclaim,archimedes,archimedes-greedy,archimedes-no-health,"
      "archimedes-no-borrow --json " +
      out);
  ASSERT_EQ(run.status, 0) << run.output;
  nlohmann::json actual = nlohmann::json::parse(std::ifstream(out));
  std::filesystem::remove(out);
  testing::StripTimings(actual);
  // What the document is (format, tool version and commit, units) is no figure: golden.sh drops it.
  actual.erase("report");
  const nlohmann::json golden = nlohmann::json::parse(
      std::ifstream(std::string(ARCHIMEDES_SOURCE_DIR) + "/tests/golden/small.json"));
  // A difference must be a decision: re-record with scripts/golden.sh and say why in the commit.
  EXPECT_EQ(actual, golden) << "differences (JSON patch from golden to now):\n"
                            << nlohmann::json::diff(golden, actual).dump(1);
}

}  // namespace
}  // namespace archimedes
