#include "trace/input_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "trace/csv_reader.h"
#include "trace/json_reader.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(void (*read)(const std::string&), const std::string& path) {
  try {
    read(path);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

void ReadCsv(const std::string& path) { CsvReader csv(path); }
void ReadJson(const std::string& path) { ReadJsonFile(path); }

// Found by the mutation sweep: a folder given as a scenario was "malformed JSON at column 1", as a
// usage history a bare "read error".
TEST(InputFileTest, AFolderWhereAFileBelongsIsNamedSo) {
  const std::string folder = ::testing::TempDir();
  EXPECT_THAT(ErrorOf(ReadCsv, folder), HasSubstr(folder + ": is a folder; a file is expected"));
  EXPECT_THAT(ErrorOf(ReadJson, folder), HasSubstr(folder + ": is a folder; a file is expected"));
}

TEST(InputFileTest, AMissingFileIsNamedSo) {
  const std::string missing = ::testing::TempDir() + "/input_file_test_missing.csv";
  EXPECT_THAT(ErrorOf(ReadCsv, missing), HasSubstr(missing + ": no such file"));
  EXPECT_THAT(ErrorOf(ReadJson, missing), HasSubstr(missing + ": no such file"));
}

}  // namespace
}  // namespace archimedes
