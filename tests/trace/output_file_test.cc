#include "trace/output_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "trace/trace_error.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A fresh folder per test, so that its listing shows every file a write left behind.
std::string Folder() {
  const std::string dir = ::testing::TempDir() + "/output_file_test_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Contents(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

int FilesIn(const std::string& dir) {
  return static_cast<int>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(OutputFileTest, WritesReplaceTheFileWholeAndLeaveNothingElse) {
  const std::string dir = Folder();
  const std::string path = dir + "/report.json";
  WriteFileAtomically(path, "first\n");
  WriteFileAtomically(path, "second\n");
  EXPECT_EQ(Contents(path), "second\n");
  EXPECT_EQ(FilesIn(dir), 1);
}

TEST(OutputFileTest, UncommittedStreamLeavesNoFile) {
  const std::string dir = Folder();
  {
    AtomicOutputFile file(dir + "/history.csv");
    file.Write("time,app\n");
  }
  EXPECT_EQ(FilesIn(dir), 0);
}

// Issue 19: --json to an unwritable path failed only after the whole run.
TEST(OutputFileTest, UnwritablePathsAreFoundBeforeAnythingIsWritten) {
  const std::string dir = Folder();
  try {
    CheckWritable(dir + "/missing-folder/report.json");
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), dir + "/missing-folder/report.json");
    EXPECT_THAT(e.what(), HasSubstr("cannot create a file in its folder"));
  }
  EXPECT_THROW(CheckWritable(dir), TraceError);
  CheckWritable(dir + "/report.json");
  EXPECT_EQ(FilesIn(dir), 0);
}

// Issue 19: invalid UTF-8 in a name left a 0-byte report (nlohmann threw while printing it).
TEST(OutputFileTest, InvalidUtf8IsReplacedNotFatal) {
  const nlohmann::json doc = {{"name", std::string("web\xff-1")}};
  EXPECT_EQ(FormatJsonDocument(doc, -1), "{\"name\":\"web\xEF\xBF\xBD-1\"}\n");
}

// Issue 19: NaN reached a profiles file as `"score": null`.
TEST(OutputFileTest, NanOrInfinityNeverReachesAnOutput) {
  const nlohmann::json nan = {{"apps", {{{"score", std::numeric_limits<double>::quiet_NaN()}}}}};
  try {
    FormatJsonDocument(nan, 2);
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("apps[0].score is NaN"));
  }
  const nlohmann::json inf = {{"x", std::numeric_limits<double>::infinity()}};
  EXPECT_THROW(FormatJsonDocument(inf, 2), std::logic_error);
  // A part of a document written piece by piece is named by its place in the whole.
  try {
    FormatJsonValue({{"mean", {1.0, 2.0, std::numeric_limits<double>::infinity()}}}, "apps[7]");
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("apps[7].mean[2] is infinite"));
  }
  EXPECT_EQ(FormatJsonValue({{"a", 1.5}}, "x"), "{\"a\":1.5}");
}

}  // namespace
}  // namespace archimedes
