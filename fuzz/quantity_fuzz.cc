// The Kubernetes quantity parser: any text is a quantity or a QuantityError, and a parsed quantity
// reads back from its exact decimal as the same value.
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "model/limits.h"
#include "model/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ARCHIMEDES_FUZZ_EXPECT_ERRORS({
    const archimedes::Quantity q = archimedes::Quantity::Parse(text);
    const archimedes::Quantity again = archimedes::Quantity::Parse(q.ToDecimalString());
    if (again.nano() != q.nano()) std::abort();
  });
  for (archimedes::Dim dim : archimedes::kAllDims) {
    ARCHIMEDES_FUZZ_EXPECT_ERRORS({
      const int64_t amount = archimedes::ParseResourceAmount(dim, text);
      if (amount < 0 || amount > archimedes::kMaxResourceAmount) std::abort();
    });
  }
  return 0;
}
