// The native jobs file (`simulate --jobs`): jobs, rejections with their reasons, or an error.
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "trace/native_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "jobs.json");
  std::vector<std::string> rejected;
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadJobsFile(path, &rejected));
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadJobsFile(path));
  return 0;
}
