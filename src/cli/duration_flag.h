// Every time flag of the command line (`--warmup`, `--grace`, `--window`, `--probe-timeout-ms`,
// ...) reads the one duration grammar of model/duration.h — "90s", "30m", "2h", "1d", "1h30m" —
// or, as before that grammar, a bare whole number in the flag's unit: seconds, or milliseconds
// for a flag named `-ms` (whose durations count whole seconds: "2s" is 2000). A value that is
// neither, or outside the flag's range, is a usage error naming the flag:
//
//   archimedes simulate: --warmup: "1.5" is not a duration (write 90s, 30m, 2h or 1d)
//   archimedes simulate: --warmup: 400d is outside [0s, 366d]
#ifndef ARCHIMEDES_CLI_DURATION_FLAG_H_
#define ARCHIMEDES_CLI_DURATION_FLAG_H_

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace archimedes::cli {

enum class TimeUnit { kSeconds, kMilliseconds };

// The option `name` of `command`, read into `*value` (in `unit`) and checked to lie in [min, max]
// (in `unit` too). Its help shows `help`, the unit of a bare number, the range and `*value` as
// the default.
CLI::Option* AddDurationFlag(CLI::App* command, const std::string& name, int64_t* value,
                             const std::string& help, int64_t min, int64_t max,
                             TimeUnit unit = TimeUnit::kSeconds);

}  // namespace archimedes::cli

#endif  // ARCHIMEDES_CLI_DURATION_FLAG_H_
