#include "trace/usage_history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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
  std::vector<int32_t> series;
  while (reader.Next()) series.push_back(reader.record().series);
  EXPECT_EQ(series, (std::vector<int32_t>{0, 1, 0, 1}));
}

// The reader guesses a row's container from the order of the rows before it: whatever the order,
// a container keeps its number, and the time order is checked per container.
TEST(UsageHistoryTest, ContainersKeepTheirNumberWhateverTheRowOrder) {
  std::string rows = "time,app,container,cpu,memory,disk,network\n";
  const std::vector<std::pair<int, std::string>> order = {
      {0, "a,c1"}, {0, "a,c2"}, {0, "b,c1"}, {1, "a,c1"}, {1, "b,c1"}, {1, "a,c2"},
      {2, "a,c2"}, {3, "a,c2"}, {3, "b,c2"}, {4, "b,c1"}, {4, "a,c1"}, {4, "b,c2"}};
  for (const auto& [t, names] : order) rows += std::to_string(t) + "," + names + ",1,1,1,1\n";
  UsageHistoryReader reader(WriteFile("order.csv", rows));
  std::vector<int32_t> series;
  while (reader.Next()) series.push_back(reader.record().series);
  EXPECT_EQ(series, (std::vector<int32_t>{0, 1, 2, 0, 2, 1, 1, 1, 3, 2, 0, 3}));
  ExpectError("guess.csv", rows + "2,a,c2,1,1,1,1\n", 14, "before its previous row's time 3");
}

}  // namespace
}  // namespace archimedes
