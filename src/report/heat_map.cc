#include "report/heat_map.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "report/chart_frame.h"

namespace archimedes::report {
namespace {

constexpr double kRowHeight = 7;

// YlOrRd's ends and middle, interpolated.
std::string HeatColor(double share) {
  static constexpr std::array<std::array<double, 3>, 3> kStops = {
      {{255, 255, 204}, {253, 141, 60}, {128, 0, 38}}};
  const double t = std::clamp(share, 0.0, 1.0) * 2;
  const size_t i = std::min<size_t>(static_cast<size_t>(t), 1);
  const double f = t - static_cast<double>(i);
  char buffer[8];
  std::snprintf(
      buffer, sizeof buffer, "#%02x%02x%02x",
      static_cast<int>(std::lround(kStops[i][0] + f * (kStops[i + 1][0] - kStops[i][0]))),
      static_cast<int>(std::lround(kStops[i][1] + f * (kStops[i + 1][1] - kStops[i][1]))),
      static_cast<int>(std::lround(kStops[i][2] + f * (kStops[i + 1][2] - kStops[i][2]))));
  return buffer;
}

}  // namespace

std::string RenderHeatMap(const HeatMap& map) {
  size_t length = 0;
  for (const std::vector<double>& row : map.rows) length = std::max(length, row.size());
  const size_t bucket = std::max<size_t>(1, (length + map.max_columns - 1) / map.max_columns);
  const size_t columns = (length + bucket - 1) / bucket;
  const double x_end = map.x_start + static_cast<double>(columns * bucket) * map.x_step;
  const double rows = static_cast<double>(map.rows.size());
  std::vector<std::pair<std::string, std::string>> legend;
  for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    legend.emplace_back(FormatValue(v * map.max_value, map.value_format), HeatColor(v));
  }
  const ChartFrame frame(map.title, map.x_start, x_end, 0, std::max(rows, 1.0), std::move(legend),
                         std::max(rows, 1.0) * kRowHeight);
  std::string body = frame.XAxis(map.x_label, map.x_format);
  const double width =
      frame.X(map.x_start + static_cast<double>(bucket) * map.x_step) - frame.X(map.x_start);
  for (size_t r = 0; r < map.rows.size(); ++r) {
    const std::vector<double>& row = map.rows[r];
    const std::string y = Coordinate(frame.Y(rows - static_cast<double>(r)));
    const std::string label = r < map.row_labels.size() ? map.row_labels[r] : std::string();
    // A label on every fifth row keeps them legible; every cell's title names its row.
    if (r % 5 == 0) {
      body += "<text class=\"row-label\" x=\"" + Coordinate(frame.left() - 4) + "\" y=\"" + y +
              "\" dy=\"7\" text-anchor=\"end\">" + Escape(label) + "</text>";
    }
    for (size_t c = 0; c < columns; ++c) {
      const size_t begin = c * bucket, end = std::min(row.size(), begin + bucket);
      if (begin >= end) break;
      double sum = 0;
      for (size_t i = begin; i < end; ++i) sum += row[i];
      const double value = sum / static_cast<double>(end - begin);
      const double x = map.x_start + static_cast<double>(begin) * map.x_step;
      body += "<rect class=\"data\" x=\"" + Coordinate(frame.X(x)) + "\" y=\"" + y + "\" width=\"" +
              Coordinate(width + 0.5) + "\" height=\"" + Coordinate(kRowHeight) + "\" fill=\"" +
              HeatColor(map.max_value > 0 ? value / map.max_value : 0) + "\"><title>" +
              Escape(label) + " at " + FormatValue(x, map.x_format) + ": " +
              FormatValue(value, map.value_format) + "</title></rect>";
    }
  }
  return frame.Wrap(body);
}

}  // namespace archimedes::report
