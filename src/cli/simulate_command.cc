// `archimedes simulate`: replays one workload under several policies and prints them side by side.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "cli/number_check.h"
#include "cli/progress.h"
#include "cli/version.h"
#include "engine/policy.h"
#include "model/duration.h"
#include "model/limits.h"
#include "model/parallel_map.h"
#include "profile/profile.h"
#include "sched/reclaimable.h"
#include "sim/html_report.h"
#include "sim/peak_load.h"
#include "sim/regime.h"
#include "sim/report.h"
#include "sim/scenario_source.h"
#include "sim/services_only.h"
#include "sim/shrink.h"
#include "sim/simulator.h"
#include "sim/sla_report.h"
#include "sim/warmup_profiles.h"
#include "trace/output_file.h"
#include "trace/profile_file.h"

namespace archimedes::cli {
namespace {

struct SimulateArgs {
  std::string policies;
  int nodes = 1000;
  int days = 2;
  uint64_t seed = 1;
  std::string trace;
  std::string scenario;
  std::string traces_dir = "../shared/traces";
  std::string json_path;
  std::string record_usage_path;
  std::string profiles_path;
  std::string sla_report_path;
  std::string report_path;
  std::string explain_service;
  std::string regime;  // empty: the generator's parameters as given
  std::vector<std::string> overrides;
  std::vector<std::string> job_files;
  int64_t warmup_s = kSecondsPerDay;
  bool list_params = false;
  bool surge = false;
  bool packing = false;
  bool shrink = false;
  bool quiet = false;
  int threads = 0;               // 0: one per core, at most one per policy
  std::optional<double> buffer;  // unset: each policy's own
};

// `name` with the --buffer of `args` when it keeps a burst buffer.
Policy PolicyFor(const std::string& name, const SimulateArgs& args) {
  if (name == kServicesOnly) return ServicesOnlyPolicy();
  const Policy policy = MakePolicy(name);
  return args.buffer && policy.keeps_buffer ? MakePolicy(name, args.buffer) : policy;
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string TasksDone(const SimProgress& p) {
  return "tasks " + std::to_string(p.tasks_finished) + " of " + std::to_string(p.tasks_submitted) +
         " done";
}

// `path` with `-<tag>` before its extension: each regime's files beside the others'.
std::string Tagged(const std::string& path, std::string_view tag) {
  if (path.empty()) return path;
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  const size_t at =
      dot == std::string::npos || (slash != std::string::npos && dot < slash) ? path.size() : dot;
  return path.substr(0, at) + "-" + std::string(tag) + path.substr(at);
}

int Compare(const SimulateArgs& args, std::optional<Regime> regime);

int Run(const SimulateArgs& args) {
  if (args.list_params) {
    for (const ParamInfo& p : DescribeGeneratorParams(GeneratorParams{})) {
      std::cout << p.key << " = " << p.value << "\n    " << p.description << "\n";
    }
    return 0;
  }
  if (args.regime.empty()) return Compare(args, std::nullopt);
  if (!args.scenario.empty() || !args.trace.empty()) {
    throw std::invalid_argument(
        "--regime applies to the generated scenario, not to --scenario or "
        "--trace");
  }
  for (const std::string& kv : args.overrides) {
    if (kv.starts_with("batch_load=")) {
      throw std::invalid_argument("--regime sets batch_load: give one or the other, not both");
    }
  }
  if (args.regime != "both") return Compare(args, ParseRegime(args.regime));
  // Both regimes, one after the other; each writes its files with its name in them.
  for (Regime r : {Regime::kFits, Regime::kOverloaded}) {
    SimulateArgs tagged = args;
    const std::string_view name = RegimeName(r);
    for (std::string* path : {&tagged.json_path, &tagged.sla_report_path, &tagged.report_path,
                              &tagged.record_usage_path}) {
      *path = Tagged(*path, name);
    }
    if (const int rc = Compare(tagged, r); rc != 0) return rc;
    if (r == Regime::kFits) std::cout << "\n";
  }
  return 0;
}

int Compare(const SimulateArgs& args, std::optional<Regime> regime) {
  std::vector<std::string> policies =
      args.policies.empty() ? DefaultComparison() : SplitComma(args.policies);
  bool buffered = false;
  for (const std::string& p : policies) buffered |= PolicyFor(p, args).keeps_buffer;  // fail early
  if (args.buffer && !buffered) {
    throw std::invalid_argument("--buffer: none of the policies run keeps a burst buffer (" +
                                args.policies + ")");
  }

  ScenarioRequest request{.scenario = args.scenario,
                          .trace = args.trace,
                          .traces_dir = args.traces_dir,
                          .job_files = args.job_files,
                          .gpu_packing = args.packing};
  request.generator.nodes = args.nodes;
  request.generator.days = args.days;
  request.generator.seed = args.seed;
  if (args.surge) request.generator.surge_day = args.days - 1;
  for (const std::string& kv : args.overrides) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument("--set expects key=value, got \"" + kv + "\"");
    }
    SetGeneratorParam(request.generator, kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (regime) {
    request.generator =
        ForRegime(request.generator, *regime, args.buffer.value_or(kDefaultBurstBuffer));
  }
  // An output that cannot be written fails now, not after the whole run.
  for (const std::string& path : {args.json_path, args.sla_report_path, args.report_path}) {
    if (!path.empty()) CheckWritable(path);
  }
  std::vector<std::string> rejected_jobs;
  Scenario scenario = BuildScenario(request, &rejected_jobs);
  for (const std::string& why : rejected_jobs) std::cerr << "archimedes: rejected " << why << "\n";
  std::optional<Scenario> without_batch;
  if (std::find(policies.begin(), policies.end(), kServicesOnly) != policies.end()) {
    without_batch = WithoutBatch(scenario);
  }
  // The scenario a run simulates: services-only's has no jobs.
  auto scenario_of = [&](const std::string& name) -> const Scenario& {
    return name == kServicesOnly ? *without_batch : scenario;
  };
  nlohmann::json described = DescribeScenario(scenario, args.seed, args.warmup_s);
  described["rejected_jobs"] = rejected_jobs;
  if (args.buffer) described["buffer"] = *args.buffer;
  if (regime) {
    described["regime"] = {{"name", RegimeName(*regime)},
                           {"batch_load", request.generator.batch_load},
                           {"headline", RegimeHeadline(*regime)}};
  }

  if (!args.explain_service.empty()) {
    bool known = false;
    for (const Service& s : scenario.workload.services) known |= s.name == args.explain_service;
    if (!known) {
      throw std::invalid_argument("--explain: the scenario has no service \"" +
                                  args.explain_service + "\"");
    }
  }
  if (scenario.duration_s <= args.warmup_s) {
    // An empty measurement is no result: say so rather than print zeros as figures.
    throw std::invalid_argument(
        "the scenario lasts " + FormatDuration(scenario.duration_s) +
        ", no longer than the warm-up of " + FormatDuration(args.warmup_s) +
        ": nothing would be measured. Give a shorter --warmup (seconds), or a longer scenario" +
        (args.scenario.empty() || args.scenario == "real"
             ? std::string(" (--days)")
             : std::string(" (a scenario file sets its own \"duration\"; --days does not apply)")));
  }

  const ProgressMode progress_mode = ProgressModeFor(args.quiet);
  std::unique_ptr<UsageHistoryWriter> recorder;
  if (!args.record_usage_path.empty()) {
    recorder = std::make_unique<UsageHistoryWriter>(args.record_usage_path);
  }
  std::optional<ProfileSet> profiles;
  if (!args.profiles_path.empty()) profiles = ReadProfilesFile(args.profiles_path);
  // Every policy's placement is judged by the profiles archimedes places by (sim/peak_load.h):
  // --profiles, or those it would learn from the warm-up day, learned here once for all runs.
  if (!profiles) profiles = LearnWarmupProfiles(scenario.workload, args.warmup_s, args.seed);
  // Policies share only const inputs (scenario, profiles), so they run side by side; each run's
  // figures are those of a run alone. Progress lines of runs side by side cannot share one line
  // rewritten in place: they are written as plain lines.
  const int threads =
      args.threads > 0 ? args.threads : DefaultThreads(static_cast<int>(policies.size()));
  const ProgressMode run_progress =
      threads > 1 && policies.size() > 1 && progress_mode == ProgressMode::kTerminal
          ? ProgressMode::kLog
          : progress_mode;
  const bool reporting = !args.report_path.empty();
  struct PolicyRun {
    Metrics metrics;
    RunSeries series;
    std::vector<ContractRecord> contracts;
    std::string explanation;  // printed once every run is over, in the policies' order
  };
  std::vector<PolicyRun> runs = ParallelMap(static_cast<int>(policies.size()), threads, [&](int i) {
    const std::string& name = policies[i];
    const Policy policy = PolicyFor(name, args);
    PolicyRun run;
    SimOptions options{.seed = args.seed, .warmup_s = args.warmup_s};
    // Service usage does not depend on placement, so one policy's run records the history.
    if (recorder && i == 0) options.usage_recorder = recorder.get();
    options.profiles = &*profiles;
    if (!args.sla_report_path.empty() || reporting) options.sla_records = &run.contracts;
    if (reporting) options.series = &run.series;
    if (!args.explain_service.empty()) {
      options.explain_service = args.explain_service;
      options.explain_out = [&run, &name](const std::string& text) {
        if (run.explanation.empty()) {
          run.explanation = "why " + name + " placed the first replica there:\n";
        }
        run.explanation += text + "\n";
      };
    }
    ProgressLine progress(run_progress, name);
    SimProgress last;
    options.progress = [&](const SimProgress& p) {
      last = p;
      progress.Update(p.now, p.end, TasksDone(p));
    };
    run.metrics = SimulateMeasuringPeaks(scenario_of(name), policy, options, *profiles);
    progress.Finish(TasksDone(last));
    return run;
  });
  std::vector<PolicyResult> results;
  std::vector<std::pair<std::string, std::vector<ContractRecord>>> sla_records;
  std::vector<ReportedRun> reported;
  for (size_t i = 0; i < runs.size(); ++i) {
    PolicyRun& run = runs[i];
    std::cout << run.explanation;
    results.push_back({policies[i], run.metrics});
    if (reporting) reported.push_back({results.back(), std::move(run.series), run.contracts});
    if (!args.sla_report_path.empty()) {
      sla_records.emplace_back(policies[i], std::move(run.contracts));
    }
  }
  if (recorder) recorder->Commit();
  if (!args.sla_report_path.empty()) {
    WriteJsonFile(args.sla_report_path, SlaReportJson(sla_records), 1);
  }
  std::cout << FormatTable(described, results);
  std::vector<ShrinkResult> shrunk;
  if (args.shrink) {
    ShrinkOptions shrink{.sim = SimOptions{.seed = args.seed, .warmup_s = args.warmup_s},
                         .profiles = &*profiles};
    if (progress_mode != ProgressMode::kQuiet) {
      shrink.on_step = [](const std::string& policy, const ShrinkStep& step) {
        std::fprintf(stderr, "  shrink %-14s %6d nodes: %s\n", policy.c_str(), step.nodes,
                     !step.simulated ? "requests do not fit"
                     : step.hosts    ? "hosts every service"
                                     : "does not host every service");
      };
    }
    for (const PolicyResult& r : results) {
      shrunk.push_back(
          FindSmallestFleet(scenario_of(r.policy), PolicyFor(r.policy, args), shrink, &r.metrics));
    }
    std::cout << FormatShrinkTable(shrunk);
  }
  if (!args.report_path.empty()) {
    WriteFileAtomically(args.report_path, FormatHtmlReport(described, reported));
  }
  if (!args.json_path.empty()) {
    nlohmann::json doc = ToJson(described, results);
    doc["report"] = ReportFormatJson(ARCHIMEDES_VERSION, ARCHIMEDES_COMMIT);
    if (args.shrink) doc["shrink"] = ShrinkToJson(shrunk);
    WriteJsonFile(args.json_path, doc);
  }
  return 0;
}

}  // namespace

void AddSimulateCommand(CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Replay a workload against a fleet under several policies, side by side");
  cmd->add_option(
      "--policy", args->policies, "Comma-separated policies (default: all of " + [] {
        std::string all;
        for (const std::string& p : DefaultComparison()) all += (all.empty() ? "" : ",") + p;
        return all;
      }() + ")");
  cmd->add_option("--nodes", args->nodes, "Fleet size for generated and real scenarios")
      ->check(WholeNumberIn(1, kMaxNodes));
  cmd->add_option("--days", args->days, "Simulated days, the first of which is warm-up")
      ->check(WholeNumberIn(1, kMaxDays));
  cmd->add_option("--seed", args->seed, "Seed of the workload and of tie-breaking");
  cmd->add_option("--trace", args->trace,
                  "Replay one real trace (a file or folder of ../shared/traces)");
  cmd->add_option("--scenario", args->scenario,
                  "'real' for the real scenario, or a scenario file (docs/formats.md)");
  cmd->add_option("--traces-dir", args->traces_dir, "Where the real traces are")
      ->capture_default_str();
  cmd->add_option("--set", args->overrides,
                  "Override a generator parameter: key=value (repeatable)");
  cmd->add_option("--regime", args->regime,
                  "Size the generated batch stream: 'fits' (offered ≈ what the fleet can "
                  "reclaim), 'overloaded' (batch_load 1), or 'both', one after the other "
                  "(docs/generator.md)")
      ->check(CLI::IsMember({"fits", "overloaded", "both"}));
  cmd->add_flag("--list-params", args->list_params, "List the generator parameters and exit");
  cmd->add_flag("--surge", args->surge,
                "A sales-day surge on the last simulated day (generator: surge_day, surge_start, "
                "surge_duration, surge_factor)");
  cmd->add_flag("--packing", args->packing,
                "With --trace of a GPU 2023 pod list: replay it as the FGD paper packs it (pods in "
                "a --seed order arrive over a day until they request 1.3x the fleet's GPUs, none "
                "leaves; then an hour of the fleet full: unplaced pods, GPU allocation)");
  cmd->add_option("--jobs", args->job_files, "Add the jobs of a native jobs file (repeatable)");
  AddDurationFlag(cmd, "--warmup", &args->warmup_s, "Warm-up before metrics start", 0,
                  kMaxDurationSeconds);
  cmd->add_flag("--shrink", args->shrink,
                "Then, per policy, bisect the fewest nodes (cut from the same fleet, node types "
                "kept proportional) on which every service replica runs with no hot node-time and "
                "every service SLA held");
  cmd->add_option("--json", args->json_path, "Also write the results as JSON to this file");
  cmd->add_option("--profiles", args->profiles_path,
                  "Profiles (archimedes profile --out) for the profile-driven policies; without "
                  "it they learn from the warm-up day");
  cmd->add_option("--explain", args->explain_service,
                  "Explain the first placement of this service: filter verdicts and score terms "
                  "per node, per policy");
  cmd->add_option("--sla-report", args->sla_report_path,
                  "Write every contract's outcome, breaches and their reasons (JSON) to this file");
  cmd->add_option("--report", args->report_path,
                  "Write an HTML report (one self-contained file, every policy side by side, "
                  "docs/reports.md) to this file");
  cmd->add_flag("--quiet", args->quiet, "Show no progress on stderr");
  cmd->add_option("--buffer", args->buffer,
                  "Burst buffer of the policies that keep one (reclaim, archimedes): share of "
                  "each node kept free of batch for services' peaks, in [0, 0.9] (default 0.1)");
  cmd->add_option("--threads", args->threads,
                  "Run this many policies side by side (default: one per core, at most one per "
                  "policy); every figure is the same as with --threads 1")
      ->check(WholeNumberIn(1, 1024));
  cmd->add_option("--record-usage", args->record_usage_path,
                  "Write the services' usage history (docs/profiles.md format) to this file");
  cmd->callback([args] {
    int rc = Run(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace archimedes::cli
