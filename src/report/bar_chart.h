// A grouped bar chart as inline SVG: one group per category along the x axis, one bar per series
// in each group, each a <rect class="data"> whose <title> gives series, category and value.
#ifndef ARCHIMEDES_REPORT_BAR_CHART_H_
#define ARCHIMEDES_REPORT_BAR_CHART_H_

#include <optional>
#include <string>
#include <vector>

#include "report/svg.h"

namespace archimedes::report {

struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per category
};

struct BarChart {
  std::string title;
  std::string y_label;
  ValueFormat y_format = ValueFormat::kNumber;
  std::optional<double> y_max;  // default: the highest value, with a little room
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
};

std::string RenderBarChart(const BarChart& chart);

}  // namespace archimedes::report

#endif  // ARCHIMEDES_REPORT_BAR_CHART_H_
