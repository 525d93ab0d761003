// The Alibaba 2017 trace: the input is read both as server_event.csv and as batch_task.csv.
#include "fuzz/fuzz_input.h"
#include "trace/alibaba_2017.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "alibaba-2017.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAlibaba2017ServerEvents(path));
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAlibaba2017BatchTasks(path));
  return 0;
}
