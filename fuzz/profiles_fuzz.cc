// The profiles file (`simulate --profiles`): profiles or an error naming the JSON path.
#include "fuzz/fuzz_input.h"
#include "trace/profile_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "profiles.json");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadProfilesFile(path));
  return 0;
}
