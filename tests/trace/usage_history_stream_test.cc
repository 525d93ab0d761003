#include "trace/usage_history_stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace_error.h"
#include "trace/usage_history.h"

namespace archimedes {
namespace {

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("archimedes_usage_stream_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

// `rows` rows of containers that come and go, so that new series appear in every batch; each
// row's cpu is its row number, to check the order.
std::string History(int rows) {
  std::string text = "time,app,container,cpu,memory,disk,network\n";
  for (int i = 0; i < rows; ++i) {
    const int container = i % 7 + 7 * (i / 20000);
    text += std::to_string(i / 7) + ",app" + std::to_string(container % 3) + ",c" +
            std::to_string(container) + "," + std::to_string(i) + ",1,2,3\n";
  }
  return text;
}

struct Read {
  std::vector<UsageRow> rows;
  std::vector<std::pair<std::string, std::string>> series;
  int64_t last_line = 0;
  int batches = 0;
};

// Reads the stream whole, checking what holds for every batch.
void ReadAll(UsageHistoryStream& stream, Read& read) {
  UsageBatch batch;
  while (stream.Next(batch)) {
    ++read.batches;
    EXPECT_FALSE(batch.rows.empty());
    EXPECT_EQ(batch.first_new_series, static_cast<int32_t>(read.series.size()));
    EXPECT_GT(batch.last_line, read.last_line);
    read.last_line = batch.last_line;
    for (auto& names : batch.new_series) read.series.push_back(names);
    for (const UsageRow& row : batch.rows) {
      EXPECT_LT(row.series, static_cast<int32_t>(read.series.size()));
      read.rows.push_back(row);
    }
  }
}

TEST(UsageHistoryStreamTest, BatchesCarryTheReadersRowsInOrder) {
  const std::string path = WriteFile("whole.csv", History(50000));
  UsageHistoryStream stream(path);
  Read read;
  ReadAll(stream, read);
  EXPECT_GT(read.batches, 4);  // more batches than are read ahead
  EXPECT_EQ(read.last_line, 50001);

  UsageHistoryReader reader(path);
  std::vector<std::pair<std::string, std::string>> series;
  size_t i = 0;
  for (; reader.Next(); ++i) {
    const UsageRecord& r = reader.record();
    if (r.series == static_cast<int32_t>(series.size())) series.emplace_back(r.app, r.container);
    ASSERT_LT(i, read.rows.size());
    EXPECT_EQ(read.rows[i].series, r.series);
    EXPECT_EQ(read.rows[i].time, r.time);
    EXPECT_EQ(read.rows[i].usage, r.usage);
    EXPECT_EQ(read.rows[i].usage[0], static_cast<float>(i));
  }
  EXPECT_EQ(i, read.rows.size());
  EXPECT_EQ(read.series, series);
  EXPECT_EQ(read.series.size(), 21u);
}

TEST(UsageHistoryStreamTest, AnErrorComesAfterEveryRowBeforeIt) {
  const std::string path =
      WriteFile("error.csv", History(30000) + "99999,app0,c0,1,x,3,4\n0,app0,c0,1,2,3,4\n");
  UsageHistoryStream stream(path);
  Read read;
  try {
    ReadAll(stream, read);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 30002) << e.what();
    EXPECT_NE(std::string(e.what()).find("memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read.rows.size(), 30000u);
  UsageBatch batch;
  EXPECT_FALSE(stream.Next(batch));  // the error is thrown once, then the stream has ended
}

TEST(UsageHistoryStreamTest, ABadHeaderThrowsBeforeAnyThread) {
  const std::string path = WriteFile("header.csv", "time,app,cpu\n0,a,1\n");
  try {
    UsageHistoryStream stream(path);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), 1);
  }
}

// The thread waits for room ahead; destroying the stream must end it whether or not it waits.
TEST(UsageHistoryStreamTest, DestroyingTheStreamEarlyStopsTheThread) {
  const std::string path = WriteFile("early.csv", History(100000));
  { UsageHistoryStream untouched(path); }
  UsageHistoryStream stream(path);
  UsageBatch batch;
  ASSERT_TRUE(stream.Next(batch));
  EXPECT_EQ(batch.rows.front().usage[0], 0.0f);
}

}  // namespace
}  // namespace archimedes
