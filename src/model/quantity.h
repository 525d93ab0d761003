// Kubernetes resource quantities ("500m", "4Gi", "1.5e3"), parsed exactly as
// k8s.io/apimachinery's resource.ParseQuantity does: no floating point, non-zero values rounded
// up in magnitude to the next multiple of 1e-9, binary-suffixed values capped at 2^63-1.
#ifndef ARCHIMEDES_MODEL_QUANTITY_H_
#define ARCHIMEDES_MODEL_QUANTITY_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/resources.h"

namespace archimedes {

class QuantityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A parsed quantity: its exact value in units of 1e-9 (nano), and whether it was written with a
// binary (Ki, Mi, …) suffix.
class Quantity {
 public:
  // Throws QuantityError naming the input and what is wrong with it.
  static Quantity Parse(std::string_view text);

  __int128 nano() const { return nano_; }
  bool binary() const { return binary_; }

  // Value() and MilliValue() of Kubernetes: rounded up to a whole unit / thousandth. Throw
  // QuantityError when the result does not fit in int64.
  int64_t Value() const;
  int64_t MilliValue() const;

  // The exact value as a plain decimal string ("0.000000004", "-1610612736").
  std::string ToDecimalString() const;

 private:
  __int128 nano_ = 0;
  bool binary_ = false;
};

// Canonical units of the resource vector from a quantity string: millicores for CPU, plain
// units (bytes, …) for the rest. Throw QuantityError.
int64_t ParseMilli(std::string_view text);
int64_t ParseUnits(std::string_view text);

// A resource amount of `dim` in canonical units (model/resources.h) from a quantity: "2" is two
// cores for cpu and two devices for gpu, and two bytes (per second) for the others. Throws
// QuantityError for a negative amount or one above kMaxResourceAmount (model/limits.h), naming the
// text and the limit.
int64_t ParseResourceAmount(Dim dim, std::string_view text);

// Kubernetes-style formatting of canonical units: FormatMilli(2500) == "2500m",
// FormatMilli(3000) == "3", FormatBytes(4294967296) == "4Gi", FormatBytes(1500) == "1500".
std::string FormatMilli(int64_t milli);
std::string FormatBytes(int64_t bytes);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_QUANTITY_H_
