#include "report/chart_frame.h"

namespace archimedes::report {
namespace {

constexpr double kAxisSpace = 40;  // under the plot: tick labels and the axis name
constexpr double kLegendRow = 16;
constexpr double kCharWidth = 6.4;  // of the 11px sans-serif legend, for laying it out

}  // namespace

ChartFrame::ChartFrame(std::string title, double x_min, double x_max, double y_min, double y_max,
                       std::vector<std::pair<std::string, std::string>> legend, double plot_height)
    : title_(std::move(title)),
      x_min_(x_min),
      x_max_(x_max > x_min ? x_max : x_min + 1),
      y_min_(y_min),
      y_max_(y_max > y_min ? y_max : y_min + 1),
      plot_height_(plot_height),
      legend_(std::move(legend)) {}

double ChartFrame::X(double x) const {
  return left() + (x - x_min_) / (x_max_ - x_min_) * (right() - left());
}

double ChartFrame::Y(double y) const {
  return bottom() - (y - y_min_) / (y_max_ - y_min_) * plot_height_;
}

std::string ChartFrame::XAxis(const std::string& label, ValueFormat format) const {
  std::string out;
  for (double t : NiceTicks(x_min_, x_max_, 8)) {
    const std::string x = Coordinate(X(t));
    out += "<line class=\"grid\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + Coordinate(top()) +
           "\" y2=\"" + Coordinate(bottom()) + "\"/>";
    out += "<text class=\"tick\" x=\"" + x + "\" y=\"" + Coordinate(bottom() + 14) +
           "\" text-anchor=\"middle\">" + Escape(FormatValue(t, format)) + "</text>";
  }
  out += "<text class=\"axis-name\" x=\"" + Coordinate((left() + right()) / 2) + "\" y=\"" +
         Coordinate(bottom() + 30) + "\" text-anchor=\"middle\">" + Escape(label) + "</text>";
  return out;
}

std::string ChartFrame::YAxis(const std::string& label, ValueFormat format) const {
  std::string out;
  for (double t : NiceTicks(y_min_, y_max_, 5)) {
    const std::string y = Coordinate(Y(t));
    out += "<line class=\"grid\" x1=\"" + Coordinate(left()) + "\" x2=\"" + Coordinate(right()) +
           "\" y1=\"" + y + "\" y2=\"" + y + "\"/>";
    out += "<text class=\"tick\" x=\"" + Coordinate(left() - 6) + "\" y=\"" + y +
           "\" dy=\"4\" text-anchor=\"end\">" + Escape(FormatValue(t, format)) + "</text>";
  }
  const std::string mid = Coordinate((top() + bottom()) / 2);
  out += "<text class=\"axis-name\" x=\"14\" y=\"" + mid + "\" transform=\"rotate(-90 14 " + mid +
         ")\" text-anchor=\"middle\">" + Escape(label) + "</text>";
  return out;
}

std::string ChartFrame::Wrap(const std::string& body) const {
  std::string legend;
  double x = left(), y = bottom() + kAxisSpace + 8;
  for (const auto& [name, color] : legend_) {
    const double width = 18 + kCharWidth * static_cast<double>(name.size()) + 14;
    if (x + width > right() && x > left()) {
      x = left();
      y += kLegendRow;
    }
    legend += "<rect x=\"" + Coordinate(x) + "\" y=\"" + Coordinate(y - 9) +
              "\" width=\"12\" height=\"10\" fill=\"" + color + "\"/><text class=\"legend\" x=\"" +
              Coordinate(x + 16) + "\" y=\"" + Coordinate(y) + "\">" + Escape(name) + "</text>";
    x += width;
  }
  const double height = legend_.empty() ? bottom() + kAxisSpace : y + 8;
  return "<svg class=\"chart\" viewBox=\"0 0 " + Coordinate(kWidth) + " " + Coordinate(height) +
         "\" width=\"" + Coordinate(kWidth) + "\" height=\"" + Coordinate(height) +
         "\" role=\"img\" aria-label=\"" + Escape(title_) + "\"><text class=\"title\" x=\"" +
         Coordinate(left()) + "\" y=\"18\">" + Escape(title_) + "</text>" + body + legend +
         "</svg>";
}

}  // namespace archimedes::report
