// The Alibaba GPU 2023 trace: the input is read both as a node list and as a pod list, and a pod
// list becomes a workload as `simulate --trace` makes it.
#include "fuzz/fuzz_input.h"
#include "trace/alibaba_gpu_2023.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "openb.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAlibabaGpu2023Nodes(path));
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(
      archimedes::Gpu2023ToWorkload(archimedes::ReadAlibabaGpu2023Pods(path)));
  return 0;
}
