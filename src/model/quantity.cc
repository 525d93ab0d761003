#include "model/quantity.h"

#include <limits>

#include "model/limits.h"

namespace archimedes {
namespace {

constexpr __int128 kNanoPerUnit = 1'000'000'000;
constexpr __int128 kInt128Max = std::numeric_limits<__int128>::max();

[[noreturn]] void Fail(std::string_view text, std::string_view why) {
  throw QuantityError("quantity \"" + std::string(text) + "\": " + std::string(why));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// a * b, or nullopt-like failure signalled through `ok`.
__int128 CheckedMul(__int128 a, __int128 b, bool& ok) {
  if (a != 0 && b > kInt128Max / a) {
    ok = false;
    return 0;
  }
  return a * b;
}

__int128 Pow10(int n, bool& ok) {
  __int128 r = 1;
  for (int i = 0; i < n && ok; ++i) r = CheckedMul(r, 10, ok);
  return r;
}

__int128 CeilDiv(__int128 a, __int128 b) { return a / b + (a % b != 0 ? 1 : 0); }

struct Suffix {
  int base = 10;     // 10 or 2
  int exponent = 0;  // power of `base`
};

Suffix ParseSuffix(std::string_view text, std::string_view s) {
  if (s.empty()) return {10, 0};
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K':
        return {2, 10};
      case 'M':
        return {2, 20};
      case 'G':
        return {2, 30};
      case 'T':
        return {2, 40};
      case 'P':
        return {2, 50};
      case 'E':
        return {2, 60};
      default:
        Fail(text, "unknown suffix \"" + std::string(s) + "\"");
    }
  }
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n':
        return {10, -9};
      case 'u':
        return {10, -6};
      case 'm':
        return {10, -3};
      case 'k':
        return {10, 3};
      case 'M':
        return {10, 6};
      case 'G':
        return {10, 9};
      case 'T':
        return {10, 12};
      case 'P':
        return {10, 15};
      case 'E':
        return {10, 18};
      default:
        break;
    }
  }
  if (s[0] == 'e' || s[0] == 'E') {
    std::string_view e = s.substr(1);
    bool negative = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      negative = e[0] == '-';
      e.remove_prefix(1);
    }
    if (e.empty()) Fail(text, "exponent has no digits");
    int value = 0;
    for (char c : e) {
      if (!IsDigit(c)) Fail(text, "exponent is not a whole number");
      value = value * 10 + (c - '0');
      if (value > 1000) Fail(text, "exponent out of range");
    }
    return {10, negative ? -value : value};
  }
  Fail(text, "unknown suffix \"" + std::string(s) + "\"");
}

}  // namespace

Quantity Quantity::Parse(std::string_view text) {
  if (text.empty()) Fail(text, "empty string");
  size_t pos = 0;
  bool negative = false;
  if (text[pos] == '+' || text[pos] == '-') {
    negative = text[pos] == '-';
    ++pos;
  }
  __int128 mantissa = 0;
  int fraction_digits = 0;
  int digits = 0;
  bool seen_dot = false;
  bool ok = true;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '.') {
      if (seen_dot) Fail(text, "more than one decimal point");
      seen_dot = true;
      continue;
    }
    if (!IsDigit(c)) break;
    ++digits;
    if (seen_dot) ++fraction_digits;
    mantissa = CheckedMul(mantissa, 10, ok);
    mantissa += c - '0';
    if (!ok || mantissa > kInt128Max / 100) Fail(text, "too many digits");
  }
  if (digits == 0) Fail(text, "no digits before the suffix");
  Suffix suffix = ParseSuffix(text, text.substr(pos));

  Quantity q;
  q.binary_ = suffix.base == 2;
  __int128 nano = 0;
  if (suffix.base == 2) {
    __int128 scaled = CheckedMul(mantissa, static_cast<__int128>(1) << suffix.exponent, ok);
    scaled = CheckedMul(scaled, kNanoPerUnit, ok);
    __int128 divisor = Pow10(fraction_digits, ok);
    if (!ok) Fail(text, "value out of range");
    nano = CeilDiv(scaled, divisor);
    constexpr __int128 kCap =
        static_cast<__int128>(std::numeric_limits<int64_t>::max()) * kNanoPerUnit;
    if (nano > kCap) nano = kCap;
  } else {
    int exp10 = suffix.exponent + 9 - fraction_digits;
    if (exp10 >= 0) {
      nano = CheckedMul(mantissa, Pow10(exp10, ok), ok);
      if (!ok) Fail(text, "value out of range");
    } else {
      __int128 divisor = Pow10(-exp10, ok);
      nano = ok ? CeilDiv(mantissa, divisor) : (mantissa != 0 ? 1 : 0);
    }
  }
  q.nano_ = negative ? -nano : nano;
  return q;
}

int64_t Quantity::Value() const {
  __int128 magnitude = nano_ < 0 ? -nano_ : nano_;
  __int128 units = CeilDiv(magnitude, kNanoPerUnit);
  if (units > std::numeric_limits<int64_t>::max()) {
    throw QuantityError("quantity " + ToDecimalString() + " does not fit in 64 bits");
  }
  return static_cast<int64_t>(nano_ < 0 ? -units : units);
}

int64_t Quantity::MilliValue() const {
  __int128 magnitude = nano_ < 0 ? -nano_ : nano_;
  __int128 milli = CeilDiv(magnitude, 1'000'000);
  if (milli > std::numeric_limits<int64_t>::max()) {
    throw QuantityError("quantity " + ToDecimalString() +
                        " does not fit in 64 bits as milli-units");
  }
  return static_cast<int64_t>(nano_ < 0 ? -milli : milli);
}

std::string Quantity::ToDecimalString() const {
  __int128 magnitude = nano_ < 0 ? -nano_ : nano_;
  __int128 whole = magnitude / kNanoPerUnit;
  __int128 frac = magnitude % kNanoPerUnit;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(whole % 10)));
    whole /= 10;
  } while (whole != 0);
  std::string out = nano_ < 0 ? "-" + digits : digits;
  if (frac != 0) {
    std::string f(9, '0');
    for (int i = 8; i >= 0; --i) {
      f[i] = static_cast<char>('0' + static_cast<int>(frac % 10));
      frac /= 10;
    }
    while (f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}

int64_t ParseMilli(std::string_view text) { return Quantity::Parse(text).MilliValue(); }
int64_t ParseUnits(std::string_view text) { return Quantity::Parse(text).Value(); }

int64_t ParseResourceAmount(Dim dim, std::string_view text) {
  const Quantity q = Quantity::Parse(text);
  if (q.nano() < 0) Fail(text, "a resource amount must not be negative");
  const bool milli = dim == Dim::kCpu || dim == Dim::kGpu;
  const int64_t amount = milli ? q.MilliValue() : q.Value();
  if (amount > kMaxResourceAmount) {
    Fail(text, std::string(DimName(dim)) + " is above the limit of " +
                   (milli ? FormatMilli(kMaxResourceAmount) : FormatBytes(kMaxResourceAmount)) +
                   " (model/limits.h)");
  }
  return amount;
}

std::string FormatMilli(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kSuffixes[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  if (bytes == 0) return "0";
  for (int i = 0; i < 6; ++i) {
    int shift = 60 - 10 * i;
    int64_t unit = int64_t{1} << shift;
    if (bytes % unit == 0) return std::to_string(bytes / unit) + kSuffixes[i];
  }
  return std::to_string(bytes);
}

}  // namespace archimedes
