// A heat map as inline SVG: one row per item (e.g. a node), one column per time step, each cell
// coloured by its value from pale yellow (0) to dark red (`max_value` and above). Rows longer than
// `max_columns` are averaged in buckets. Each cell is a <rect class="data"> whose <title> gives
// the row, the time and the value.
#ifndef ARCHIMEDES_REPORT_HEAT_MAP_H_
#define ARCHIMEDES_REPORT_HEAT_MAP_H_

#include <string>
#include <vector>

#include "report/svg.h"

namespace archimedes::report {

struct HeatMap {
  std::string title;
  std::string x_label;
  ValueFormat x_format = ValueFormat::kNumber;
  std::vector<std::string> row_labels;
  std::vector<std::vector<double>> rows;  // value i of a row is at x_start + i × x_step
  double x_start = 0;
  double x_step = 1;
  double max_value = 1;
  ValueFormat value_format = ValueFormat::kPercent;
  size_t max_columns = 96;
};

std::string RenderHeatMap(const HeatMap& map);

}  // namespace archimedes::report

#endif  // ARCHIMEDES_REPORT_HEAT_MAP_H_
