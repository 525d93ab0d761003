#include "trace/requests_csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

#include "trace/trace_error.h"

namespace archimedes {
namespace {

using ::testing::HasSubstr;

std::string TempFile(const std::string& name, const std::string& content) {
  std::string path = ::testing::TempDir() + "/requests_csv_test_" + name;
  std::ofstream(path) << content;
  return path;
}

std::string ErrorOf(const std::string& content) {
  const std::string path = TempFile("bad.csv", content);
  try {
    ReadRequestsFile(path);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RequestsCsvTest, ReadsQuantitiesPerReplica) {
  const std::vector<AppRequests> rows = ReadRequestsFile(TempFile(
      "ok.csv", "app,cpu,memory,disk,network,replicas\nweb,500m,4Gi,20Mi,1G,3\ndb,2,1Gi,0,0,1\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].app, "web");
  EXPECT_EQ(rows[0].request[0], 500.0);
  EXPECT_EQ(rows[0].request[1], 4.0 * (1 << 30));
  EXPECT_EQ(rows[0].request[2], 20.0 * (1 << 20));
  EXPECT_EQ(rows[0].request[3], 1e9);
  EXPECT_EQ(rows[0].request[4], 0.0);
  EXPECT_EQ(rows[0].replicas, 3);
  EXPECT_EQ(rows[1].request[0], 2000.0);

  const std::vector<AppRequests> unnumbered =
      ReadRequestsFile(TempFile("five.csv", "app,cpu,memory,disk,network\nweb,1,1Gi,0,0\n"));
  ASSERT_EQ(unnumbered.size(), 1u);
  EXPECT_EQ(unnumbered[0].replicas, 0);
}

TEST(RequestsCsvTest, ErrorsNameFileLineAndColumn) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("empty file"));
  EXPECT_THAT(ErrorOf("name,cpu,memory,disk,network\n"), HasSubstr(":1: expected the header"));
  EXPECT_THAT(ErrorOf("app,cpu,memory,disk,network\nweb,1,4GB,0,0\n"),
              HasSubstr(":2: column memory: quantity \"4GB\""));
  EXPECT_THAT(ErrorOf("app,cpu,memory,disk,network\nweb,1,1Gi,0\n"), HasSubstr(":2:"));
}

// Issue 19's sweep: a header with a misspelt column, a file cut inside its header, and an app
// listed twice were all accepted.
TEST(RequestsCsvTest, TheHeaderIsCheckedWholeAndAnAppIsListedOnce) {
  auto error_of = [](const std::string& content) {
    try {
      ReadRequestsFile(TempFile("header.csv", content));
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of("app,cpu,memory,disk,getwork,replicas\nweb,1,1Gi,0,0,1\n"),
              HasSubstr(":1: expected the header app,cpu,memory,disk,network[,replicas]"));
  EXPECT_THAT(error_of("app,cpu,memory,disk,network,replica\n"),
              HasSubstr(":1: expected the header"));
  EXPECT_THAT(error_of("app,cpu,memory,disk,n\n"), HasSubstr(":1: expected the header"));
  EXPECT_THAT(error_of("app,cpu,memory,disk,network"),
              HasSubstr(":1: the last line has no line end: the file is cut short"));
  EXPECT_THAT(error_of("app,cpu,memory,disk,network\nweb,1,1Gi,0,0\ndb,1,1Gi,0,0\nweb,2,1Gi,0,0\n"),
              HasSubstr(":4: app \"web\" is listed twice (first on line 2)"));
  EXPECT_THAT(error_of("app,cpu,memory,disk,network\n,1,1Gi,0,0\n"),
              HasSubstr(":2: column app is empty"));
}

}  // namespace
}  // namespace archimedes
