// The Alibaba 2018 trace: the input is read both as machine_meta.csv and as machine_usage.csv.
#include "fuzz/fuzz_input.h"
#include "trace/alibaba_2018.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "alibaba-2018.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAlibaba2018Machines(path));
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAlibaba2018Usage(path));
  return 0;
}
