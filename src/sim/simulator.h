// The trace-driven simulator: replays a scenario (fleet + workload + timed events) against one
// policy in simulated time and measures it with the metrics of DESIGN §5. It is one of the
// engine's two drivers (engine/engine.h): it keeps only the world — the clock, the usage model,
// contention and throttling, the OOM killers, the scenario's failures — turns what happens into
// engine events, carries out the engine's actions and collects the metrics.
//
// Time advances in whole seconds. Each second: the engine's time, node and service events, task
// completions, job submissions, then a scheduling cycle (every `cycle_s`); every `tick_s` a usage
// round: every container's usage now goes to the engine, then node by node a replica above its
// memory limit is OOM-killed (the cgroup), the engine relieves the node, CPU contention slows
// batch down within the limits the engine set (services keep their share), memory overflow of a
// node OOM-kills (lowest priority first); hot nodes and replicas not yet ready
// (Service::startup_s) harm their services. Deterministic for a seed: the same scenario, policy
// and options give the same metrics (wall-clock latency aside).
#ifndef ARCHIMEDES_SIM_SIMULATOR_H_
#define ARCHIMEDES_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/policy.h"
#include "model/cluster_state.h"
#include "model/workload.h"
#include "profile/profile.h"
#include "sim/metrics.h"
#include "sim/run_series.h"
#include "sim/sla_report.h"
#include "trace/usage_history.h"

namespace archimedes {

// How far a run has come, for a progress display: simulated time and the batch tasks submitted so
// far and finished so far.
struct SimProgress {
  int64_t now = 0;
  int64_t end = 0;
  int64_t tasks_submitted = 0;
  int64_t tasks_finished = 0;
};

struct SimOptions {
  uint64_t seed = 1;
  int64_t warmup_s = kSecondsPerDay;  // metrics start after this
  int64_t tick_s = 60;                // usage, contention and SLA accounting period
  int64_t metrics_interval_s = 300;   // allocation and fragmentation sampling period
  int64_t cycle_s = 1;                // scheduling cycle period
  double cpu_hot_threshold = 0.9;     // share of capacity above which a node is hot
  double memory_hot_threshold = 1.0;
  // A job's unstarted tasks fail (the submitter gives up) at
  // submit + tolerance + max(patience_factor × tolerance, min_patience_s).
  double patience_factor = 2.0;
  int64_t min_patience_s = 600;
  // Called every kProgressInterval simulated seconds and once at the end; the caller decides what
  // to show and how often.
  static constexpr int64_t kProgressInterval = 600;
  std::function<void(const SimProgress&)> progress;
  // Profiles for policies that place by profiles. When null, they are learned from the warm-up
  // day's usage history (the history a recording of that day gives: service usage does not depend
  // on placement); applications without history fall back to their requests.
  const ProfileSet* profiles = nullptr;
  // When set, the first placement of this service's replicas is explained (filter verdicts and
  // score terms per node) to `explain_out`.
  std::string explain_service;
  // When set, receives one record per service and counted job (sim/sla_report.h).
  std::vector<ContractRecord>* sla_records = nullptr;
  std::function<void(const std::string&)> explain_out;
  // Called after every usage tick with the cluster as it stands.
  std::function<void(int64_t, const ClusterState&)> on_tick;
  // Planned batch: called with (now, job index, tasks) when the planner first reports that tasks
  // of a job cannot start within its delay tolerance; they still run as soon as they can.
  std::function<void(int64_t, int32_t, int)> on_reported_late;
  // When set, every service replica's usage is written to it every `record_interval_s`, as
  // app = the service's app and container = "<service>-<replica slot>".
  UsageHistoryWriter* usage_recorder = nullptr;
  int64_t record_interval_s = 300;
  // When set, receives the run's time series (sim/run_series.h), the services' predicted CPU by
  // `profiles` (none without them).
  RunSeries* series = nullptr;
};

// Replays `scenario` under `policy`. Throws std::invalid_argument when an event names an unknown
// node or service.
Metrics Simulate(const Scenario& scenario, const Policy& policy, const SimOptions& options);

// The same with the engine behind `engine` (sim/engine_link.h), which already holds the scenario's
// nodes and services, their ids their positions, none scaled yet: against a server, a replay.
class EngineLink;
Metrics SimulateWith(const Scenario& scenario, const Policy& policy, const SimOptions& options,
                     EngineLink& engine);

// The engine's options a simulation of `scenario` uses: its seed, the task shapes of its workload,
// the profiles of `options` or those learned from its warm-up day when `policy` places by them.
EngineOptions EngineOptionsFor(const Scenario& scenario, const Policy& policy,
                               const SimOptions& options);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_SIMULATOR_H_
