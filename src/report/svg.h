// The small pieces every chart of the HTML reports is drawn with (docs/reports.md): escaping text
// for HTML and SVG, compact numbers for coordinates and labels, "nice" axis ticks, and the colour
// of the i-th series. Charts are hand-written SVG so that a report is one self-contained file that
// needs no script and no network, and so that the service's pages can render the same charts.
#ifndef ARCHIMEDES_REPORT_SVG_H_
#define ARCHIMEDES_REPORT_SVG_H_

#include <string>
#include <string_view>
#include <vector>

namespace archimedes::report {

// `text` with &, <, >, " and ' escaped: safe in element content and in quoted attributes.
std::string Escape(std::string_view text);

// A coordinate with at most one decimal ("12", "12.5").
std::string Coordinate(double value);

enum class ValueFormat {
  kNumber,   // "1234", "12.5", "0.25"
  kPercent,  // 0.456 → "46%"
};
std::string FormatValue(double value, ValueFormat format);

// Between 3 and about `count` round ticks (1, 2 or 5 × 10^k apart) covering [low, high].
std::vector<double> NiceTicks(double low, double high, int count);

// A colour from a palette that stays distinguishable for the first eight series.
std::string SeriesColor(size_t index);

}  // namespace archimedes::report

#endif  // ARCHIMEDES_REPORT_SVG_H_
