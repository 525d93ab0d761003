// `archimedes profile`: learns application profiles from usage history (DESIGN §1.1) and prints the
// classes, their complementarity, the placement hints, the largest right-sizing savings and the
// health warnings; --out writes the profiles for `archimedes simulate --profiles`.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/profile_report.h"
#include "cli/progress.h"
#include "model/duration.h"
#include "model/node_affinity.h"
#include "model/quantile.h"
#include "model/taint.h"
#include "model/text_table.h"
#include "profile/backtest.h"
#include "profile/profile.h"
#include "profile/profiler.h"
#include "sched/plugins/node_selector.h"
#include "trace/native_format.h"
#include "trace/output_file.h"
#include "trace/profile_file.h"
#include "trace/requests_csv.h"
#include "trace/trace_error.h"
#include "trace/usage_history.h"
#include "trace/usage_history_stream.h"
#include "trace/usage_series.h"
#include "trace/usage_trace.h"

namespace archimedes::cli {
namespace {

struct ProfileArgs {
  std::vector<std::string> histories;
  std::vector<std::string> traces;
  std::string requests;
  std::string scenario;
  std::string out;
  std::string json;
  std::string report;
  std::string backtest;
  std::string curves = "calibrated";
  int bins = DailyCurve::kDefaultBins;
  int days = 7;
  uint64_t seed = 1;
  int top = 10;
  bool quiet = false;
};

// Where samples go: all to the profiler, or with a backtest, those from its split on to it.
struct SampleSink {
  Profiler& profiler;
  Backtest* backtest = nullptr;

