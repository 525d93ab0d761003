// The running sums behind the metrics of DESIGN §5 (sim/metrics.h), fed by the simulated world as
// it runs: what happened to tasks and replicas, each usage tick, each allocation sample. Counts
// start after the warm-up; a job counts when it was submitted after it. Finish() turns the sums,
// with what the engine reports of its services and jobs, into the figures reports print.
#ifndef ARCHIMEDES_SIM_METRICS_COLLECTOR_H_
#define ARCHIMEDES_SIM_METRICS_COLLECTOR_H_

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "model/cluster_state.h"
#include "model/workload.h"
#include "sim/engine_link.h"
#include "sim/metrics.h"
#include "sim/sla_report.h"

namespace archimedes {

class MetricsCollector {
 public:
  // `sla_records`, when set, receives one record per service and counted job at Finish().
  // `burst_buffer` is the policy's (Policy::buffer): what is usable is capacity × (1 − it).
  MetricsCollector(const Workload& workload, int64_t warmup_s, int64_t tick_s, double burst_buffer,
                   std::vector<ContractRecord>* sla_records);

  // Tasks.
  void JobSubmitted(const BatchJob& job);
  // A task of job `j` started at `now`; a first start is judged against the job's tolerance.
  void TaskStarted(int64_t now, int32_t j, bool first_start);
  void TaskFinished(int64_t now, int32_t j, bool job_complete);
  // A task ended before its work was done: `done_s` seconds of its work are lost.
  void TaskKilled(int64_t now, int32_t j, double done_s);
  void TasksReportedLate(int32_t j, int tasks);

  // Disruption.
  void Evicted() { ++evictions_; }
  void Migrated(bool for_health);
  void ScaledOut() { ++health_scale_outs_; }
  void OomKilled(int64_t now, const Container& c);
  void FailureKilled() { ++failure_kills_; }

  // Services: their desired replicas change at `now` (a rollout is no harm while it starts).
  void ServiceScaled(int64_t now, int32_t s, int from, int to);

  // One node's usage tick after the warm-up: hot or not, with `containers` on it.
  void NodeTicked(bool hot, int containers);
  // The fleet's usage tick: usage and capacity totals per dimension; then every service's
  // replicas are judged (serving unless on a hot node or still starting).
  void FleetTicked(int64_t now, const std::array<double, kNumDims>& usage,
                   const std::array<double, kNumDims>& capacity, const EngineLink& engine,
                   std::span<const uint8_t> node_hot);
  // Allocation and fragmentation, every metrics interval after the warm-up.
  void SampleAllocation(const ClusterState& state, const ShapeMix& mix);

  // The metrics of a run that ended at `end` with `submitted` jobs submitted.
  Metrics Finish(int64_t end, size_t submitted, const EngineLink& engine,
                 std::span<const int64_t> give_up_at);

 private:
  struct ServiceSlaRun {
    // The last start or scale-up of the service and the replicas it added: those placed within a
    // tick of it are no harm while they start, as a new deployment's rollout is no outage (a
    // replacement of a lost replica is).
    int64_t ramp_start = -1;
    int ramp_added = 0;
    int64_t last_oom_kill = -1;  // of a replica, cgroup or node OOM killer: a breach's reason
    double desired_time = 0;     // replica-seconds after warm-up
    double harmed_time = 0;
    std::vector<Breach> breaches;  // filled only for --sla-report
  };
  struct JobSlaRun {
    bool started_late = false;
    int64_t worst_wait = 0;  // longest wait of a first start
    int64_t completed_at = -1;
  };

  void JudgeStarts(const BatchJob& job, int64_t tasks, bool within_tolerance);
  void AddLateness(const BatchJob& job, int64_t tasks, int64_t start);
  double CoreSeconds(const BatchJob& job) const;

  const Workload& workload_;
  int64_t warmup_s_;
  int64_t tick_s_;
  double burst_buffer_;
  std::vector<ContractRecord>* sla_records_;
  std::vector<ServiceSlaRun> services_;
  std::vector<JobSlaRun> jobs_;

  std::array<double, kNumDims> allocation_sum_{}, utilization_sum_{};
  double fragmentation_sum_ = 0;
  int64_t allocation_samples_ = 0, utilization_samples_ = 0;
  int64_t hot_node_ticks_ = 0, node_ticks_ = 0;
  double container_seconds_ = 0;
  double batch_core_seconds_ = 0;
  // (wait, tasks): consecutive first starts of one job at one time are one sample.
  std::vector<std::pair<double, double>> waits_;
  std::vector<std::pair<double, double>> wait_shares_;  // (wait ÷ tolerance, tasks)
  int32_t last_start_job_ = -1;
  int64_t last_start_time_ = -1;
  int64_t tasks_within_tolerance_ = 0, tasks_judged_ = 0;
  std::array<int64_t, 2> type_within_tolerance_{}, type_judged_{};  // by JobType
  double weighted_lateness_sum_ = 0, lateness_weight_ = 0;
  double offered_core_seconds_ = 0;  // the CPU work of the jobs submitted after warm-up
  double lost_core_seconds_ = 0;     // the progress of batch tasks killed after warm-up
  int64_t evictions_ = 0, migrations_ = 0, oom_kills_ = 0, failure_kills_ = 0;
  int64_t health_migrations_ = 0, health_scale_outs_ = 0;
  int64_t tasks_reported_late_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_METRICS_COLLECTOR_H_
