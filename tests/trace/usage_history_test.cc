#include "trace/usage_history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace archimedes {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("archimedes_usage_history_" + name)).string();
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

TEST(UsageHistoryTest, WriterOutputReadsBack) {
  std::string path = TempPath("roundtrip.csv");
  {
    UsageHistoryWriter writer(path);
    writer.Write(0, "web", "web-0", {1500.5f, 2e9f, 1e6f, 2.5e6f, 0});
    writer.Write(300, "odd,app", "c\"1", {1, 2, 3, 4, 0});
    writer.Write(300, "web", "web-0", {1, 2, 3, 4, 0});
    writer.Commit();
  }
  UsageHistoryReader reader(path);
  ASSERT_TRUE(reader.Next());
  EXPECT_EQ(reader.record().time, 0);
  EXPECT_EQ(reader.record().app, "web");
  EXPECT_EQ(reader.record().container, "web-0");
  EXPECT_FLOAT_EQ(reader.record().usage[0], 1500.5f);
  EXPECT_FLOAT_EQ(reader.record().usage[1], 2e9f);
  EXPECT_FLOAT_EQ(reader.record().usage[3], 2.5e6f);
  ASSERT_TRUE(reader.Next());
  EXPECT_EQ(reader.record().app, "odd,app");
  EXPECT_EQ(reader.record().container, "c\"1");
  ASSERT_TRUE(reader.Next());
  EXPECT_FALSE(reader.Next());
}

void ExpectError(const std::string& name, const std::string& text, int64_t line,
                 const std::string& fragment) {
  std::string path = WriteFile(name, text);
  try {
    UsageHistoryReader reader(path);
    while (reader.Next()) {
    }
    FAIL() << "no error for " << name;
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(UsageHistoryTest, BadInputNamesFileLineAndProblem) {
  const std::string header = "time,app,container,cpu,memory,disk,network\n";
  ExpectError("header.csv", "time,app,cpu\n", 1, "expected the header");
  ExpectError("fields.csv", header + "0,a,c,1,2,3\n", 2, "expected 7 fields");
  ExpectError("number.csv", header + "0,a,c,1,x,3,4\n", 2, "memory");
  ExpectError("negative.csv", header + "0,a,c,-1,2,3,4\n", 2, "negative");
  ExpectError("order.csv", header + "300,a,c,1,2,3,4\n0,b,c,1,2,3,4\n100,a,c,1,2,3,4\n", 4,
              "before its previous row's time 300");
  ExpectError("empty_app.csv", header + "0,,c,1,2,3,4\n", 2, "app is empty");
  EXPECT_THROW(UsageHistoryReader(TempPath("missing.csv")), TraceError);
}

TEST(UsageHistoryTest, EqualTimesAndInterleavedContainersAreFine) {
  std::string path =
      WriteFile("interleaved.csv",
                "time,app,container,cpu,memory,disk,network\n"
                "10,a,c1,1,1,1,1\n5,a,c2,1,1,1,1\n10,a,c1,2,2,2,2\n7,a,c2,1,1,1,1\n");
  UsageHistoryReader reader(path);
  int rows = 0;
  while (reader.Next()) ++rows;
  EXPECT_EQ(rows, 4);
}

}  // namespace
}  // namespace archimedes
