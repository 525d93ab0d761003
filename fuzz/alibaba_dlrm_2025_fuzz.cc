// The Alibaba DLRM 2025 trace, grouped into services as the real scenario groups it.
#include "fuzz/fuzz_input.h"
#include "trace/alibaba_dlrm_2025.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "dlrm.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(
      archimedes::GroupDlrmInstances(archimedes::ReadAlibabaDlrm2025(path)));
  return 0;
}
