#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "report/bar_chart.h"
#include "report/heat_map.h"
#include "report/html_page.h"
#include "report/line_chart.h"
#include "report/svg.h"

namespace archimedes::report {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The `d` of each drawn path. Plain string search, not std::regex: libstdc++'s regex recurses
// once per character and overflows the stack on a long path under AddressSanitizer.
std::vector<std::string> Paths(const std::string& svg) {
  std::vector<std::string> paths;
  const std::string open = "<path class=\"data";
  for (size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    const size_t begin = svg.find("d=\"", at) + 3;
    paths.push_back(svg.substr(begin, svg.find('"', begin) - begin));
  }
  return paths;
}

// The y coordinate of every point of a path made of "M x y" and "L x y" commands.
std::set<std::string> Heights(const std::string& path) {
  std::set<std::string> heights;
  std::istringstream in(path);
  std::string x, y;
  while (in >> x >> y) heights.insert(y);
  return heights;
}

TEST(SvgTest, EscapesMarkup) { EXPECT_EQ(Escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;"); }

TEST(SvgTest, NiceTicksAreRoundAndNearTheCountAsked) {
  const std::vector<double> shares = NiceTicks(0, 1, 5);
  ASSERT_EQ(shares.size(), 6u);
  for (size_t i = 0; i < shares.size(); ++i) EXPECT_NEAR(shares[i], 0.2 * i, 1e-12);
  EXPECT_EQ(NiceTicks(0, 48, 8), (std::vector<double>{0, 5, 10, 15, 20, 25, 30, 35, 40, 45}));
  EXPECT_FALSE(std::signbit(NiceTicks(0, 48, 8).front()));
  EXPECT_EQ(NiceTicks(3, 17, 3), (std::vector<double>{5, 10, 15}));
  EXPECT_EQ(NiceTicks(2, 2, 5), (std::vector<double>{2}));
}

TEST(SvgTest, FormatsValues) {
  EXPECT_EQ(FormatValue(0.456, ValueFormat::kPercent), "46%");
  EXPECT_EQ(FormatValue(12, ValueFormat::kNumber), "12");
  EXPECT_EQ(FormatValue(0.25, ValueFormat::kNumber), "0.25");
  EXPECT_EQ(Coordinate(12.04), "12");
  EXPECT_EQ(Coordinate(12.46), "12.5");
}

TEST(LineChartTest, DrawsEachSeriesThroughItsPoints) {
  LineChart chart{
      .title = "t<1>",
      .series = {{.name = "a&b", .points = {{0, 0}, {1, 2}, {2, 1}}}, {.name = "empty"}}};
  const std::string svg = RenderLineChart(chart);
  EXPECT_EQ(svg.rfind("<svg class=\"chart\"", 0), 0u);
  const std::vector<std::string> paths = Paths(svg);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(Count(paths[0], "M"), 1);
  EXPECT_EQ(Count(paths[0], "L"), 2);
  EXPECT_NE(svg.find("<title>a&amp;b</title>"), std::string::npos);
  EXPECT_NE(svg.find("aria-label=\"t&lt;1&gt;\""), std::string::npos);
  EXPECT_EQ(svg.find("t<1>"), std::string::npos);
}

TEST(LineChartTest, LongSeriesAreAveragedInBuckets) {
  LineSeries flat{.name = "flat"};
  for (int i = 0; i < 1200; ++i) flat.points.push_back({static_cast<double>(i), i % 2 ? 1.0 : 0.0});
  const std::string svg = RenderLineChart({.y_max = 1, .series = {flat}, .max_points = 600});
  const std::vector<std::string> paths = Paths(svg);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(Count(paths[0], "L"), 599);
  // Every bucket of two points averages 0 and 1: the line is flat at the middle of the plot.
  EXPECT_EQ(Heights(paths[0]).size(), 1u);
}

TEST(LineChartTest, StackedAreasRestOnOneAnother) {
  LineChart chart{
      .y_max = 4,
      .series = {
          {.name = "low", .points = {{0, 1}, {1, 1}}, .style = LineSeries::Style::kStackedArea},
          {.name = "high", .points = {{0, 2}, {1, 2}}, .style = LineSeries::Style::kStackedArea}}};
  const std::string svg = RenderLineChart(chart);
  const std::vector<std::string> paths = Paths(svg);
  ASSERT_EQ(paths.size(), 2u);
  // The top of "high" is at 1 + 2 = 3, its bottom at the top of "low", 1: a quarter and three
  // quarters of the way up the 200 px plot, which starts 30 px from the top.
  EXPECT_NE(paths[1].find(" 80"), std::string::npos) << paths[1];
  EXPECT_NE(paths[1].find(" 180"), std::string::npos) << paths[1];
  EXPECT_EQ(paths[1].find(" 230"), std::string::npos) << paths[1];
}

TEST(HeatMapTest, OneCellPerRowAndColumnAveraged) {
  HeatMap map{.row_labels = {"n1", "n2"}, .rows = {{}, {}}, .max_columns = 100};
  for (int i = 0; i < 200; ++i) {
    map.rows[0].push_back(0.5);
    map.rows[1].push_back(i % 2 ? 1.0 : 0.0);
  }
  const std::string svg = RenderHeatMap(map);
  EXPECT_EQ(Count(svg, "<rect class=\"data\""), 200);
  EXPECT_EQ(Count(svg, ": 50%</title>"), 200);
}

TEST(BarChartTest, OneBarPerSeriesAndCategory) {
  const std::string svg = RenderBarChart(
      {.categories = {"x", "y"},
       .series = {{.name = "a", .values = {1, 2}}, {.name = "b", .values = {3, 4}}}});
  EXPECT_EQ(Count(svg, "<rect class=\"data\""), 4);
  EXPECT_NE(svg.find("<title>b, y: 4</title>"), std::string::npos);
}

TEST(HtmlPageTest, SelfContainedWithEscapedText) {
  HtmlPage page("Report <1>", "scenario: a & b");
  page.AddSection("Section", "Why <this>", {HtmlTable({{"", "p"}, {"row", "1 < 2"}})});
  const std::string html = page.Render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<h1>Report &lt;1&gt;</h1>"), std::string::npos);
  EXPECT_NE(html.find("<td>1 &lt; 2</td>"), std::string::npos);
  EXPECT_NE(html.find("href=\"#s1\""), std::string::npos);
  for (const char* outside : {"<script", "http:", "https:", "src=", "<link"}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
}

}  // namespace
}  // namespace archimedes::report
