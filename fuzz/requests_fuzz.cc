// The requests CSV (`profile --requests`).
#include "fuzz/fuzz_input.h"
#include "trace/requests_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "requests.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadRequestsFile(path));
  return 0;
}
