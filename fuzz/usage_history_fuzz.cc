// The usage-history CSV (`profile --history`), read to its end, and profiled as the command does.
#include "fuzz/fuzz_input.h"
#include "profile/profiler.h"
#include "trace/usage_history.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "history.csv");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS({
    archimedes::UsageHistoryReader reader(path);
    archimedes::Profiler profiler;
    while (reader.Next()) {
      const archimedes::UsageRecord& r = reader.record();
      profiler.Add(r.time, std::string(r.app), std::string(r.container), r.usage);
    }
    profiler.Finish();
  });
  return 0;
}
