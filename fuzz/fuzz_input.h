// What every fuzz target shares: the input as a file (the readers take paths, as the command
// does), and the rule that broken input ends in the project's own error.
//
// A target calls its reader inside ARCHIMEDES_FUZZ_EXPECT_ERRORS: a TraceError (JsonError
// included), QuantityError or DurationError is the reader refusing the input, which is correct.
// Anything else — a signal, a sanitizer report, a library's exception escaping — is a crash that
// libFuzzer reports and scripts/fuzz.sh keeps as a regression input.
#ifndef ARCHIMEDES_FUZZ_FUZZ_INPUT_H_
#define ARCHIMEDES_FUZZ_FUZZ_INPUT_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/duration.h"
#include "model/quantity.h"
#include "trace/trace_error.h"

namespace archimedes::fuzz {

// `data` written to a file of this process named `name` (under the system's temporary folder),
// whose path is returned.
inline std::string WriteInput(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("archimedes-fuzz-" + std::to_string(getpid()) + "-" + name))
                               .string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace archimedes::fuzz

#define ARCHIMEDES_FUZZ_EXPECT_ERRORS(statements) \
  try {                                           \
    statements;                                   \
  } catch (const ::archimedes::TraceError&) {     \
  } catch (const ::archimedes::QuantityError&) {  \
  } catch (const ::archimedes::DurationError&) {  \
  }

#endif  // ARCHIMEDES_FUZZ_FUZZ_INPUT_H_