  // `window_max`: the maxima within the sample's window, where the trace gives them.
  void Add(int64_t time, std::string_view app, std::string_view container,
           const std::array<float, kNumDims>& usage,
           const std::array<float, kNumDims>* window_max = nullptr) {
    if (backtest && time >= backtest->split()) {
      backtest->Add(time, app, container, usage, window_max);
    } else if (window_max) {
      profiler.AddWithWindowMax(profiler.ContainerIndex(app, container), time, usage, *window_max);
    } else {
      profiler.Add(time, app, container, usage);
    }
  }
};

// How many rows ahead the profiler is told what is coming (Profiler::Prefetch): enough for memory
// to answer, few enough that the lines are still there when the row comes.
constexpr size_t kPrefetchAhead = 8;

void ReadHistory(const std::string& path, SampleSink& sink, ProgressLine& progress) {
  UsageHistoryStream stream(path);
  // By series of the file: its names, and its container in the profiler (looked up once).
  std::vector<std::pair<std::string, std::string>> names;
  std::vector<int> containers;
  UsageBatch batch;
  while (stream.Next(batch)) {
    for (auto& series : batch.new_series) names.push_back(std::move(series));
    containers.resize(names.size(), -1);
    for (size_t i = 0; i < batch.rows.size(); ++i) {
      const UsageRow& r = batch.rows[i];
      if (i + 2 * kPrefetchAhead < batch.rows.size()) {
        const int ahead = containers[batch.rows[i + 2 * kPrefetchAhead].series];
        if (ahead >= 0) sink.profiler.PrefetchRecord(ahead);
      }
      if (i + kPrefetchAhead < batch.rows.size()) {
        const UsageRow& ahead = batch.rows[i + kPrefetchAhead];
        if (containers[ahead.series] >= 0) {
          sink.profiler.PrefetchData(containers[ahead.series], ahead.time);
        }
      }
      const auto& [app, container] = names[r.series];
      if (sink.backtest && r.time >= sink.backtest->split()) {
        sink.backtest->Add(r.time, app, container, r.usage);
        continue;
      }
      int& index = containers[r.series];
      if (index < 0) index = sink.profiler.ContainerIndex(app, container);
      sink.profiler.Add(index, r.time, r.usage);
    }
    progress.UpdateCount("reading " + path + ": " + std::to_string(batch.last_line) + " rows");
  }
}

// Series times need not start at a day boundary; they are profiled in trace time. Each app's
// limit and largest node are the largest its series give, in the trace's own units.
bool AddSeries(const std::vector<UsageSeries>& series, SampleSink& sink) {
  Profiler& profiler = sink.profiler;
  bool normalized = false;
  std::map<std::string, std::array<double, kNumDims>> limits, largest_nodes;
  for (const UsageSeries& s : series) {
    normalized |= s.normalized;
    std::array<double, kNumDims>& limit = limits[s.app];
    std::array<double, kNumDims>& largest_node = largest_nodes[s.app];
    for (int d = 0; d < kNumDims; ++d) {
      limit[d] = std::max(limit[d], s.limit[d]);
      largest_node[d] = std::max(largest_node[d], s.largest_node[d]);
    }
  }
  for (const auto& [app, limit] : limits) profiler.SetLimit(app, limit);
  for (const auto& [app, capacity] : largest_nodes) profiler.SetLargestNode(app, capacity);
  for (const UsageSeries& s : series) {
    const bool with_window_max = std::any_of(s.window_max.begin(), s.window_max.end(),
                                             [](const auto& v) { return !v.empty(); });
    std::array<float, kNumDims> usage{}, window_max{};
    for (size_t i = 0; i < s.times.size(); ++i) {
      for (int d = 0; d < kNumDims; ++d) {
        usage[d] = s.values[d].empty() ? 0.0f : s.values[d][i];
        window_max[d] = s.window_max[d].empty() ? -1.0f : s.window_max[d][i];
      }
      sink.Add(s.times[i], s.app, s.id, usage, with_window_max ? &window_max : nullptr);
    }
  }
  return normalized;
}

// Whether `node` could run a replica of `service` at all: its node selector, required affinity and
// tolerations admit the node, and one replica's requests fit what the node can allocate.
bool CouldHost(const Node& node, const Service& service) {
  for (const auto& [key, value] : service.node_selector) {
    if (!LabelMatches(node, key, value)) return false;
  }
  return MatchesRequiredAffinity(service.node_affinity, node) &&
         FirstUntoleratedTaint(node.taints, service.tolerations) == nullptr &&
         service.requests.FitsIn(node.allocatable);
}

// A scenario's requests and limits, and the largest nodes: of the fleet (for apps the scenario
// does not name) and, per service, of the nodes that could host it.
void SetFromScenario(const Scenario& scenario, Profiler& profiler) {
  profiler.SetRequests(scenario);
  std::array<double, kNumDims> fleet{};
  for (const Node& node : scenario.nodes) {
    for (int d = 0; d < kNumDims; ++d) {
      fleet[d] = std::max(fleet[d], static_cast<double>(node.allocatable.amount[d]));
    }
  }
  profiler.SetLargestNode(fleet);
  for (const Service& service : scenario.workload.services) {
    std::array<double, kNumDims> largest{};
    for (const Node& node : scenario.nodes) {
      if (!CouldHost(node, service)) continue;
      for (int d = 0; d < kNumDims; ++d) {
        largest[d] = std::max(largest[d], static_cast<double>(node.allocatable.amount[d]));
      }
    }
    profiler.SetLargestNode(AppName(service), largest);
  }
}

using Align = TextTable::Align;

void Print(const ProfileSet& set, const ProfileArgs& args, const Profiler& profiler) {
  std::printf("profiled %d applications, %d containers, %lld samples%s\n",
              static_cast<int>(set.apps.size()), profiler.num_containers(),
              static_cast<long long>(profiler.samples()),
              set.normalized ? " (normalised units: shares as the trace gives them)" : "");
  std::printf("\nclasses (%s)\n", set.class_criterion.c_str());
  TextTable classes({{.width = 2, .align = Align::kRight, .separator = "  "},
                     {.width = 10, .align = Align::kRight, .separator = "  "},
                     {.width = 48, .align = Align::kLeft, .separator = "  "},
                     {.width = 0, .align = Align::kLeft, .separator = " e.g. "}});
  for (const ProfileClass& c : set.classes) {
    std::string examples;
    int shown = 0;
    for (const AppProfile& p : set.apps) {
      if (p.class_id != c.id || shown == 3) continue;
      examples += (shown++ ? ", " : "") + p.app;
    }
    classes.AddRow(
        {std::to_string(c.id), std::to_string(c.members) + " apps", c.description, examples});
  }
  std::fputs(classes.Format().c_str(), stdout);

  std::printf("\ncomplementarity: peak reduction when co-located (mean over dims)\n");
  std::vector<TextTable::Column> columns = {
      {.width = 2, .align = Align::kRight, .separator = "  "},
      {.width = 6, .align = Align::kRight, .separator = "  "}};
  columns.resize(set.classes.size() + 1, {.width = 6, .align = Align::kRight});
  TextTable matrix(std::move(columns));
  std::vector<std::string> header = {""};
  for (const ProfileClass& c : set.classes) header.push_back(std::to_string(c.id));
  matrix.AddRow(std::move(header));
  for (const ProfileClass& a : set.classes) {
    std::vector<std::string> row = {std::to_string(a.id)};
    for (const ProfileClass& b : set.classes) {
      for (const ClassPair& p : set.complementarity) {
        if ((p.a == a.id && p.b == b.id) || (p.a == b.id && p.b == a.id)) {
          row.push_back(Fixed(100.0 * p.score, 0) + "%");
        }
      }
    }
    matrix.AddRow(std::move(row));
  }
  std::fputs(matrix.Format().c_str(), stdout);

  std::printf("\nplacement hints\n");
  if (set.hints.empty()) std::printf("  none\n");
  TextTable hints({{.width = 13, .align = Align::kLeft, .separator = "  "},
                   {.width = 0, .align = Align::kLeft, .separator = " "}});
  for (const PlacementHint& h : set.hints) {
    hints.AddRow({std::string(HintKindName(h.kind)),
                  std::to_string(h.a) + " + " + std::to_string(h.b) + ": " + h.reason});
  }
  std::fputs(hints.Format().c_str(), stdout);

  std::vector<const AppProfile*> sized;
  for (const AppProfile& p : set.apps) sized.push_back(&p);
  auto saving = [](const AppProfile* p) {
    return p->has_request ? (p->request[0] - p->recommended[0]) * p->replicas : 0.0;
  };
  std::stable_sort(sized.begin(), sized.end(),
                   [&](const AppProfile* x, const AppProfile* y) { return saving(x) > saving(y); });
  std::printf(
      "\nright-sizing (per replica; p%g of a decaying histogram + margin, memory >= peak)\n",
      100 * 0.99);
  TextTable sizes({{.width = 28, .align = Align::kLeft, .separator = "  "},
                   {.width = 0, .align = Align::kLeft}});
  for (int i = 0; i < std::min<int>(args.top, static_cast<int>(sized.size())); ++i) {
    const AppProfile& p = *sized[i];
    std::string amounts;
    for (Dim d : {Dim::kCpu, Dim::kMemory}) {
      int k = static_cast<int>(d);
      amounts +=
          "  " + std::string(DimName(d)) + " " + FormatAmount(d, p.recommended[k], set.normalized);
      if (p.has_request)
        amounts += " (request " + FormatAmount(d, p.request[k], set.normalized) + ")";
      const std::string bound = FormatBound(p, d, set.normalized);
      if (!bound.empty()) amounts += " [" + bound + "]";
    }
    if (p.has_request) amounts += "  x" + std::to_string(p.replicas) + " replicas";
    sizes.AddRow({p.app, amounts});
  }
  std::fputs(sizes.Format().c_str(), stdout);
  bool any_request = std::any_of(set.apps.begin(), set.apps.end(),
                                 [](const AppProfile& p) { return p.has_request; });
  if (any_request) {
    std::printf("  fleet capacity freed (net): cpu %s, memory %s, disk %s/s, network %s/s\n",
                FormatAmount(Dim::kCpu, set.freed[0], set.normalized).c_str(),
                FormatAmount(Dim::kMemory, set.freed[1], set.normalized).c_str(),
                FormatAmount(Dim::kDisk, set.freed[2], set.normalized).c_str(),
                FormatAmount(Dim::kNetwork, set.freed[3], set.normalized).c_str());
  } else {
    std::printf("  (no current requests given: --requests or --scenario to compute savings)\n");
  }

  std::printf("\nhealth warnings: %zu\n", set.warnings.size());
  TextTable warnings({{.width = 9, .align = Align::kLeft, .separator = "  t="},
                      {.width = 18, .align = Align::kLeft, .separator = " "},
                      {.width = 0, .align = Align::kLeft, .separator = " "}});
  for (size_t i = 0; i < std::min<size_t>(set.warnings.size(), args.top); ++i) {
    const HealthWarning& w = set.warnings[i];
    std::string lead = w.lead_time_s < 0 ? "unknown" : std::to_string(w.lead_time_s / 3600) + "h";
    warnings.AddRow({std::to_string(w.time), std::string(WarningKindName(w.kind)),
                     w.app + "/" + w.container + ": " + w.detail + "; lead time to limit " + lead});
  }
  std::fputs(warnings.Format().c_str(), stdout);
}

void PrintAdvice(const BacktestScore& score, bool normalized, int top) {
  std::printf(
      "\nright-sizing on the held-back part: Archimedes (p99 x 1.2, bounded) against VPA's rule "
      "(p90 x 1.15) learned on the same part; coverage = held-back samples (what their window "
      "reached, where the trace says) at or below the advice, slack = advice / mean held-back "
      "usage, 99%% needs = the least slack of any advice "
      "covering 99%% of the held-back samples (their p99 / mean)\n");
  TextTable table({{.width = 28, .align = Align::kLeft, .separator = "  "},
                   {.width = 6, .align = Align::kLeft, .separator = "  "},
                   {.width = 10, .align = Align::kRight, .separator = "  "},
                   {.width = 8, .align = Align::kRight, .separator = "  "},
                   {.width = 6, .align = Align::kRight, .separator = "  "},
                   {.width = 10, .align = Align::kRight, .separator = "  "},
                   {.width = 8, .align = Align::kRight, .separator = "  "},
                   {.width = 6, .align = Align::kRight, .separator = "  "},
                   {.width = 9, .align = Align::kRight, .separator = "  "}});
  table.AddRow(
      {"app", "dim", "advice", "coverage", "slack", "VPA", "coverage", "slack", "99% needs"});
  // Per dim: coverage, slack, VPA's coverage, slack, and the least slack 99 % coverage allows.
  std::array<std::array<double, 5>, 2> sums{};
  std::array<int, 2> apps{};
  int shown = 0;
  for (const AdviceScore& a : score.advice) {
    const int d = static_cast<int>(a.dim);
    sums[d][0] += a.coverage;
    sums[d][1] += a.slack;
    sums[d][2] += a.vpa_coverage;
    sums[d][3] += a.vpa_slack;
    sums[d][4] += a.least_slack;
    ++apps[d];
    if (shown++ >= 2 * top) continue;
    table.AddRow({a.app, std::string(DimName(a.dim)), FormatAmount(a.dim, a.advice, normalized),
                  Percent(a.coverage), Fixed(a.slack, 2), FormatAmount(a.dim, a.vpa, normalized),
                  Percent(a.vpa_coverage), Fixed(a.vpa_slack, 2), Fixed(a.least_slack, 2)});
  }
  for (int d = 0; d < 2; ++d) {
    if (apps[d] == 0) continue;
    const double n = apps[d];
    table.AddRow({"mean over " + std::to_string(apps[d]) + " apps",
                  std::string(DimName(static_cast<Dim>(d))), "", Percent(sums[d][0] / n),
                  Fixed(sums[d][1] / n, 2), "", Percent(sums[d][2] / n), Fixed(sums[d][3] / n, 2),
                  Fixed(sums[d][4] / n, 2)});
  }
  std::fputs(table.Format().c_str(), stdout);
}

void PrintCurves(const BacktestScore& score, double high_quantile) {
  std::printf(
      "\ncurves on the held-back part: coverage = samples at or below the high curve (nominal "
      "%s; with window maxima, what the window reached), first day = the same in the day after "
      "the split, error = sum |sample - mean curve| / sum sample\n",
      Percent(high_quantile).c_str());
  TextTable table({{.width = 8, .align = Align::kLeft, .separator = "  "},
                   {.width = 10, .align = Align::kRight, .separator = "  "},
                   {.width = 8, .align = Align::kRight, .separator = "  "},
                   {.width = 14, .align = Align::kRight, .separator = "  "},
                   {.width = 9, .align = Align::kRight, .separator = "  "},
                   {.width = 10, .align = Align::kRight, .separator = "  "}});
  table.AddRow({"dim", "samples", "coverage", "mean over apps", "first day", "mean error"});
  for (int d = 0; d < kProfileDims; ++d) {
    const CurveScore& c = score.curves[d];
    if (c.samples == 0) continue;
    table.AddRow({std::string(DimName(static_cast<Dim>(d))), std::to_string(c.samples),
                  Percent(c.coverage), Percent(c.app_coverage),
                  c.first_day_samples > 0 ? Percent(c.first_day_coverage) : "-",
                  Percent(c.mean_error)});
  }
  std::fputs(table.Format().c_str(), stdout);
}

void PrintBacktest(const BacktestScore& score, bool normalized, double high_quantile, int top) {
  std::printf(
      "\nbacktest: learned before t=%s, warnings scored on the rest (%d containers, %d with a "
      "limit; an incident = a 30-min mean at 99 %% of the limit)\n",
      FormatDuration(score.split).c_str(), score.containers, score.with_limit);
  TextTable kinds({{.width = 18, .align = Align::kLeft, .separator = "  "},
                   {.width = 8, .align = Align::kRight, .separator = "  "},
                   {.width = 9, .align = Align::kRight, .separator = "  "},
                   {.width = 9, .align = Align::kRight, .separator = "  "},
                   {.width = 0, .align = Align::kRight, .separator = "  "}});
  kinds.AddRow({"kind", "warnings", "came true", "precision", "lead time (median, range)"});
  for (int k = 0; k < 3; ++k) {
    const BacktestKindScore& s = score.kinds[k];
    std::vector<float> leads = s.lead_hours;
    std::string lead = "-";
    if (!leads.empty()) {
      auto [lo, hi] = std::minmax_element(leads.begin(), leads.end());
      lead = Fixed(Median(leads), 1) + " h (" + Fixed(*lo, 1) + "-" + Fixed(*hi, 1) + ")";
    }
    kinds.AddRow({std::string(WarningKindName(static_cast<WarningKind>(k))),
                  std::to_string(s.warnings), std::to_string(s.came_true),
                  s.warnings ? Percent(static_cast<double>(s.came_true) / s.warnings) : "-", lead});
  }
  std::fputs(kinds.Format().c_str(), stdout);
  std::printf("  incidents (containers at their limit after the split) and recall:");
  for (int d = 0; d < kProfileDims; ++d) {
    std::printf(" %s %d", std::string(DimName(static_cast<Dim>(d))).c_str(), score.incidents[d]);
    if (score.incidents[d] > 0) {
      std::printf(" (%s warned)",
                  Percent(static_cast<double>(score.warned[d]) / score.incidents[d]).c_str());
    }
  }
  std::printf("\n");
  PrintCurves(score, high_quantile);
  PrintAdvice(score, normalized, top);
}

nlohmann::json BacktestJson(const BacktestScore& score) {
  nlohmann::json json = {
      {"split", score.split}, {"containers", score.containers}, {"with_limit", score.with_limit}};
  for (int k = 0; k < 3; ++k) {
    const BacktestKindScore& s = score.kinds[k];
    json["kinds"][std::string(WarningKindName(static_cast<WarningKind>(k)))] = {
        {"warnings", s.warnings}, {"came_true", s.came_true}, {"lead_hours", s.lead_hours}};
  }
  for (int d = 0; d < kProfileDims; ++d) {
    std::string name(DimName(static_cast<Dim>(d)));
    json["incidents"][name] = score.incidents[d];
    json["incidents_warned"][name] = score.warned[d];
  }
  for (int d = 0; d < kProfileDims; ++d) {
    const CurveScore& c = score.curves[d];
    json["curves"][std::string(DimName(static_cast<Dim>(d)))] = {
        {"samples", c.samples},
        {"coverage", c.coverage},
        {"app_coverage", c.app_coverage},
        {"first_day_coverage", c.first_day_coverage},
        {"mean_error", c.mean_error}};
  }
  json["advice"] = nlohmann::json::array();
  for (const AdviceScore& a : score.advice) {
    json["advice"].push_back({{"app", a.app},
                              {"dim", DimName(a.dim)},
                              {"advice", a.advice},
                              {"coverage", a.coverage},
                              {"slack", a.slack},
                              {"vpa", a.vpa},
                              {"vpa_coverage", a.vpa_coverage},
                              {"vpa_slack", a.vpa_slack},
                              {"least_slack_at_99", a.least_slack}});
  }
  return json;
}

void WriteReport(const ProfileSet& set, const std::optional<BacktestScore>& backtest,
                 const std::string& path) {
  nlohmann::json report;
  report["class_criterion"] = set.class_criterion;
  report["normalized"] = set.normalized;
  for (const ProfileClass& c : set.classes) {
    report["classes"].push_back(
        {{"id", c.id}, {"description", c.description}, {"members", c.members}});
  }
  for (const ClassPair& p : set.complementarity) {
    report["complementarity"].push_back({{"a", p.a}, {"b", p.b}, {"score", p.score}});
  }
  for (const PlacementHint& h : set.hints) {
    report["hints"].push_back(
        {{"a", h.a}, {"b", h.b}, {"kind", HintKindName(h.kind)}, {"reason", h.reason}});
  }
  for (const AppProfile& p : set.apps) {
    nlohmann::json app = {{"app", p.app}, {"class", p.class_id}, {"replicas", p.replicas}};
    for (int d = 0; d < kProfileDims; ++d) {
      std::string name(DimName(static_cast<Dim>(d)));
      app["recommended"][name] = p.recommended[d];
      if (p.has_request) app["request"][name] = p.request[d];
      if (p.growth[d] != 0.0f) app["growth_per_day"][name] = p.growth[d];
      if (p.bound[d] != AdviceBound::kNone) {
        app["bounded"][name] = {{"by", AdviceBoundName(p.bound[d])}, {"needed", p.needed[d]}};
      }
    }
    report["applications"].push_back(std::move(app));
  }
  for (const HealthWarning& w : set.warnings) {
    report["warnings"].push_back({{"app", w.app},
                                  {"container", w.container},
                                  {"kind", WarningKindName(w.kind)},
                                  {"time", w.time},
                                  {"lead_time_s", w.lead_time_s},
                                  {"detail", w.detail}});
  }
  if (backtest) report["backtest"] = BacktestJson(*backtest);
  WriteJsonFile(path, report);
}

// The usage of the containers the first warnings name, read again from the inputs: the profiler
// keeps no samples.
WarningTrends ReadWarningTrends(const ProfileSet& set, const ProfileArgs& args) {
  std::map<std::pair<std::string, std::string>, Dim> warned;
  for (size_t i = 0; i < std::min(set.warnings.size(), kMaxTrendCharts); ++i) {
    warned.emplace(std::pair(set.warnings[i].app, set.warnings[i].container), set.warnings[i].dim);
  }
  WarningTrends trends;
  if (warned.empty()) return trends;
  std::pair<std::string, std::string> key;
  for (const std::string& h : args.histories) {
    UsageHistoryReader reader(h);
    while (reader.Next()) {
      const UsageRecord& r = reader.record();
      key.first.assign(r.app);
      key.second.assign(r.container);
      const auto it = warned.find(key);
      if (it == warned.end()) continue;
      trends[key].push_back({static_cast<double>(r.time), r.usage[static_cast<int>(it->second)]});
    }
  }
  for (const std::string& t : args.traces) {
    ReadUsageTrace(t, [&](const std::vector<UsageSeries>& series) {
      for (const UsageSeries& s : series) {
        const auto it = warned.find({s.app, s.id});
        if (it == warned.end() || s.values[static_cast<int>(it->second)].empty()) continue;
        std::vector<report::Point>& trend = trends[{s.app, s.id}];
        for (size_t i = 0; i < s.times.size(); ++i) {
          trend.push_back(
              {static_cast<double>(s.times[i]), s.values[static_cast<int>(it->second)][i]});
        }
      }
    });
  }
  return trends;
}

void Run(const ProfileArgs& args) {
  if (args.histories.empty() && args.traces.empty()) {
    throw CLI::ValidationError("profile", "give --history FILE or --trace SPEC");
  }
  for (const std::string& path : {args.out, args.json, args.report}) {
    if (!path.empty()) CheckWritable(path);
  }
  ProfileOptions options;
  options.bins = args.bins;
  options.max_days = args.days;
  options.seed = args.seed;
  options.calibrated = args.curves == "calibrated";
  bool normalized = false;
  Profiler profiler(options);
  if (!args.scenario.empty()) SetFromScenario(ReadScenarioFile(args.scenario), profiler);
  if (!args.requests.empty()) {
    for (const AppRequests& r : ReadRequestsFile(args.requests)) {
      profiler.SetRequest(r.app, r.request, r.replicas);
    }
  }
  ProgressLine progress(ProgressModeFor(args.quiet), "profile");
  std::optional<Backtest> backtest;
  if (!args.backtest.empty()) {
    try {
      backtest.emplace(profiler, ParseDuration(args.backtest));
    } catch (const DurationError& e) {
      throw CLI::ValidationError("--backtest", e.what());
    }
  }
  SampleSink sink{profiler, backtest ? &*backtest : nullptr};
  for (const std::string& h : args.histories) ReadHistory(h, sink, progress);
  for (const std::string& t : args.traces) {
    size_t series_read = 0;
    ReadUsageTrace(t, [&](const std::vector<UsageSeries>& series) {
      normalized |= AddSeries(series, sink);
      series_read += series.size();
      progress.UpdateCount("reading " + t + ": " + std::to_string(series_read) + " series");
    });
  }
  progress.UpdateCount("learning the classes of " + std::to_string(profiler.num_containers()) +
                       " containers");
  ProfileSet set = profiler.Finish();
  progress.Finish(std::to_string(set.apps.size()) + " applications profiled");
  set.normalized = normalized;
  Print(set, args, profiler);
  std::optional<BacktestScore> score;
  if (backtest) {
    score = backtest->Score(set);
    PrintBacktest(*score, set.normalized, set.high_quantile, args.top);
  }
  if (!args.out.empty()) WriteProfilesFile(set, args.out);
  if (!args.json.empty()) WriteReport(set, score, args.json);
  if (!args.report.empty()) {
    const std::string page = FormatProfileReport(
        set,
        std::to_string(set.apps.size()) + " applications, " +
            std::to_string(profiler.num_containers()) + " containers, " +
            std::to_string(profiler.samples()) + " samples" +
            (set.normalized ? " (normalised units: shares as the trace gives them)" : ""),
        ReadWarningTrends(set, args));
    WriteFileAtomically(args.report, page);
  }
}

}  // namespace

void AddProfileCommand(CLI::App& app) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd =
      app.add_subcommand("profile",
                         "Learn application profiles from usage history: classes, complementarity, "
                         "right-sizing, health warnings");
  cmd->add_option("--history", args->histories,
                  "usage history CSV (time,app,container,cpu,memory,disk,network); repeatable");
  cmd->add_option("--trace", args->traces,
                  "real usage trace: google2019:DIR, alibaba2018:FILE, aggregates:DIR, or a path "
                  "to auto-detect; "
                  "repeatable");
  cmd->add_option("--requests", args->requests,
                  "current per-replica requests: CSV app,cpu,memory,disk,network[,replicas]");
  cmd->add_option("--scenario", args->scenario, "take current requests from a scenario file");
  cmd->add_option("--out", args->out, "write the profiles (JSON, docs/profiles.md)");
  cmd->add_option("--json", args->json, "write the printed report as JSON");
  cmd->add_option("--report", args->report,
                  "write an HTML report: class curves, members, right-sizing, health warnings "
                  "with their trend (one self-contained file, docs/reports.md)");
  cmd->add_option("--backtest", args->backtest,
                  "learn on the samples before this trace time (a duration, e.g. 5d) and score "
                  "the health warnings against the rest: precision, recall, lead time per kind");
  cmd->add_option("--curves", args->curves,
                  "calibrated: the high curve is the empirical quantile of days left out and the "
                  "curves follow a day-over-day trend; normal: mean + z x standard deviation "
                  "over a flat history")
      ->check(CLI::IsMember({"calibrated", "normal"}))
      ->capture_default_str();
  cmd->add_option("--bins", args->bins, "bins per day")->capture_default_str();
  cmd->add_option("--days", args->days, "most recent days kept per application")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the classification")->capture_default_str();
  cmd->add_option("--top", args->top, "rows of savings and warnings printed")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "Show no progress on stderr");
  cmd->callback([args] { Run(*args); });
}

}  // namespace archimedes::cli
