// `archimedes replay`: plays a scenario's world against an `archimedes serve` started with
// `--clock virtual`, the server's engine deciding (replay/remote_engine.h), and prints the report
// `simulate` prints for the same scenario, seed and policy.
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
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
#include "replay/remote_engine.h"
#include "sim/peak_load.h"
#include "sim/report.h"
#include "sim/scenario_source.h"
#include "sim/simulator.h"
#include "sim/warmup_profiles.h"
#include "trace/output_file.h"
#include "trace/profile_file.h"

namespace archimedes::cli {
namespace {

struct ReplayArgs {
  std::string server;
  std::string policy = "archimedes";
  int nodes = 1000;
  int days = 2;
  uint64_t seed = 1;
  std::string trace;
  std::string scenario;
  std::string traces_dir = "../shared/traces";
  std::string json_path;
  std::string profiles_path;
  std::vector<std::string> overrides;
  std::vector<std::string> job_files;
  int64_t warmup_s = kSecondsPerDay;
  bool surge = false;
  bool quiet = false;
  int64_t pace_s = 0;            // 0: as fast as the server answers
  std::optional<double> buffer;  // unset: the policy's own
};

int Run(const ReplayArgs& args) {
  const Policy policy = MakePolicy(args.policy, args.buffer);
  ScenarioRequest request{.scenario = args.scenario,
                          .trace = args.trace,
                          .traces_dir = args.traces_dir,
                          .job_files = args.job_files};
  request.generator.nodes = args.nodes;
  request.generator.days = args.days;
  request.generator.seed = args.seed;
  if (args.surge) request.generator.surge_day = args.days - 1;
  for (const std::string& kv : args.overrides) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument("--set expects key=value, got \"" + kv + "\"");
    }
    SetGeneratorParam(request.generator, kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (!args.json_path.empty()) CheckWritable(args.json_path);
  std::vector<std::string> rejected_jobs;
  const Scenario scenario = BuildScenario(request, &rejected_jobs);
  for (const std::string& why : rejected_jobs) std::cerr << "archimedes: rejected " << why << "\n";
  nlohmann::json described = DescribeScenario(scenario, args.seed, args.warmup_s);
  described["rejected_jobs"] = rejected_jobs;
  if (args.buffer) described["buffer"] = *args.buffer;
  if (scenario.duration_s <= args.warmup_s) {
    throw std::invalid_argument("the scenario lasts " + FormatDuration(scenario.duration_s) +
                                ", no longer than the warm-up of " + FormatDuration(args.warmup_s) +
                                ": nothing would be measured");
  }
  const ProfileSet profiles = args.profiles_path.empty()
                                  ? LearnWarmupProfiles(scenario.workload, args.warmup_s, args.seed)
                                  : ReadProfilesFile(args.profiles_path);
  SimOptions options{.seed = args.seed, .warmup_s = args.warmup_s, .profiles = &profiles};
  // A policy that places by profiles gets, on the server, what simulate gives its engine.
  const EngineOptions priors = EngineOptionsFor(scenario, policy, options);
  const auto start = std::chrono::steady_clock::now();
  RemoteEngine engine(args.server, policy, scenario,
                      RemoteOptions{.seed = args.seed,
                                    .cycle_s = options.cycle_s,
                                    .pace_s = args.pace_s,
                                    .priors = policy.traits.uses_profiles ? &priors : nullptr});
  ProgressLine progress(ProgressModeFor(args.quiet), policy.name);
  options.progress = [&](const SimProgress& p) {
    progress.Update(p.now, p.end, std::to_string(engine.requests()) + " requests");
  };
  Metrics metrics = SimulateMeasuringPeaks(scenario, policy, options, profiles, &engine);
  metrics.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.Finish(std::to_string(engine.requests()) + " requests");
  const std::vector<PolicyResult> results = {{policy.name, metrics}};
  std::cout << FormatTable(described, results);
  if (!args.json_path.empty()) {
    nlohmann::json doc = ToJson(described, results);
    doc["report"] = ReportFormatJson(ARCHIMEDES_VERSION, ARCHIMEDES_COMMIT);
    WriteJsonFile(args.json_path, doc);
  }
  return 0;
}

}  // namespace

void AddReplayCommand(CLI::App& app) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Play a scenario against an archimedes serve started with --clock virtual (its engine "
      "decides; this command is the world and every node's agent) and print simulate's report");
  cmd->add_option("--server", args->server, "The server's URL: http://127.0.0.1:8080")->required();
  cmd->add_option("--policy", args->policy, "The server's policy (one)")->capture_default_str();
  cmd->add_option("--nodes", args->nodes, "Fleet size for generated and real scenarios")
      ->check(WholeNumberIn(1, kMaxNodes));
  cmd->add_option("--days", args->days, "Simulated days, the first of which is warm-up")
      ->check(WholeNumberIn(1, kMaxDays));
  cmd->add_option("--seed", args->seed,
                  "Seed of the workload and of tie-breaking (the server's --seed)");
  cmd->add_option("--trace", args->trace,
                  "Replay one real trace (a file or folder of ../shared/traces)");
  cmd->add_option("--scenario", args->scenario,
                  "'real' for the real scenario, or a scenario file (docs/formats.md)");
  cmd->add_option("--traces-dir", args->traces_dir, "Where the real traces are")
      ->capture_default_str();
  cmd->add_option("--set", args->overrides,
                  "Override a generator parameter: key=value (repeatable)");
  cmd->add_flag("--surge", args->surge, "A sales-day surge on the last simulated day");
  cmd->add_option("--jobs", args->job_files, "Add the jobs of a native jobs file (repeatable)");
  AddDurationFlag(cmd, "--warmup", &args->warmup_s, "Warm-up before metrics start", 0,
                  kMaxDurationSeconds);
  AddDurationFlag(cmd, "--pace", &args->pace_s,
                  "Play at most this much simulated time per wall second, to watch it (0: as "
                  "fast as the server answers)",
                  0, kMaxDurationSeconds);
  cmd->add_option("--json", args->json_path, "Also write the results as JSON to this file");
  cmd->add_option("--profiles", args->profiles_path,
                  "Profiles the peak-load figures judge by (as simulate's --profiles)");
  cmd->add_option("--buffer", args->buffer,
                  "The server's burst buffer (its --buffer), for a policy that keeps one");
  cmd->add_flag("--quiet", args->quiet, "Show no progress on stderr");
  cmd->callback([args] {
    int rc = Run(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace archimedes::cli
