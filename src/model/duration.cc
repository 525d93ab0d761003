#include "model/duration.h"

#include <charconv>
#include <limits>

namespace archimedes {
namespace {

struct Unit {
  char suffix;
  int64_t seconds;
};
constexpr Unit kUnits[] = {{'d', 86'400}, {'h', 3'600}, {'m', 60}, {'s', 1}};

[[noreturn]] void InvalidDuration(std::string_view text, const std::string& why) {
  throw DurationError("duration \"" + std::string(text) + "\": " + why);
}

}  // namespace

int64_t ParseDuration(std::string_view text) {
  std::string_view rest = text;
  const bool negative = !rest.empty() && rest[0] == '-';
  if (negative) rest.remove_prefix(1);
  if (rest.empty()) InvalidDuration(text, "empty");
  // The magnitude of the most negative int64 is one more than the largest positive one.
  const __int128 limit = static_cast<__int128>(std::numeric_limits<int64_t>::max()) + negative;
  __int128 total = 0;
  while (!rest.empty()) {
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0) InvalidDuration(text, "expected a number before each unit");
    if (digits > 18) InvalidDuration(text, "number too large");
    int64_t count = 0;
    std::from_chars(rest.data(), rest.data() + digits, count);
    if (digits == rest.size()) InvalidDuration(text, "missing unit after " + std::string(rest));
    const char suffix = rest[digits];
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (u.suffix == suffix) unit = &u;
    }
    if (unit == nullptr)
      InvalidDuration(text, "unknown unit '" + std::string(1, suffix) + "' (use s, m, h or d)");
    total += static_cast<__int128>(count) * unit->seconds;
    if (total > limit) InvalidDuration(text, "too long");
    rest.remove_prefix(digits + 1);
  }
  return static_cast<int64_t>(negative ? -total : total);
}

std::string FormatDuration(int64_t seconds) {
  if (seconds == 0) return "0s";
  std::string out = seconds < 0 ? "-" : "";
  // Negated as unsigned so that the most negative value does not overflow.
  uint64_t rest = seconds < 0 ? 0 - static_cast<uint64_t>(seconds) : seconds;
  for (const Unit& unit : kUnits) {
    const uint64_t count = rest / unit.seconds;
    if (count == 0) continue;
    out += std::to_string(count) + unit.suffix;
    rest -= count * unit.seconds;
  }
  return out;
}

}  // namespace archimedes
