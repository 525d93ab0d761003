#include "model/resources.h"

#include <algorithm>
#include <cmath>

#include "model/quantity.h"

namespace archimedes {

std::string_view DimName(Dim dim) {
  switch (dim) {
    case Dim::kCpu:
      return "cpu";
    case Dim::kMemory:
      return "memory";
    case Dim::kDisk:
      return "disk";
    case Dim::kNetwork:
      return "network";
    case Dim::kGpu:
      return "gpu";
  }
  return "?";
}

std::optional<Dim> ParseDim(std::string_view name) {
  for (Dim d : kAllDims) {
    if (DimName(d) == name) return d;
  }
  return std::nullopt;
}

Resources Resources::Scaled(double factor) const {
  Resources r;
  for (int i = 0; i < kNumDims; ++i) {
    r.amount[i] = static_cast<int64_t>(std::llround(static_cast<double>(amount[i]) * factor));
  }
  return r;
}

std::string ToString(const Resources& r) {
  std::string out;
  for (Dim d : kAllDims) {
    if (r[d] == 0) continue;
    if (!out.empty()) out += ' ';
    out += DimName(d);
    out += '=';
    out += d == Dim::kCpu || d == Dim::kGpu ? FormatMilli(r[d]) : FormatBytes(r[d]);
  }
  return out.empty() ? "0" : out;
}

}  // namespace archimedes
