#include "cli/profile_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/text_table.h"
#include "report/bar_chart.h"
#include "report/html_page.h"

namespace archimedes::cli {
namespace {

using report::LineChart;
using report::Point;

constexpr size_t kMaxMembersListed = 30;
constexpr size_t kMaxRightSizingBars = 15;
constexpr size_t kMaxWarningRows = 100;

std::string ClassSection(const ProfileSet& set, std::vector<std::string>& figures) {
  for (int d = 0; d < kProfileDims; ++d) {
    const Dim dim = static_cast<Dim>(d);
    LineChart chart{.title = "Class shapes, " + std::string(DimName(dim)),
                    .x_label = "hour of day",
                    .y_label = "usage / class mean"};
    for (size_t c = 0; c < set.classes.size(); ++c) {
      const DailyCurve& shape = set.classes[c].mean_shape[d];
      report::LineSeries series{.name = "class " + std::to_string(set.classes[c].id)};
      const double hours_per_bin = 24.0 / shape.bins();
      for (int b = 0; b < shape.bins(); ++b) {
        series.points.push_back({b * hours_per_bin, shape[b]});
      }
      chart.series.push_back(std::move(series));
    }
    figures.push_back(report::RenderLineChart(chart));
  }
  return "Each class's mean daily curve per dimension, every member's curve divided by its own "
         "mean before averaging (1 = the class's daily mean), so that classes of different sizes "
         "compare by shape: complementary classes peak at different hours.";
}

std::string MemberSection(const ProfileSet& set, std::vector<std::string>& figures) {
  report::BarChart members{.title = "Members per class", .y_label = "applications"};
  members.series.push_back({.name = "applications"});
  std::vector<std::vector<std::string>> table = {
      {"class", "description", "members", "applications"}};
  for (const ProfileClass& c : set.classes) {
    members.categories.push_back(std::to_string(c.id));
    members.series[0].values.push_back(c.members);
    std::string names;
    size_t listed = 0, total = 0;
    for (const AppProfile& p : set.apps) {
      if (p.class_id != c.id) continue;
      ++total;
      if (listed++ < kMaxMembersListed) names += (names.empty() ? "" : ", ") + p.app;
    }
    if (total > kMaxMembersListed) {
      names += " and " + std::to_string(total - kMaxMembersListed) + " more";
    }
    table.push_back({std::to_string(c.id), c.description, std::to_string(c.members), names});
  }
  figures.push_back(report::RenderBarChart(members));
  figures.push_back(report::HtmlTable(table));
  return "How many applications fell in each class (" + set.class_criterion + "), and which.";
}

// The advice in `dim`, with why it stops short of the rule's need where it does.
std::string Advice(const AppProfile& p, Dim dim, bool normalized) {
  const std::string bound = FormatBound(p, dim, normalized);
  const std::string advice = FormatAmount(dim, p.recommended[static_cast<int>(dim)], normalized);
  return bound.empty() ? advice : advice + " (" + bound + ")";
}

double CpuSaving(const AppProfile& p) {
  return p.has_request ? (p.request[0] - p.recommended[0]) * p.replicas : 0.0;
}

std::string RightSizingSection(const ProfileSet& set, std::vector<std::string>& figures) {
  std::vector<const AppProfile*> sized;
  for (const AppProfile& p : set.apps) {
    if (p.has_request) sized.push_back(&p);
  }
  if (sized.empty()) {
    return "No current requests were given (--requests or --scenario), so there is no advice to "
           "compare with them.";
  }
  std::stable_sort(sized.begin(), sized.end(), [](const AppProfile* a, const AppProfile* b) {
    return CpuSaving(*a) > CpuSaving(*b);
  });
  report::BarChart cpu{.title = "CPU per replica: request and advice",
                       .y_label = set.normalized ? "share" : "millicores",
                       .series = {{.name = "current request"}, {.name = "recommended"}}};
  std::vector<std::vector<std::string>> table = {{"application", "class", "replicas", "cpu request",
                                                  "cpu advice", "memory request", "memory advice",
                                                  "cpu freed"}};
  for (const AppProfile* p : sized) {
    if (cpu.categories.size() < kMaxRightSizingBars) {
      cpu.categories.push_back(p->app);
      cpu.series[0].values.push_back(p->request[0]);
      cpu.series[1].values.push_back(p->recommended[0]);
    }
    table.push_back({p->app, std::to_string(p->class_id), std::to_string(p->replicas),
                     FormatAmount(Dim::kCpu, p->request[0], set.normalized),
                     Advice(*p, Dim::kCpu, set.normalized),
                     FormatAmount(Dim::kMemory, p->request[1], set.normalized),
                     Advice(*p, Dim::kMemory, set.normalized),
                     FormatAmount(Dim::kCpu, CpuSaving(*p), set.normalized)});
  }
  figures.push_back(report::RenderBarChart(cpu));
  figures.push_back(report::HtmlTable(table));
  return "Per replica, the request each application has now and the one its usage calls for "
         "(the p99 of a decaying histogram plus a margin; memory never below its peak; never "
         "above the application's limit or the largest node that could host it, where the advice "
         "says what the rule needed), largest CPU saving first (the chart shows the first " +
         std::to_string(kMaxRightSizingBars) + "). Fleet capacity freed (net): cpu " +
         FormatAmount(Dim::kCpu, set.freed[0], set.normalized) + ", memory " +
         FormatAmount(Dim::kMemory, set.freed[1], set.normalized) + ".";
}

std::string LeadTime(int64_t seconds) {
  return seconds < 0 ? "unknown" : Fixed(static_cast<double>(seconds) / 3600.0, 1) + " h";
}

std::string WarningSection(const ProfileSet& set, const WarningTrends& trends,
                           std::vector<std::string>& figures) {
  if (set.warnings.empty()) return "No health warning was raised.";
  for (size_t i = 0; i < std::min(set.warnings.size(), kMaxTrendCharts); ++i) {
    const HealthWarning& w = set.warnings[i];
    const auto trend = trends.find({w.app, w.container});
    if (trend == trends.end() || trend->second.empty()) continue;
    // Bytes read best in GiB; millicores and shares as they are.
    const bool bytes = !set.normalized && w.dim != Dim::kCpu;
    const double scale = bytes ? 1.0 / (1 << 30) : 1.0;
    LineChart chart{
        .title = std::string(WarningKindName(w.kind)) + ": " + w.app + "/" + w.container,
        .x_label = "hours",
        .y_label =
            std::string(DimName(w.dim)) + (set.normalized ? " (share)"
                                           : bytes ? (w.dim == Dim::kMemory ? " (GiB)" : " (GiB/s)")
                                                   : " (millicores)")};
    report::LineSeries usage{.name = "usage"};
    for (const Point& p : trend->second) usage.points.push_back({p.x / 3600.0, p.y * scale});
    chart.series.push_back(std::move(usage));
    chart.y_references.push_back(
        {w.expected * scale, "expected " + FormatAmount(w.dim, w.expected, set.normalized)});
    chart.x_references.push_back({static_cast<double>(w.time) / 3600.0, "warned"});
    figures.push_back(report::RenderLineChart(chart));
  }
  std::vector<std::vector<std::string>> table = {
      {"time (h)", "warning", "container", "value", "expected", "lead time to limit", "detail"}};
  for (size_t i = 0; i < std::min(set.warnings.size(), kMaxWarningRows); ++i) {
    const HealthWarning& w = set.warnings[i];
    table.push_back(
        {Fixed(static_cast<double>(w.time) / 3600.0, 1), std::string(WarningKindName(w.kind)),
         w.app + "/" + w.container, FormatAmount(w.dim, w.value, set.normalized),
         FormatAmount(w.dim, w.expected, set.normalized), LeadTime(w.lead_time_s), w.detail});
  }
  figures.push_back(report::HtmlTable(table));
  return std::to_string(set.warnings.size()) +
         " warnings, in the order they were raised (the table lists the first " +
         std::to_string(kMaxWarningRows) + "). For the first " + std::to_string(kMaxTrendCharts) +
         ", the container's usage in the dimension warned about, what its application led one "
         "to expect, and when the warning was raised.";
}

}  // namespace

std::string FormatAmount(Dim dim, double value, bool normalized) {
  // Rounded as printed, plus zero: a value that rounds to nothing prints "0.0", never "-0.0".
  auto shown = [](double v, double step) { return std::round(v / step) * step + 0.0; };
  char buffer[32];
  if (normalized) {
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
  } else if (dim == Dim::kCpu) {
    std::snprintf(buffer, sizeof buffer, "%.0fm", shown(value, 1));
  } else if (std::abs(value) >= 1 << 30) {
    std::snprintf(buffer, sizeof buffer, "%.1fGi", shown(value / (1 << 30), 0.1));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1fMi", shown(value / (1 << 20), 0.1));
  }
  return buffer;
}

std::string FormatBound(const AppProfile& p, Dim dim, bool normalized) {
  const int d = static_cast<int>(dim);
  if (p.bound[d] == AdviceBound::kNone) return "";
  return std::string(p.bound[d] == AdviceBound::kLimit ? "limit too low"
                                                       : "more than the largest node") +
         ": needs " + FormatAmount(dim, p.needed[d], normalized);
}

std::string FormatProfileReport(const ProfileSet& set, const std::string& summary,
                                const WarningTrends& trends) {
  report::HtmlPage page("Archimedes: application profiles", summary);
  auto add = [&page](const char* heading, auto section) {
    std::vector<std::string> figures;
    const std::string intro = section(figures);
    page.AddSection(heading, intro, figures);
  };
  add("Classes", [&](auto& figures) { return ClassSection(set, figures); });
  add("Members per class", [&](auto& figures) { return MemberSection(set, figures); });
  add("Right-sizing", [&](auto& figures) { return RightSizingSection(set, figures); });
  add("Health warnings", [&](auto& figures) { return WarningSection(set, trends, figures); });
  return page.Render();
}

}  // namespace archimedes::cli
