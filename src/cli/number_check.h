// The check of a whole-number flag (`--nodes`, `--days`, `--threads`, ...; a time flag is
// cli/duration_flag.h's). CLI11's Range says "Value 1.5 not in range 0 to 31622400" of a value that
// is in range but not whole, and the same of "abc"; this says which of the two is wrong.
#ifndef ARCHIMEDES_CLI_NUMBER_CHECK_H_
#define ARCHIMEDES_CLI_NUMBER_CHECK_H_

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>

namespace archimedes::cli {

inline CLI::Validator WholeNumberIn(int64_t min, int64_t max) {
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [at, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc::result_out_of_range) {
          return "\"" + text + "\" is outside " + range;
        }
        if (error != std::errc() || at != end) return "\"" + text + "\" is not a whole number";
        if (value < min || value > max) return text + " is outside " + range;
        return "";
      },
      "INT in " + range);
}

}  // namespace archimedes::cli

#endif  // ARCHIMEDES_CLI_NUMBER_CHECK_H_
