#include "report/bar_chart.h"

#include <algorithm>

#include "report/chart_frame.h"

namespace archimedes::report {

std::string RenderBarChart(const BarChart& chart) {
  double highest = 0;
  for (const BarSeries& s : chart.series) {
    for (double v : s.values) highest = std::max(highest, v);
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    legend.emplace_back(chart.series[i].name, SeriesColor(i));
  }
  const auto groups = static_cast<double>(std::max<size_t>(chart.categories.size(), 1));
  const ChartFrame frame(chart.title, 0, groups, 0, chart.y_max.value_or(highest * 1.1),
                         std::move(legend));
  std::string body = frame.YAxis(chart.y_label, chart.y_format);
  // Each group keeps a fifth of its width free, between groups.
  const double bar = 0.8 / static_cast<double>(std::max<size_t>(chart.series.size(), 1));
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    const auto group = static_cast<double>(c);
    body += "<text class=\"tick\" x=\"" + Coordinate(frame.X(group + 0.5)) + "\" y=\"" +
            Coordinate(frame.bottom() + 14) + "\" text-anchor=\"middle\">" +
            Escape(chart.categories[c]) + "</text>";
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const double value = c < chart.series[s].values.size() ? chart.series[s].values[c] : 0;
      const double x = group + 0.1 + bar * static_cast<double>(s);
      body += "<rect class=\"data\" x=\"" + Coordinate(frame.X(x)) + "\" y=\"" +
              Coordinate(frame.Y(value)) + "\" width=\"" +
              Coordinate(frame.X(x + bar) - frame.X(x) - 1) + "\" height=\"" +
              Coordinate(frame.Y(0) - frame.Y(value)) + "\" fill=\"" + SeriesColor(s) +
              "\"><title>" + Escape(chart.series[s].name) + ", " + Escape(chart.categories[c]) +
              ": " + Escape(FormatValue(value, chart.y_format)) + "</title></rect>";
    }
  }
  return frame.Wrap(body);
}

}  // namespace archimedes::report
