// One replica file of the Google 2019 instance-usage trace.
#include "fuzz/fuzz_input.h"
#include "trace/google_2019.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "google-2019.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadGoogle2019Replica(path));
  return 0;
}
