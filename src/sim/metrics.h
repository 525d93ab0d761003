// The metrics of DESIGN §5, one definition for every policy. The simulator feeds a
// MetricsCollector as it runs; Finish() turns the running sums into the figures reports print.
#ifndef ARCHIMEDES_SIM_METRICS_H_
#define ARCHIMEDES_SIM_METRICS_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/cluster_state.h"
#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

struct Metrics {
  std::array<double, kNumDims> allocation_rate{};  // Σ requests ÷ Σ capacity, time-averaged
  std::array<double, kNumDims> utilization{};      // Σ usage ÷ Σ capacity, time-averaged
  // utilization[cpu] ÷ (1 − the policy's burst buffer, Policy::buffer): the share of what is
  // usable, the buffer being what services' bursts need. The Kubernetes policies keep none but
  // carry the default, so every policy is measured against the same usable capacity.
  double cpu_utilization_of_usable = 0;
  double fragmentation_rate = 0;
  double hot_node_time = 0;
  double sla_services = 1, sla_jobs = 1, sla_all = 1;
  int services_counted = 0, jobs_counted = 0;
  double batch_core_hours_per_day = 0;    // completed
  double offered_core_hours_per_day = 0;  // submitted after warm-up, if every task ran
  double lost_core_hours_per_day = 0;     // progress of tasks evicted or killed, redone later
  double wait_p50_s = 0, wait_p99_s = 0;
  double wait_tolerance_share_p50 = 0, wait_tolerance_share_p99 = 0;  // wait ÷ tolerance
  double started_within_tolerance = 1;
  // Mean lateness of batch tasks, max(0, start − (submit + tolerance)), weighted by their job's
  // priority (at least 1): a task never started counts until its submitter gave up, or until the
  // end of the run. The overloaded regime's headline beside core-hours (sim/regime.h).
  double weighted_lateness_s = 0;
  std::array<double, 2> started_within_tolerance_by_type{1, 1};  // by JobType
  double evictions_per_1000_container_days = 0;
  double migrations_per_1000_container_days = 0;
  int64_t evictions = 0, migrations = 0, oom_kills = 0, failure_kills = 0;
  // Acting on health warnings: make-before-break migrations of warned replicas (also counted in
  // `migrations`), and scale-outs where no other node could take a replacement.
  int64_t health_migrations = 0, health_scale_outs = 0;
  // Wall-clock time of one placement decision (a pod), and of one call of the batch planner (a
  // full re-plan or adding new jobs to the plan; planned policies only), apart: a re-plan decides
  // for every pending task at once, and mixed in it would stand for the pods' latency where pods
  // are few.
  double latency_p50_us = 0, latency_p99_us = 0;
  int64_t decisions = 0;
  double plan_latency_p50_us = 0, plan_latency_p99_us = 0;
  int64_t plans = 0;
  // Of those calls, the full re-plans alone (every pending task planned again): the many small
  // calls that add new jobs would otherwise hide their cost in the percentiles.
  double replan_latency_p50_us = 0, replan_latency_p99_us = 0;
  int64_t replans = 0;
  // Task accounting at the end of the run: every submitted task is in exactly one of these.
  int64_t tasks_submitted = 0, tasks_finished = 0, tasks_running = 0, tasks_queued = 0,
          tasks_failed = 0;
  // Tasks the batch planner reported, when it could first tell, as unable to start within their
  // tolerance (planning policies only; jobs submitted after warm-up).
  int64_t tasks_reported_late = 0;
  // Issue 4's placement check, {cpu millicores, memory bytes} (sim/peak_load.h; zero unless the
  // run was measured by a PeakMeter): Σ over nodes of the predicted peak of the resident services
  // (hourly samples after warm-up, averaged), Σ over nodes of the largest observed service usage,
  // Σ of the predicted peaks of the desired replicas that were not running (sampled and averaged as
  // the first: a placement that leaves replicas out needs that much less), and the share of desired
  // service replica-ticks without a running replica.
  std::array<double, 2> predicted_peak_sum{};
  std::array<double, 2> observed_peak_sum{};
  std::array<double, 2> unplaced_peak_sum{};
  double unplaced_replica_share = 0;
  double measured_days = 0;
  double wall_seconds = 0;
};

// Task shapes weighted by how often they were submitted: the "observed task-shape mix" against
// which free capacity is judged usable or a fragment.
class ShapeMix {
 public:
  // The `max_shapes` most frequent request vectors among service replicas and batch tasks.
  static ShapeMix FromWorkload(const Workload& workload, int max_shapes = 32);
  const std::vector<std::pair<Resources, double>>& shapes() const { return shapes_; }

 private:
  std::vector<std::pair<Resources, double>> shapes_;  // request, weight (sums to 1)
};

// Share of free capacity (allocatable − requested, cpu and memory each as a share of the fleet's
// total) that the mix could not use: on each node, for each shape that does not fit the node's
// free vector, that free capacity counts as a fragment, weighted by the shape's share of the mix.
double FragmentationRate(const ClusterState& state, const ShapeMix& mix);

// Σ requests ÷ Σ capacity per dimension over the fleet, as the allocation rate samples it: under
// reclaimed-capacity accounting the tasks' requests, held outside allocatable, are added.
std::array<double, kNumDims> AllocationShares(const ClusterState& state);

// Weighted percentile of (value, weight) samples; 0 for none.
double Percentile(std::vector<std::pair<double, double>> samples, double q);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_METRICS_H_
