// Durations and times as the project writes them: whole seconds spelled as one or more
// <count><unit> terms, the units d (86,400 s), h (3,600 s), m (60 s) and s, optionally negative:
// "90s", "30m", "2h", "1d", "1h30m", "1d12h", "-5m". Terms add up, in any order; each count is
// whole, at most 18 digits, and the total must fit in int64. A bare number has no unit and is not
// a duration: formats that take whole seconds as numbers read those themselves.
#ifndef ARCHIMEDES_MODEL_DURATION_H_
#define ARCHIMEDES_MODEL_DURATION_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace archimedes {

class DurationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Seconds from a duration. Throws DurationError naming the text and what is wrong with it
// ("duration \"5x\": unknown unit 'x' (use s, m, h or d)").
int64_t ParseDuration(std::string_view text);

// The duration ParseDuration reads back as `seconds`, largest units first with no zero terms:
// 5400 → "1h30m", 172800 → "2d", -45 → "-45s", 0 → "0s".
std::string FormatDuration(int64_t seconds);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_DURATION_H_
