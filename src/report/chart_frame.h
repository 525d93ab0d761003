// The frame the charts of this folder share: the SVG element, the title, the plot area and its
// scales, the axes with their ticks, and a legend under the plot.
#ifndef ARCHIMEDES_REPORT_CHART_FRAME_H_
#define ARCHIMEDES_REPORT_CHART_FRAME_H_

#include <string>
#include <utility>
#include <vector>

#include "report/svg.h"

namespace archimedes::report {

class ChartFrame {
 public:
  static constexpr double kWidth = 560;
  static constexpr double kPlotHeight = 200;

  // The plot maps [x_min, x_max] × [y_min, y_max] onto its area, `plot_height` high; `legend`
  // (name, colour) is laid out in rows under the x axis.
  ChartFrame(std::string title, double x_min, double x_max, double y_min, double y_max,
             std::vector<std::pair<std::string, std::string>> legend,
             double plot_height = kPlotHeight);

  double X(double x) const;
  double Y(double y) const;
  double left() const { return kLeft; }
  double right() const { return kWidth - kRight; }
  double top() const { return kTop; }
  double bottom() const { return kTop + plot_height_; }

  // Grid lines and labelled ticks; the axes' names.
  std::string XAxis(const std::string& label, ValueFormat format) const;
  std::string YAxis(const std::string& label, ValueFormat format) const;
  // `body` (the plot's elements) inside the whole SVG with its title and legend.
  std::string Wrap(const std::string& body) const;

 private:
  static constexpr double kLeft = 58, kRight = 14, kTop = 30;

  std::string title_;
  double x_min_, x_max_, y_min_, y_max_;
  double plot_height_;
  std::vector<std::pair<std::string, std::string>> legend_;
};

}  // namespace archimedes::report

#endif  // ARCHIMEDES_REPORT_CHART_FRAME_H_
