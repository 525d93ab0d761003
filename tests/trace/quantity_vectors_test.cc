// Kubernetes' own quantity vectors (../shared/k8s-fixtures/quantity-vectors.csv, read with the
// trace module's CSV reader) against model/quantity.h.
#include <gtest/gtest.h>

#include <string>

#include "model/quantity.h"
#include "support/shared_data.h"
#include "trace/csv_reader.h"

namespace archimedes {
namespace {

TEST(QuantityVectorsTest, PassesEveryKubernetesVector) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/quantity-vectors.csv");
  CsvReader csv(testing::SharedPath("k8s-fixtures/quantity-vectors.csv"));
  ASSERT_TRUE(csv.Next());  // header
  int checked = 0;
  while (csv.Next()) {
    csv.ExpectFields(3);
    std::string input(csv.field(0));
    std::string expected(csv.field(2));
    SCOPED_TRACE("input \"" + input + "\" at line " + std::to_string(csv.line()));
    if (expected == "ERROR") {
      EXPECT_THROW(Quantity::Parse(input), QuantityError);
    } else {
      EXPECT_EQ(Quantity::Parse(input).ToDecimalString(), expected);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 70);
}

}  // namespace
}  // namespace archimedes
