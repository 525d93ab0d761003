// The native scenario format: a file is a scenario or an error naming it, and a scenario the reader
// accepts is written so that reading the text back gives the same text (docs/formats.md).
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "trace/native_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = archimedes::fuzz::WriteInput(data, size, "scenario.json");
  ARCHIMEDES_FUZZ_EXPECT_ERRORS({
    const archimedes::Scenario scenario = archimedes::ReadScenarioFile(path);
    const std::string text = archimedes::FormatScenarioJson(scenario);
    const std::string again = archimedes::fuzz::WriteInput(
        reinterpret_cast<const uint8_t*>(text.data()), text.size(), "written.json");
    if (archimedes::FormatScenarioJson(archimedes::ReadScenarioFile(again)) != text) std::abort();
  });
  return 0;
}
