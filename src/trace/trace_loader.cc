#include "trace/trace_loader.h"

#include <algorithm>
#include <filesystem>

#include "trace/alibaba_2017.h"
#include "trace/alibaba_2018.h"
#include "trace/alibaba_dlrm_2025.h"
#include "trace/alibaba_gpu_2023.h"
#include "trace/real_scenario.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;

constexpr char kNodeList2023[] = "openb_node_list_all_node.csv";
constexpr char kDefaultPods2023[] = "openb_pod_list_default.csv";
constexpr char kDlrm2025[] = "disaggregated_DLRM_trace.csv";
constexpr int64_t kAlibaba2018Window = 8 * kSecondsPerDay;

std::string Join(const fs::path& dir, const std::string& name) { return (dir / name).string(); }

// The packing replay: a day of arrivals (the default warm-up), then an hour of the fleet full.
constexpr int64_t kPackingDuration = kSecondsPerDay + 3600;

Scenario FromPodList(const fs::path& file, const LoadOptions& options) {
  const fs::path nodes = file.parent_path() / kNodeList2023;
  if (!fs::exists(nodes)) {
    throw TraceError(file.string(), 0,
                     "pod list without its fleet: " + nodes.string() + " missing");
  }
  Scenario scenario;
  scenario.name = "alibaba-gpu-2023/" + file.stem().string();
  scenario.nodes = ReadAlibabaGpu2023Nodes(nodes.string());
  if (options.gpu_packing) {
    int64_t fleet_gpu = 0;
    for (const Node& n : scenario.nodes) fleet_gpu += n.allocatable[Dim::kGpu];
    scenario.name += "/packing";
    scenario.workload =
        Gpu2023PackingWorkload(ReadAlibabaGpu2023Pods(file.string()), fleet_gpu, options.seed);
    scenario.duration_s = kPackingDuration;
    return scenario;
  }
  Gpu2023Workload w = Gpu2023ToWorkload(ReadAlibabaGpu2023Pods(file.string()));
  scenario.workload = std::move(w.workload);
  if (w.window_length > 0) scenario.duration_s = w.window_length;
  return scenario;
}

Scenario FromNodeList(const fs::path& file) {
  Scenario scenario;
  scenario.name = "alibaba-gpu-2023/" + file.stem().string();
  scenario.nodes = ReadAlibabaGpu2023Nodes(file.string());
  return scenario;
}

Scenario FromDlrm(const fs::path& file, const LoadOptions& options) {
  fs::path nodes = options.node_list;
  if (nodes.empty()) nodes = file.parent_path().parent_path() / "alibaba-gpu-v2023" / kNodeList2023;
  if (!fs::exists(nodes)) {
    throw TraceError(
        file.string(), 0,
        "the DLRM trace has no fleet: give a 2023 node list (not found at " + nodes.string() + ")");
  }
  Scenario scenario;
  scenario.name = "alibaba-dlrm-2025";
  scenario.nodes = ReadAlibabaGpu2023Nodes(nodes.string());
  std::vector<DlrmInstance> instances = ReadAlibabaDlrm2025(file.string());
  int64_t last = 0;
  for (const DlrmInstance& in : instances) {
    last = std::max({last, in.creation_time.value_or(0), in.deletion_time.value_or(0)});
  }
  if (last > 0) scenario.duration_s = last;
  for (DlrmGroup& g : GroupDlrmInstances(instances)) {
    scenario.workload.services.push_back(std::move(g.service));
    for (ScaleEvent& e : g.scale_events) scenario.workload.scale_events.push_back(std::move(e));
  }
  std::stable_sort(scenario.workload.scale_events.begin(), scenario.workload.scale_events.end(),
                   [](const ScaleEvent& a, const ScaleEvent& b) { return a.time < b.time; });
  return scenario;
}

