// A line chart as inline SVG: series of (x, y) points drawn as lines, dashed lines or areas stacked
// on one another, over shaded x ranges (e.g. the warm-up) and with reference lines (a threshold,
// the tolerance). Long series are averaged in buckets down to `max_points` per series, which
// keeps a report of days of minutes small and leaves every mean as it was.
//
// The SVG is <svg class="chart">; each drawn series is a <path class="data"> with a <title> (its
// name, shown on hover), so a test can check that the chart drew data.
#ifndef ARCHIMEDES_REPORT_LINE_CHART_H_
#define ARCHIMEDES_REPORT_LINE_CHART_H_

#include <optional>
#include <string>
#include <vector>

#include "report/svg.h"

namespace archimedes::report {

struct Point {
  double x = 0;
  double y = 0;
};

struct LineSeries {
  enum class Style {
    kLine,
    kDashed,
    // Filled from the top of the previous stacked area (or zero) to its own value added on top:
    // the stacked series must have the same x values.
    kStackedArea,
  };
  std::string name;
  std::vector<Point> points;
  Style style = Style::kLine;
  std::string color;  // empty: SeriesColor of the series' index
};

struct Reference {
  double at = 0;
  std::string label;
};

struct Band {
  double from = 0;
  double to = 0;
  std::string label;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  ValueFormat x_format = ValueFormat::kNumber;
  ValueFormat y_format = ValueFormat::kNumber;
  double y_min = 0;
  std::optional<double> y_max;  // default: the highest value or reference, with a little room
  std::vector<LineSeries> series;
  std::vector<Reference> y_references;  // horizontal lines
  std::vector<Reference> x_references;  // vertical lines
  std::vector<Band> bands;              // shaded x ranges
  bool steps = false;                   // draw each line as a staircase (a CDF)
  size_t max_points = 600;
};

std::string RenderLineChart(const LineChart& chart);

}  // namespace archimedes::report

#endif  // ARCHIMEDES_REPORT_LINE_CHART_H_
