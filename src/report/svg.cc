#include "report/svg.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace archimedes::report {

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Coordinate(double value) {
  char buffer[32];
  const double rounded = std::round(value * 10) / 10;
  if (rounded == std::floor(rounded)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", rounded);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f", rounded);
  }
  return buffer;
}

std::string FormatValue(double value, ValueFormat format) {
  char buffer[32];
  if (format == ValueFormat::kPercent) {
    std::snprintf(buffer, sizeof buffer, "%.0f%%", value * 100);
  } else if (std::abs(value) >= 100 || value == std::floor(value)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
  }
  return buffer;
}

std::vector<double> NiceTicks(double low, double high, int count) {
  if (!(high > low)) return {low};
  // Of the round steps near range ÷ (count − 1), the one that gives the number of ticks nearest
  // to `count`.
  const double raw = (high - low) / std::max(count - 1, 2);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  double best = INFINITY;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    const double s = m * magnitude;
    const double ticks = std::floor(high / s + 1e-9) - std::ceil(low / s - 1e-9) + 1;
    if (std::abs(ticks - count) < best) {
      best = std::abs(ticks - count);
      step = s;
    }
  }
  std::vector<double> ticks;
  const double first = std::ceil(low / step - 1e-9);
  // Adding zero turns a -0 into 0, which would print as "-0".
  for (double i = first; i * step <= high + step * 1e-9; ++i) ticks.push_back(i * step + 0.0);
  return ticks;
}

std::string SeriesColor(size_t index) {
  // Tableau 10: chosen for telling lines apart, also in grey-scale print.
  static constexpr std::array<const char*, 8> kPalette = {
      "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"};
  return kPalette[index % kPalette.size()];
}

}  // namespace archimedes::report
