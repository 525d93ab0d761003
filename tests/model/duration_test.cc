#include "model/duration.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

namespace archimedes {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const DurationError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DurationTest, ParsesEveryUnitAndTheirSums) {
  EXPECT_EQ(ParseDuration("90s"), 90);
  EXPECT_EQ(ParseDuration("30m"), 1800);
  EXPECT_EQ(ParseDuration("2h"), 7200);
  EXPECT_EQ(ParseDuration("1d"), 86400);
  EXPECT_EQ(ParseDuration("1h30m"), 5400);
  EXPECT_EQ(ParseDuration("1h29m60s"), 5400);
  EXPECT_EQ(ParseDuration("30m1h"), 5400);  // terms add up in any order
  EXPECT_EQ(ParseDuration("-5m"), -300);
  EXPECT_EQ(ParseDuration("0s"), 0);
}

TEST(DurationTest, FormatsLargestUnitsFirst) {
  EXPECT_EQ(FormatDuration(int64_t{2} * 86400), "2d");
  EXPECT_EQ(FormatDuration(5400), "1h30m");
  EXPECT_EQ(FormatDuration(61), "1m1s");
  EXPECT_EQ(FormatDuration(90061), "1d1h1m1s");
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(-7200), "-2h");
  EXPECT_EQ(FormatDuration(-45), "-45s");
}

TEST(DurationTest, FormatAndParseRoundTripToTheExtremes) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (int64_t v : {int64_t{90061}, int64_t{-1}, int64_t{0}, kMax, kMin}) {
    EXPECT_EQ(ParseDuration(FormatDuration(v)), v) << FormatDuration(v);
  }
}

TEST(DurationTest, ErrorsNameTheTextAndTheProblem) {
  EXPECT_EQ(ErrorOf([] { ParseDuration("5x"); }),
            "duration \"5x\": unknown unit 'x' (use s, m, h or d)");
  EXPECT_THAT(ErrorOf([] { ParseDuration("15"); }), HasSubstr("missing unit after 15"));
  EXPECT_THAT(ErrorOf([] { ParseDuration("h"); }), HasSubstr("expected a number"));
  EXPECT_THAT(ErrorOf([] { ParseDuration(""); }), HasSubstr("empty"));
  EXPECT_THAT(ErrorOf([] { ParseDuration("-"); }), HasSubstr("empty"));
  EXPECT_THAT(ErrorOf([] { ParseDuration("1.5h"); }), HasSubstr("unknown unit '.'"));
  EXPECT_THAT(ErrorOf([] { ParseDuration("1234567890123456789s"); }),
              HasSubstr("number too large"));
  EXPECT_THAT(ErrorOf([] { ParseDuration("999999999999999999d"); }), HasSubstr("too long"));
}

}  // namespace
}  // namespace archimedes
