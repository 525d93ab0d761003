#include "report/line_chart.h"

#include <algorithm>
#include <cmath>

#include "report/chart_frame.h"

namespace archimedes::report {
namespace {

// Consecutive points averaged in buckets, so that at most `max_points` remain.
std::vector<Point> Thin(const std::vector<Point>& points, size_t max_points) {
  if (points.size() <= max_points || max_points == 0) return points;
  const size_t bucket = (points.size() + max_points - 1) / max_points;
  std::vector<Point> out;
  for (size_t i = 0; i < points.size(); i += bucket) {
    const size_t end = std::min(points.size(), i + bucket);
    Point mean;
    for (size_t j = i; j < end; ++j) {
      mean.x += points[j].x;
      mean.y += points[j].y;
    }
    mean.x /= static_cast<double>(end - i);
    mean.y /= static_cast<double>(end - i);
    out.push_back(mean);
  }
  return out;
}

std::string PathThrough(const ChartFrame& frame, const std::vector<Point>& points, bool steps) {
  std::string d;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string x = Coordinate(frame.X(points[i].x));
    const std::string y = Coordinate(frame.Y(points[i].y));
    if (i == 0) {
      d += "M" + x + " " + y;
    } else if (steps) {
      d += " H" + x + " V" + y;
    } else {
      d += " L" + x + " " + y;
    }
  }
  return d;
}

}  // namespace

std::string RenderLineChart(const LineChart& chart) {
  // What is drawn: thinned series, stacked areas added up.
  std::vector<std::vector<Point>> drawn;
  std::vector<Point> stack_top;
  double x_min = INFINITY, x_max = -INFINITY, y_max = chart.y_min;
  for (const LineSeries& s : chart.series) {
    std::vector<Point> points = Thin(s.points, chart.max_points);
    if (s.style == LineSeries::Style::kStackedArea) {
      for (size_t i = 0; i < points.size(); ++i) {
        if (i < stack_top.size()) points[i].y += stack_top[i].y;
      }
      stack_top = points;
    }
    for (const Point& p : points) {
      x_min = std::min(x_min, p.x);
      x_max = std::max(x_max, p.x);
      y_max = std::max(y_max, p.y);
    }
    drawn.push_back(std::move(points));
  }
  for (const Band& b : chart.bands) {
    x_min = std::min(x_min, b.from);
    x_max = std::max(x_max, b.to);
  }
  for (const Reference& r : chart.x_references) {
    x_min = std::min(x_min, r.at);
    x_max = std::max(x_max, r.at);
  }
  if (!std::isfinite(x_min)) x_min = x_max = 0;
  for (const Reference& r : chart.y_references) y_max = std::max(y_max, r.at);
  const double top = chart.y_max.value_or(chart.y_min + (y_max - chart.y_min) * 1.08);

  std::vector<std::pair<std::string, std::string>> legend;
  std::vector<std::string> colors;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    colors.push_back(chart.series[i].color.empty() ? SeriesColor(i) : chart.series[i].color);
    legend.emplace_back(chart.series[i].name, colors.back());
  }
  const ChartFrame frame(chart.title, x_min, x_max, chart.y_min, top, std::move(legend));

  std::string body;
  for (const Band& b : chart.bands) {
    body += "<rect class=\"band\" x=\"" + Coordinate(frame.X(b.from)) + "\" y=\"" +
            Coordinate(frame.top()) + "\" width=\"" + Coordinate(frame.X(b.to) - frame.X(b.from)) +
            "\" height=\"" + Coordinate(frame.bottom() - frame.top()) + "\"/>";
  }
  body += frame.XAxis(chart.x_label, chart.x_format) + frame.YAxis(chart.y_label, chart.y_format);
  std::vector<Point> baseline;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& s = chart.series[i];
    const std::vector<Point>& points = drawn[i];
    if (points.empty()) continue;
    const std::string title = "<title>" + Escape(s.name) + "</title>";
    if (s.style == LineSeries::Style::kStackedArea) {
      // Along the top, then back along the previous area's top (or the axis).
      std::string d = PathThrough(frame, points, false);
      for (size_t j = points.size(); j-- > 0;) {
        const double below = j < baseline.size() ? baseline[j].y : chart.y_min;
        d += " L" + Coordinate(frame.X(points[j].x)) + " " + Coordinate(frame.Y(below));
      }
      body += "<path class=\"data area\" d=\"" + d + " Z\" fill=\"" + colors[i] +
              "\" fill-opacity=\"0.55\" stroke=\"" + colors[i] + "\">" + title + "</path>";
      baseline = points;
    } else {
      body += "<path class=\"data\" d=\"" + PathThrough(frame, points, chart.steps) +
              "\" fill=\"none\" stroke=\"" + colors[i] + "\" stroke-width=\"1.6\"" +
              (s.style == LineSeries::Style::kDashed ? " stroke-dasharray=\"6 3\"" : "") + ">" +
              title + "</path>";
    }
  }
  for (const Reference& r : chart.y_references) {
    const std::string y = Coordinate(frame.Y(r.at));
    body += "<line class=\"reference\" x1=\"" + Coordinate(frame.left()) + "\" x2=\"" +
            Coordinate(frame.right()) + "\" y1=\"" + y + "\" y2=\"" + y +
            "\"/><text class=\"reference-label\" x=\"" + Coordinate(frame.right() - 4) + "\" y=\"" +
            y + "\" dy=\"-3\" text-anchor=\"end\">" + Escape(r.label) + "</text>";
  }
  for (const Reference& r : chart.x_references) {
    const std::string x = Coordinate(frame.X(r.at));
    body += "<line class=\"reference\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" +
            Coordinate(frame.top()) + "\" y2=\"" + Coordinate(frame.bottom()) +
            "\"/><text class=\"reference-label\" x=\"" + x + "\" y=\"" +
            Coordinate(frame.top() + 12) + "\" dx=\"4\">" + Escape(r.label) + "</text>";
  }
  // Bands' labels last, at their foot, clear of the reference lines near the top and over the
  // data (the style gives them a halo).
  for (const Band& b : chart.bands) {
    body += "<text class=\"band-label\" x=\"" + Coordinate(frame.X(b.from) + 4) + "\" y=\"" +
            Coordinate(frame.bottom() - 5) + "\">" + Escape(b.label) + "</text>";
  }
  return frame.Wrap(body);
}

}  // namespace archimedes::report
