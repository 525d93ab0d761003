// `archimedes faults`: MAGI against a single-observer node controller on one fleet, one placement
// and one fault timeline, side by side (docs/faults.md).
#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "cli/number_check.h"
#include "cli/progress.h"
#include "model/limits.h"
#include "sim/fault_scenario.h"
#include "sim/fault_sim.h"
#include "sim/generator.h"
#include "trace/output_file.h"

namespace archimedes::cli {
namespace {

struct FaultsArgs {
  int nodes = 1000;
  int days = 7;
  uint64_t seed = 1;
  std::string faults_path;
  std::string json_path;
  std::string write_faults_path;
  FaultRates rates;
  FaultSimParams sim;
  bool no_review = false;
  bool quiet = false;
};

int Run(FaultsArgs args) {
  GeneratorParams generator;
  generator.nodes = args.nodes;
  generator.days = 1;  // only the fleet and the services are used
  generator.seed = args.seed;
  const Scenario scenario = GenerateScenario(generator);
  const PlacedFleet placed = PlaceServices(scenario, args.seed);

  args.sim.duration_s = static_cast<int64_t>(args.days) * kSecondsPerDay;
  args.sim.seed = args.seed;
  args.sim.review_single_observer = !args.no_review;
  if (args.sim.magi.member_pods.empty()) {
    args.sim.magi.member_pods = ChooseMemberPods(scenario.nodes, 5);
  }
  const std::vector<Fault> faults = args.faults_path.empty()
                                        ? GenerateFaults(scenario.nodes, args.sim.magi.member_pods,
                                                         args.rates, args.sim.duration_s, args.seed)
                                        : ReadFaultsFile(args.faults_path, scenario.nodes);
  if (!args.write_faults_path.empty()) WriteJsonFile(args.write_faults_path, FaultsToJson(faults));
  if (!args.json_path.empty()) CheckWritable(args.json_path);

  ProgressLine progress(ProgressModeFor(args.quiet), "faults");
  int64_t begun = 0;  // faults under way or over
  auto faults_begun = [&] {
    return "faults " + std::to_string(begun) + " of " + std::to_string(faults.size()) + " begun";
  };
  args.sim.progress = [&](int64_t now, int64_t end) {
    begun =
        std::count_if(faults.begin(), faults.end(), [now](const Fault& f) { return f.at <= now; });
    progress.Update(now, end, faults_begun());
  };
  const FaultSimResult result =
      RunFaultSim(placed.state, faults, args.sim, scenario.workload.services);
  progress.Finish(faults_begun());
  if (placed.unplaced > 0) {
    std::cout << "note: " << placed.unplaced
              << " service replicas found no node and are left out\n";
  }
  std::cout << FormatFaultTable(result);
  if (!args.json_path.empty()) WriteJsonFile(args.json_path, FaultSimToJson(result));
  return 0;
}

}  // namespace

void AddFaultsCommand(CLI::App& app) {
  auto args = std::make_shared<FaultsArgs>();
  CLI::App* cmd =
      app.add_subcommand("faults",
                         "Node failures and partial network faults: MAGI versus a single-observer "
                         "node controller, side by side");
  cmd->add_option("--nodes", args->nodes, "Fleet size (generated fleet with zones and PODs)")
      ->check(WholeNumberIn(1, kMaxNodes))
      ->capture_default_str();
  cmd->add_option("--days", args->days, "Simulated days")
      ->check(WholeNumberIn(1, kMaxDays))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the fleet, the services and the random faults")
      ->capture_default_str();
  cmd->add_option("--faults", args->faults_path,
                  "Fault-scenario file (docs/faults.md) instead of random faults");
  cmd->add_option("--write-faults", args->write_faults_path,
                  "Write the fault timeline used (generated or read) to this file");
  cmd->add_option("--json", args->json_path, "Also write the results as JSON to this file");

  FaultRates& r = args->rates;
  cmd->add_option("--crash-rate", r.crashes_per_node_day, "Node crashes per node-day")
      ->capture_default_str();
  cmd->add_option("--reboot-share", r.crash_recover_share,
                  "Share of crashes that recover (the rest never do)")
      ->capture_default_str();
  AddDurationFlag(cmd, "--reboot-median", &r.reboot_median_s,
                  "Median time a crashed node stays down", 1, kMaxDurationSeconds);
  cmd->add_option("--api-cut-rate", r.api_cuts_per_node_day,
                  "Node-to-API-server link cuts per node-day")
      ->capture_default_str();
  AddDurationFlag(cmd, "--api-cut-median", &r.api_cut_median_s, "Median length of an API cut", 1,
                  kMaxDurationSeconds);
  cmd->add_option("--pod-cut-rate", r.pod_cuts_per_node_day, "POD-to-node link cuts per node-day")
      ->capture_default_str();
  AddDurationFlag(cmd, "--pod-cut-median", &r.pod_cut_median_s, "Median length of a POD cut", 1,
                  kMaxDurationSeconds);
  cmd->add_option("--isolation-rate", r.pod_isolations_per_pod_day,
                  "Whole-POD isolations per POD-day")
      ->capture_default_str();
  AddDurationFlag(cmd, "--isolation-median", &r.pod_isolation_median_s,
                  "Median length of a POD isolation", 1, kMaxDurationSeconds);
  cmd->add_option("--flap-rate", r.flaps_per_node_day, "Flapping links per node-day")
      ->capture_default_str();
  AddDurationFlag(cmd, "--flap-median", &r.flap_median_s, "Median time a link keeps flapping", 1,
                  kMaxDurationSeconds);

  FaultSimParams& s = args->sim;
  AddDurationFlag(cmd, "--grace", &s.single.node_monitor_grace_period_s,
                  "Single observer: node-monitor-grace-period", 1, kMaxDurationSeconds);
  AddDurationFlag(cmd, "--toleration", &s.single.toleration_s,
                  "Single observer: how long pods tolerate the not-ready/unreachable taint", 0,
                  kMaxDurationSeconds);
  AddDurationFlag(cmd, "--probe-period", &s.magi.probe_period_s, "MAGI: time between probe rounds",
                  1, kMaxDurationSeconds);
  AddDurationFlag(cmd, "--probe-timeout-ms", &s.magi.probe_timeout_ms, "MAGI: probe timeout", 1,
                  kMaxDurationSeconds * 1000, TimeUnit::kMilliseconds);
  AddDurationFlag(cmd, "--heartbeat-grace", &s.magi.judge.heartbeat_grace,
                  "MAGI: a heartbeat younger than this proves the node alive", 0,
                  kMaxDurationSeconds);
  AddDurationFlag(cmd, "--restart", &s.restart_s, "Time a restarted container needs to serve", 1,
                  kMaxDurationSeconds);
  cmd->add_flag("--quiet", args->quiet, "Show no progress on stderr");
  cmd->add_flag("--no-review", args->no_review,
                "Leave out the single observer whose evictions MAGI reviews");
  cmd->callback([args] {
    int rc = Run(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace archimedes::cli
