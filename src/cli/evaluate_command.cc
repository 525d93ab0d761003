// `archimedes evaluate`: every policy on the generated scenario in both regimes and on every real
// trace of --traces-dir that carries the work it measures, with fixed seeds, in one scorecard
// (sim/scorecard.h; docs/results.md holds the current one). Each run is an `archimedes simulate`
// command, run here in-process exactly as typed, and printed with its figures so that anyone can
// reproduce any of them.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/number_check.h"
#include "cli/version.h"
#include "model/limits.h"
#include "model/text_table.h"
#include "sim/scorecard.h"
#include "trace/json_reader.h"
#include "trace/output_file.h"

namespace archimedes::cli {
namespace {

namespace fs = std::filesystem;

struct EvaluateArgs {
  std::string traces_dir = "../shared/traces";
  std::string out_path;  // empty: the markdown goes to stdout
  std::string json_path;
  int nodes = 200;
  int days = 2;
  std::vector<uint64_t> seeds = {1, 2, 3};
  int threads = 0;
};

// One simulate run of the scorecard: its arguments after `simulate`, the figures it is read by,
// and the traces it needs (relative to --traces-dir; it is skipped, and says so, without them).
struct PlannedRun {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> headlines;
  std::vector<std::string> needs;
};

// The GPU 2023 pod lists packed: the default mix, the GPU-heavy multi-GPU one, the one with the
// most GPU-model constraints, and a CPU-heavy one.
constexpr const char* kGpuLists[] = {"default", "multigpu40", "gpuspec33", "cpu050"};

std::vector<PlannedRun> PlanRuns(const EvaluateArgs& a) {
  const std::string size = std::to_string(a.nodes);
  const std::string days = std::to_string(a.days);
  const fs::path traces(a.traces_dir);
  std::vector<PlannedRun> runs;
  for (const char* regime : {"fits", "overloaded"}) {
    const bool fits = std::string_view(regime) == "fits";
    for (uint64_t seed : a.seeds) {
      runs.push_back(
          {.name = std::string("generated, ") + regime + ", seed " + std::to_string(seed),
           .args = {"--nodes", size, "--days", days, "--seed", std::to_string(seed), "--regime",
                    regime},
           .headlines = fits ? std::vector<std::string>{"in_tolerance", "cpu_vs_services_only"}
                             : std::vector<std::string>{"core_hours", "lateness"}});
    }
  }
  for (uint64_t seed : a.seeds) {
    runs.push_back({.name = "real scenario, seed " + std::to_string(seed),
                    .args = {"--scenario", "real", "--traces-dir", a.traces_dir, "--nodes", size,
                             "--days", days, "--seed", std::to_string(seed)},
                    .headlines = {"core_hours", "lateness", "in_tolerance", "unplaced"},
                    .needs = {"google-v2019-instance-usage", "alibaba-v2018/machine_usage.csv",
                              "alibaba-gpu-v2023/openb_node_list_all_node.csv",
                              "alibaba-gpu-v2025/disaggregated_DLRM_trace.csv",
                              "alibaba-v2017/batch_task.csv"}});
  }
  runs.push_back({.name = "Alibaba 2017 batch trace",
                  .args = {"--trace", (traces / "alibaba-v2017").string(), "--warmup", "0"},
                  .headlines = {"core_hours", "in_tolerance", "lateness"},
                  .needs = {"alibaba-v2017/batch_task.csv", "alibaba-v2017/server_event.csv"}});
  // The GPU 2023 lists as the trace times them (pods alive from creation to deletion), the
  // default one; then each list packed as the FGD paper replays it (docs/traces.md).
  const std::string default_list = "alibaba-gpu-v2023/openb_pod_list_default.csv";
  runs.push_back({.name = "GPU 2023 pod list default, as timed",
                  .args = {"--trace", (traces / default_list).string(), "--days", "34"},
                  .headlines = {"unplaced", "sla_services"},
                  .needs = {default_list}});
  for (const char* list : kGpuLists) {
    const std::string file = std::string("alibaba-gpu-v2023/openb_pod_list_") + list + ".csv";
    runs.push_back({.name = std::string("GPU 2023 pod list ") + list + ", packed",
                    .args = {"--trace", (traces / file).string(), "--packing"},
                    .headlines = {"unplaced", "gpu_allocation"},
                    .needs = {file}});
  }
  for (PlannedRun& run : runs) {
    if (a.threads > 0) run.args.insert(run.args.end(), {"--threads", std::to_string(a.threads)});
  }
  return runs;
}

std::string CommandLine(const std::vector<std::string>& args) {
  std::string line = "archimedes simulate";
  for (const std::string& arg : args) line += " " + arg;
  return line;
}

// Runs `archimedes simulate ARGS --json PATH --quiet` in this process, its table kept off stdout.
void Simulate(const std::vector<std::string>& args, const std::string& json_path) {
  CLI::App app;
  app.require_subcommand(1);
  AddSimulateCommand(app);
  std::vector<std::string> argv = {"simulate"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--json", json_path, "--quiet"});
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 takes them reversed
  std::ostringstream table;
  std::streambuf* stdout_buffer = std::cout.rdbuf(table.rdbuf());
  try {
    app.parse(reversed);
  } catch (...) {
    std::cout.rdbuf(stdout_buffer);
    throw;
  }
  std::cout.rdbuf(stdout_buffer);
}

int Run(const EvaluateArgs& args) {
  if (!args.out_path.empty()) CheckWritable(args.out_path);
  if (!args.json_path.empty()) CheckWritable(args.json_path);
  const auto started = std::chrono::steady_clock::now();
  const std::vector<PlannedRun> planned = PlanRuns(args);
  const fs::path scratch =
      fs::temp_directory_path() / ("archimedes-evaluate-" + std::to_string(::getpid()) + ".json");
  std::vector<ScorecardRun> runs;
  std::vector<std::string> skipped;
  for (size_t i = 0; i < planned.size(); ++i) {
    const PlannedRun& p = planned[i];
    std::string missing;
    for (const std::string& need : p.needs) {
      if (missing.empty() && !fs::exists(fs::path(args.traces_dir) / need)) missing = need;
    }
    const std::string progress =
        "[" + std::to_string(i + 1) + "/" + std::to_string(planned.size()) + "] " + p.name;
    if (!missing.empty()) {
      const std::string why = (fs::path(args.traces_dir) / missing).string() + " is missing";
      skipped.push_back(p.name + ": " + why);
      std::cerr << progress << ": skipped, " << why << "\n";
      continue;
    }
    std::cerr << progress << " ..." << std::flush;
    const auto run_started = std::chrono::steady_clock::now();
    try {
      Simulate(p.args, scratch.string());
    } catch (const std::exception& e) {
      // One run that cannot be made costs only its own table.
      skipped.push_back(p.name + ": " + CommandLine(p.args) + " failed: " + e.what());
      std::cerr << " failed: " << e.what() << "\n";
      continue;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count();
    std::cerr << " " << Fixed(wall, 0) << " s\n";
    runs.push_back({.name = p.name,
                    .command = CommandLine(p.args),
                    .headlines = p.headlines,
                    .report = ReadJsonFile(scratch.string()),
                    .wall_seconds = wall});
    fs::remove(scratch);
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string preamble =
      "Written by `archimedes evaluate` (version " + std::string(ARCHIMEDES_VERSION) + ", commit " +
      ARCHIMEDES_COMMIT + ") in " + Fixed(total / 60, 1) + " minutes on " +
      std::to_string(std::thread::hardware_concurrency()) +
      " cores. Every figure below comes from the `archimedes simulate` command printed above its "
      "table (run from the checkout, with the traces in `" +
      args.traces_dir +
      "`); the headline rows of each run are in bold, with the best policy's figure "
      "(services-only, "
      "which runs no batch, is never counted best). Definitions: docs/generator.md (regimes, "
      "lateness), docs/batch.md, docs/traces.md.";
  if (!skipped.empty()) preamble += "\n\nSkipped:\n";
  for (const std::string& why : skipped) preamble += "\n- " + why;
  const std::string markdown = FormatScorecardMarkdown("Archimedes scorecard", preamble, runs);
  if (args.out_path.empty()) {
    std::cout << markdown;
  } else {
    WriteFileAtomically(args.out_path, markdown);
  }
  if (!args.json_path.empty()) WriteJsonFile(args.json_path, ScorecardJson(runs));
  return 0;
}

}  // namespace

void AddEvaluateCommand(CLI::App& app) {
  auto args = std::make_shared<EvaluateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "evaluate",
      "Every policy on the generated scenario in both regimes and on every real trace, one "
      "scorecard (markdown, and JSON) with the command behind each figure");
  cmd->add_option("--traces-dir", args->traces_dir, "Where the real traces are")
      ->capture_default_str();
  cmd->add_option("--out", args->out_path, "Write the markdown scorecard here (default: stdout)");
  cmd->add_option("--json", args->json_path, "Also write the scorecard as JSON to this file");
  cmd->add_option("--nodes", args->nodes, "Fleet size of the generated and real scenarios")
      ->check(WholeNumberIn(1, kMaxNodes))
      ->capture_default_str();
  cmd->add_option("--days", args->days, "Simulated days of the generated and real scenarios")
      ->check(WholeNumberIn(2, kMaxDays))
      ->capture_default_str();
  cmd->add_option("--seeds", args->seeds, "Seeds of the generated and real scenarios")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  "Policies run side by side in each run (default: one per core)")
      ->check(WholeNumberIn(1, 1024));
  cmd->callback([args] {
    int rc = Run(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace archimedes::cli
