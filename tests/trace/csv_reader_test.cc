#include "trace/csv_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

namespace archimedes {
namespace {

using ::testing::HasSubstr;

// A reader positioned on the first row of a file holding `text`.
CsvReader ReaderOf(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/csv_reader_test_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(path, std::ios::trunc) << text;
  CsvReader csv(path);
  EXPECT_TRUE(csv.Next());
  return csv;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

// Issue 19: integers of 9.2e18 and more were read through a double and came out negative.
TEST(CsvReaderTest, IntegersBeyondInt64AreOutOfRangeNotNegative) {
  const CsvReader csv = ReaderOf("9300000000000000000,9.3e18,99999999999999999999\n");
  EXPECT_THAT(ErrorOf([&] { csv.Int(0, "a"); }), HasSubstr(":1: column a: 9300000000000000000 is "
                                                           "outside the range"));
  EXPECT_THAT(ErrorOf([&] { csv.Int(1, "b"); }), HasSubstr("column b: 9.3e18 is outside"));
  EXPECT_THAT(ErrorOf([&] { csv.Int(2, "c"); }), HasSubstr("column c: 99999999999999999999 is"));
}

TEST(CsvReaderTest, RangeErrorsNameColumnValueAndRange) {
  const CsvReader csv = ReaderOf("5,1e300,-1,2.0\n");
  EXPECT_EQ(csv.Int(0, "a", 0, 10), 5);
  EXPECT_EQ(csv.Int(3, "d", 0, 10), 2);
  EXPECT_THAT(ErrorOf([&] { csv.Int(0, "a", 0, 4); }),
              HasSubstr("column a: 5 is outside the range [0, 4]"));
  EXPECT_THAT(ErrorOf([&] { csv.Double(1, "b", 0, 1e6); }),
              HasSubstr("column b: 1e300 is outside the range [0, 1e+06]"));
  EXPECT_THAT(ErrorOf([&] { csv.Double(2, "c", 0, 1); }), HasSubstr("column c: -1 is outside"));
}

std::string WriteFile(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/csv_reader_test_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(path, std::ios::trunc | std::ios::binary) << text;
  return path;
}

TEST(CsvReaderTest, ALastLineWithoutItsEndIsAFileCutShort) {
  CsvReader csv(WriteFile("1,2\n3,4"));
  ASSERT_TRUE(csv.Next());
  EXPECT_THAT(ErrorOf([&] { csv.Next(); }),
              HasSubstr(":2: the last line has no line end: the file is cut short"));
}

TEST(CsvReaderTest, AWriterThatLeavesTheLastLineEndOutIsAllowedTo) {
  CsvReader csv(WriteFile("1,2\n3,4"), CsvReader::LastLineEnd::kOptional);
  ASSERT_TRUE(csv.Next());
  ASSERT_TRUE(csv.Next());
  EXPECT_EQ(csv.field(1), "4");
  EXPECT_FALSE(csv.Next());
}

TEST(CsvReaderTest, EveryLineIsValidUtf8) {
  CsvReader good(WriteFile("caf\xc3\xa9,\xe6\x9c\xba\xe5\x99\xa8,\xf0\x9f\x98\x80\n"));
  ASSERT_TRUE(good.Next());
  EXPECT_EQ(good.field(0), "caf\xc3\xa9");
  for (const std::string bad :
       {"ab\xff\n", "ab\xc3\n", "\xc0\xaf\n", "\xed\xa0\x80\n", "\xf4\x90\x80\x80\n"}) {
    CsvReader csv(WriteFile("ok\n" + bad));
    ASSERT_TRUE(csv.Next());
    EXPECT_THAT(ErrorOf([&] { csv.Next(); }), HasSubstr(":2: byte ")) << bad;
  }
  CsvReader csv(WriteFile("a,b\xff\n"));
  EXPECT_THAT(ErrorOf([&] { csv.Next(); }), HasSubstr(":1: byte 4 is not valid UTF-8"));
}

TEST(CsvReaderTest, QuotesOpenAndCloseAnywhereInAField) {
  CsvReader csv(WriteFile("\"a,b\",\"say \"\"hi\"\"\",x\"y,z\"w,\"\",plain\n\"open,1\n"));
  ASSERT_TRUE(csv.Next());
  ASSERT_EQ(csv.size(), 5);
  EXPECT_EQ(csv.field(0), "a,b");
  EXPECT_EQ(csv.field(1), "say \"hi\"");
  EXPECT_EQ(csv.field(2), "xy,zw");
  EXPECT_EQ(csv.field(3), "");
  EXPECT_EQ(csv.field(4), "plain");
  EXPECT_THAT(ErrorOf([&] { csv.Next(); }), HasSubstr(":2: unterminated quoted field"));
}

TEST(CsvReaderTest, EmptyFieldsBlankLinesAndCrlfEnds) {
  CsvReader csv(WriteFile(",a,\r\n\n\r\nb\r\n"));
  ASSERT_TRUE(csv.Next());
  ASSERT_EQ(csv.size(), 3);
  EXPECT_EQ(csv.field(0), "");
  EXPECT_EQ(csv.field(1), "a");
  EXPECT_EQ(csv.field(2), "");
  ASSERT_TRUE(csv.Next());
  EXPECT_EQ(csv.line(), 4);
  ASSERT_EQ(csv.size(), 1);
  EXPECT_EQ(csv.field(0), "b");
  EXPECT_FALSE(csv.Next());
}

// The file is read in blocks of a few hundred KiB: lines longer than a block, and lines that a
// block boundary cuts, read whole.
TEST(CsvReaderTest, LinesLongerThanAReadBlockReadWhole) {
  const std::string long_field(700'000, 'x');
  std::string text = "1," + long_field + ",\"q" + long_field + "\"\n";
  for (int i = 0; i < 40'000; ++i) text += std::to_string(i) + ",row" + std::to_string(i) + "\n";
  CsvReader csv(WriteFile(text));
  ASSERT_TRUE(csv.Next());
  ASSERT_EQ(csv.size(), 3);
  EXPECT_EQ(csv.field(1), long_field);
  EXPECT_EQ(csv.field(2), "q" + long_field);
  for (int i = 0; i < 40'000; ++i) {
    ASSERT_TRUE(csv.Next());
    ASSERT_EQ(csv.Int(0, "n"), i);
    ASSERT_EQ(csv.field(1), "row" + std::to_string(i));
  }
  EXPECT_FALSE(csv.Next());
}

}  // namespace
}  // namespace archimedes
