#include "model/quantity.h"

#include <gtest/gtest.h>

namespace archimedes {
namespace {

TEST(QuantityTest, CanonicalUnits) {
  EXPECT_EQ(ParseMilli("95690m"), 95690);
  EXPECT_EQ(ParseMilli("2"), 2000);
  EXPECT_EQ(ParseMilli("1.5m"), 2);  // MilliValue rounds up
  EXPECT_EQ(ParseUnits("1175334680Ki"), 1203542712320);
  EXPECT_EQ(ParseUnits("0.05Gi"), 53687092);
  EXPECT_EQ(ParseUnits("-1.5Gi"), -1610612736);
  EXPECT_THROW(ParseUnits("12E"), QuantityError);  // does not fit in int64
}

TEST(QuantityTest, ErrorNamesTheInput) {
  try {
    Quantity::Parse("4GB");
    FAIL() << "no error";
  } catch (const QuantityError& e) {
    EXPECT_NE(std::string(e.what()).find("\"4GB\""), std::string::npos) << e.what();
  }
}

TEST(QuantityTest, Formatting) {
  EXPECT_EQ(FormatMilli(2500), "2500m");
  EXPECT_EQ(FormatMilli(3000), "3");
  EXPECT_EQ(FormatBytes(4294967296), "4Gi");
  EXPECT_EQ(FormatBytes(524288), "512Ki");
  EXPECT_EQ(FormatBytes(1536), "1536");
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{1536}, int64_t{7340032}, int64_t{1} << 40}) {
    EXPECT_EQ(ParseUnits(FormatBytes(v)), v);
    EXPECT_EQ(ParseMilli(FormatMilli(v)), v);
  }
}

}  // namespace
}  // namespace archimedes
