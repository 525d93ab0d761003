#include "sim/report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace archimedes {
namespace {

TEST(ReportTest, ColumnsStaySeparatedForLongPolicyNames) {
  const nlohmann::json scenario = {{"name", "synthetic"}, {"nodes", 2}};
  const std::vector<PolicyResult> results = {{.policy = "reclaim"},
                                             {.policy = "archimedes-no-borrow"}};
  const std::string table = FormatTable(scenario, results);
  std::istringstream lines(table);
  std::string line, header;
  while (std::getline(lines, line)) {
    if (line.find("reclaim") != std::string::npos) header = line;
  }
  ASSERT_NE(header.find("reclaim  archimedes-no-borrow"), std::string::npos) << table;
  // Every row is as wide as the header, so the values line up under the names.
  std::istringstream rows(table);
  bool past_header = false;
  while (std::getline(rows, line)) {
    if (past_header && !line.empty()) {
      EXPECT_EQ(line.size(), header.size()) << line;
    }
    past_header = past_header || line == header;
  }
}

}  // namespace
}  // namespace archimedes
