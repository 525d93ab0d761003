#include "cli/duration_flag.h"

#include <charconv>
#include <limits>
#include <optional>

#include "model/duration.h"

namespace archimedes::cli {
namespace {

std::string Shown(int64_t value, TimeUnit unit) {
  if (unit == TimeUnit::kSeconds) return FormatDuration(value);
  if (value % 1000 == 0 && value != 0) return FormatDuration(value / 1000);
  return std::to_string(value) + " ms";
}

// `text` as a count of `unit`; nullopt when it is neither a bare whole number nor a duration.
// A count too large for int64 comes back clamped, out of any flag's range.
std::optional<__int128> Count(const std::string& text, TimeUnit unit) {
  int64_t bare = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, bare);
  if (at == end && !text.empty()) {
    if (error == std::errc()) return bare;
    if (error == std::errc::result_out_of_range)
      return text[0] == '-' ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
  }
  try {
    const __int128 seconds = ParseDuration(text);
    return unit == TimeUnit::kMilliseconds ? seconds * 1000 : seconds;
  } catch (const DurationError&) {
    return std::nullopt;
  }
}

}  // namespace

CLI::Option* AddDurationFlag(CLI::App* command, const std::string& name, int64_t* value,
                             const std::string& help, int64_t min, int64_t max, TimeUnit unit) {
  const std::string range = "[" + Shown(min, unit) + ", " + Shown(max, unit) + "]";
  const std::string example = unit == TimeUnit::kSeconds ? "90s, 30m, 2h or 1d" : "500, 2s or 1m";
  // Rewrites the text as the bare count that CLI11 then stores in `*value`.
  CLI::Validator to_count(
      [min, max, unit, range, example](std::string& text) -> std::string {
        const std::optional<__int128> count = Count(text, unit);
        if (!count) return "\"" + text + "\" is not a duration (write " + example + ")";
        if (*count < min || *count > max) return text + " is outside " + range;
        text = std::to_string(static_cast<int64_t>(*count));
        return "";
      },
      "");
  const std::string bare = unit == TimeUnit::kSeconds ? "seconds" : "milliseconds";
  return command->add_option(name, *value, help + " (a bare number is " + bare + ")")
      ->transform(to_count)
      ->type_name("DURATION in " + range)
      ->default_str(unit == TimeUnit::kSeconds ? FormatDuration(*value) : std::to_string(*value));
}

}  // namespace archimedes::cli
