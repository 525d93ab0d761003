// `archimedes profile`: learns application profiles from usage history (DESIGN §1.1) and prints the
// classes, their complementarity, the placement hints, the largest right-sizing savings and the
// health warnings; --out writes the profiles for `archimedes simulate --profiles`.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "model/text_table.h"
#include "profile/profile.h"
#include "profile/profiler.h"
#include "trace/native_format.h"
#include "trace/output_file.h"
#include "trace/profile_file.h"
#include "trace/requests_csv.h"
#include "trace/trace_error.h"
#include "trace/usage_history.h"
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
  int bins = DailyCurve::kDefaultBins;
  int days = 7;
  uint64_t seed = 1;
  int top = 10;
};

void ReadHistory(const std::string& path, Profiler& profiler) {
  UsageHistoryReader reader(path);
  while (reader.Next()) {
    const UsageRecord& r = reader.record();
    profiler.Add(r.time, r.app, r.container, r.usage);
  }
}

// Series times need not start at a day boundary; they are profiled in trace time.
bool AddSeries(const std::vector<UsageSeries>& series, Profiler& profiler) {
  bool normalized = false;
  std::map<std::string, std::array<double, kNumDims>> limits;
  for (const UsageSeries& s : series) {
    normalized |= s.normalized;
    std::array<double, kNumDims>& limit = limits[s.app];
    for (int d = 0; d < kNumDims; ++d) limit[d] = std::max(limit[d], s.limit[d]);
  }
  for (const auto& [app, limit] : limits) profiler.SetLimit(app, limit);
  for (const UsageSeries& s : series) {
    int container = profiler.ContainerIndex(s.app, s.id);
    std::array<float, kNumDims> usage{};
    for (size_t i = 0; i < s.times.size(); ++i) {
      for (int d = 0; d < kNumDims; ++d) usage[d] = s.values[d].empty() ? 0.0f : s.values[d][i];
      profiler.Add(container, s.times[i], usage);
    }
  }
  return normalized;
}

std::string Amount(Dim dim, double value, bool normalized) {
  char buffer[32];
  if (normalized) {
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
  } else if (dim == Dim::kCpu) {
    std::snprintf(buffer, sizeof buffer, "%.0fm", value);
  } else if (std::abs(value) >= 1 << 30) {
    std::snprintf(buffer, sizeof buffer, "%.1fGi", value / (1 << 30));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1fMi", value / (1 << 20));
  }
  return buffer;
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
      amounts += "  " + std::string(DimName(d)) + " " + Amount(d, p.recommended[k], set.normalized);
      if (p.has_request) amounts += " (request " + Amount(d, p.request[k], set.normalized) + ")";
    }
    if (p.has_request) amounts += "  x" + std::to_string(p.replicas) + " replicas";
    sizes.AddRow({p.app, amounts});
  }
  std::fputs(sizes.Format().c_str(), stdout);
  bool any_request = std::any_of(set.apps.begin(), set.apps.end(),
                                 [](const AppProfile& p) { return p.has_request; });
  if (any_request) {
    std::printf("  fleet capacity freed (net): cpu %s, memory %s, disk %s/s, network %s/s\n",
                Amount(Dim::kCpu, set.freed[0], set.normalized).c_str(),
                Amount(Dim::kMemory, set.freed[1], set.normalized).c_str(),
                Amount(Dim::kDisk, set.freed[2], set.normalized).c_str(),
                Amount(Dim::kNetwork, set.freed[3], set.normalized).c_str());
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

void WriteReport(const ProfileSet& set, const std::string& path) {
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
  WriteJsonFile(path, report);
}

void Run(const ProfileArgs& args) {
  if (args.histories.empty() && args.traces.empty()) {
    throw CLI::ValidationError("profile", "give --history FILE or --trace SPEC");
  }
  for (const std::string& path : {args.out, args.json}) {
    if (!path.empty()) CheckWritable(path);
  }
  ProfileOptions options;
  options.bins = args.bins;
  options.max_days = args.days;
  options.seed = args.seed;
  bool normalized = false;
  Profiler profiler(options);
  if (!args.scenario.empty()) profiler.SetRequests(ReadScenarioFile(args.scenario));
  if (!args.requests.empty()) {
    for (const AppRequests& r : ReadRequestsFile(args.requests)) {
      profiler.SetRequest(r.app, r.request, r.replicas);
    }
  }
  for (const std::string& h : args.histories) ReadHistory(h, profiler);
  for (const std::string& t : args.traces) {
    ReadUsageTrace(t, [&](const std::vector<UsageSeries>& series) {
      normalized |= AddSeries(series, profiler);
    });
  }
  ProfileSet set = profiler.Finish();
  set.normalized = normalized;
  Print(set, args, profiler);
  if (!args.out.empty()) WriteProfilesFile(set, args.out);
  if (!args.json.empty()) WriteReport(set, args.json);
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
  cmd->add_option("--bins", args->bins, "bins per day")->capture_default_str();
  cmd->add_option("--days", args->days, "most recent days kept per application")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the classification")->capture_default_str();
  cmd->add_option("--top", args->top, "rows of savings and warnings printed")
      ->capture_default_str();
  cmd->callback([args] { Run(*args); });
}

}  // namespace archimedes::cli