Scenario From2017(const fs::path& dir) {
  Scenario scenario;
  scenario.name = "alibaba-2017";
  scenario.duration_s = kSecondsPerDay;
  Alibaba2017Fleet fleet = ReadAlibaba2017ServerEvents(Join(dir, "server_event.csv"));
  scenario.nodes = std::move(fleet.nodes);
  scenario.workload.node_events = std::move(fleet.events);
  for (Alibaba2017Task& task : ReadAlibaba2017BatchTasks(Join(dir, "batch_task.csv")).tasks) {
    scenario.workload.jobs.push_back(std::move(task.job));
  }
  return scenario;
}

Scenario From2018(const fs::path& dir) {
  Scenario scenario;
  scenario.name = "alibaba-2018";
  scenario.duration_s = kAlibaba2018Window;
  scenario.nodes = ReadAlibaba2018Machines(Join(dir, "machine_meta.csv"));
  return scenario;
}

bool IsTracesRoot(const fs::path& dir) {
  return fs::is_directory(dir / "alibaba-gpu-v2023") &&
         fs::is_directory(dir / "alibaba-gpu-v2025") && fs::is_directory(dir / "alibaba-v2017") &&
         fs::is_directory(dir / "alibaba-v2018") &&
         fs::is_directory(dir / "google-v2019-instance-usage");
}

// Requests-only traces get real usage shapes from the traces folder they sit in, and every trace
// is cut to the requested number of days.
Scenario Finish(Scenario scenario, const fs::path& traces_dir, const LoadOptions& options) {
  bool needs_usage = false;
  for (const Service& s : scenario.workload.services) needs_usage |= s.usage.samples() == 0;
  if (needs_usage) {
    AssignRealUsageShapes(scenario.workload, traces_dir.string(), options.seed);
  }
  scenario.duration_s = std::min<int64_t>(scenario.duration_s, options.days * kSecondsPerDay);
  return scenario;
}

Scenario Dispatch(const fs::path& p, const std::string& path, const LoadOptions& options) {
  if (fs::is_directory(p)) {
    if (IsTracesRoot(p)) {
      RealScenarioOptions real;
      real.traces_dir = path;
      real.nodes = options.nodes;
      real.days = options.days;
      real.seed = options.seed;
      real.places_every_replica = options.places_every_replica;
      return BuildRealScenario(real);
    }
    if (fs::exists(p / "batch_task.csv") && fs::exists(p / "server_event.csv")) return From2017(p);
    if (fs::exists(p / "machine_meta.csv")) return From2018(p);
    if (fs::exists(p / kDefaultPods2023)) return FromPodList(p / kDefaultPods2023, options);
    if (fs::exists(p / kDlrm2025)) return FromDlrm(p / kDlrm2025, options);
  } else {
    const std::string name = p.filename().string();
    if (name.starts_with("openb_pod_list_") && name.ends_with(".csv")) {
      return FromPodList(p, options);
    }
    if (name.starts_with("openb_node_list_") && name.ends_with(".csv")) return FromNodeList(p);
    if (name == kDlrm2025) return FromDlrm(p, options);
    if (name == "batch_task.csv" || name == "server_event.csv") return From2017(p.parent_path());
    if (name == "machine_meta.csv") return From2018(p.parent_path());
  }
  throw TraceError(path, 0,
                   "not a recognised trace: expected the shared traces folder, an Alibaba GPU 2023 "
                   "pod or node list, the DLRM 2025 CSV, an Alibaba 2017 folder (batch_task.csv, "
                   "server_event.csv) or an Alibaba 2018 folder (machine_meta.csv); usage series "
                   "(Google 2019, machine_usage.csv) describe no workload on their own");
}

}  // namespace

Scenario LoadTrace(const std::string& path, const LoadOptions& options) {
  const fs::path p(path);
  std::error_code error;
  if (!fs::exists(p, error)) throw TraceError(path, 0, "no such file or folder");
  Scenario scenario = Dispatch(p, path, options);
  if (options.gpu_packing && !scenario.name.ends_with("/packing")) {
    throw TraceError(path, 0,
                     "the packing replay applies to an Alibaba GPU 2023 pod list "
                     "(openb_pod_list_*.csv), not to this trace");
  }
  const fs::path trace_folder = fs::is_directory(p) ? p : p.parent_path();
  return Finish(std::move(scenario), trace_folder.parent_path(), options);
}

}  // namespace archimedes
