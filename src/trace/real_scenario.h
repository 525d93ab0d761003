// The real scenario: a fleet, services and a batch stream all drawn from the real traces in
// shared/traces, shaped as DESIGN §6's default situation (a fleet sized for its services'
// requests, services that use far less than they request, and batch that would use every idle
// core). docs/traces.md describes the composition and every rule below.
//
//  * Fleet: `nodes` nodes of the Alibaba GPU 2023 node list, drawn per hardware kind so that the
//    mix of kinds is kept (largest-remainder quotas; more nodes than the list holds are copies).
//  * Services: whole DLRM 2025 CN app groups, each with its peak number of live instances as
//    replicas, alive throughout, added in a seeded order while the total CPU request stays within
//    `service_cpu_share` of fleet allocatable CPU and memory within `service_memory_cap` (groups
//    are reused as copies when the trace runs out); a group none of whose replicas fits any node
//    is passed over, and so is a group the fleet cannot place by request with the ones before it
//    (`places_every_replica`: the operator's own scheduler, as an operator sizes a fleet).
//  * Usage: each service gets one real series (Google 2019 replica or Alibaba 2018 machine) by a
//    seeded round robin, shaped by ShapeUsage.
//  * Batch: the Alibaba 2017 batch tasks of jobs drawn with probability nodes / 1313 (the 2017
//    fleet size; whole copies above 1), the same draw repeated every day of the scenario.
// The same options always give the same scenario.
#ifndef ARCHIMEDES_TRACE_REAL_SCENARIO_H_
#define ARCHIMEDES_TRACE_REAL_SCENARIO_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/curve.h"
#include "model/node.h"
#include "model/resources.h"
#include "model/workload.h"
#include "trace/usage_series.h"

namespace archimedes {

// Whether `fleet` places every replica of `services` (all, in this order) by request.
using PlacementCheck =
    std::function<bool(const std::vector<Node>& fleet, const std::vector<Service>& services)>;

struct RealScenarioOptions {
  std::string traces_dir;  // the shared/traces folder
  int nodes = 1000;        // 1 … kMaxRealNodes
  int days = 2;            // 1 … kMaxRealDays
  uint64_t seed = 1;
  double service_cpu_share = 0.85;
  // DLRM services ask ~5 GiB per vCPU, a little more than the fleet offers; this keeps every
  // service's memory placeable.
  double service_memory_cap = 0.95;
  // A service group is admitted only where this holds with the group added; unset, the budgets
  // alone decide.
  PlacementCheck places_every_replica;
};

inline constexpr int kMaxRealNodes = 20'000;
inline constexpr int kMaxRealDays = 31;
// The Alibaba 2017 fleet the batch stream was recorded on.
inline constexpr int kAlibaba2017Machines = 1313;

struct RealScenarioStats {
  int service_groups = 0;
  // Times a group within the budgets was passed over because the fleet could not place it by
  // request (a group is tried again on every pass over the groups).
  int refused_groups = 0;
  int replicas = 0;
  double requested_cpu_share = 0;  // service requests ÷ fleet allocatable
  double requested_memory_share = 0;
  int google_shapes = 0;
  int alibaba_shapes = 0;
  int cpu_capped = 0;  // services whose shape was scaled down so that its p99 meets the request
  int memory_capped = 0;
  int64_t jobs = 0;
  int64_t tasks = 0;
};

// Throws std::invalid_argument for options out of range and TraceError for missing or bad files.
Scenario BuildRealScenario(const RealScenarioOptions& options, RealScenarioStats* stats = nullptr);

// Gives every service of `workload` that has no usage pattern a real one: a Google 2019 replica
// or Alibaba 2018 machine series from `traces_dir`, dealt in a seeded order and scaled to the
// service's requests by ShapeUsage. Used for traces that record requests but no usage.
void AssignRealUsageShapes(Workload& workload, const std::string& traces_dir, uint64_t seed,
                           RealScenarioStats* stats = nullptr);

// A usage series as one replica's UsagePattern for `requests` (CPU and memory; other dimensions
// stay empty):
//  * usage is the series' ratio to its own limit times the request, divided by that ratio's p99
//    (model/quantile.h) when the p99 exceeds 1 (the shape is kept and its p99 meets the request:
//    "capped");
//  * 300-s bins from the start of the day of the first sample; of the whole days the series
//    spans, the `max_days` consecutive ones with the most samples are kept;
//  * an empty bin takes the mean of the same time of day over the whole series, or else a
//    linear interpolation between its nearest filled neighbours (circularly).
struct ShapedUsage {
  UsagePattern pattern;
  bool cpu_capped = false;
  bool memory_capped = false;
};
ShapedUsage ShapeUsage(const UsageSeries& series, const Resources& requests, int max_days);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_REAL_SCENARIO_H_
