// What one simulated run did over time, for the HTML report (sim/html_report.h): the quantities
// the metrics of DESIGN §5 average or count (sim/metrics.h), kept as series instead. They come
// from the same run as the Metrics, by the same definitions, so that a series averaged over the
// measured period (after the warm-up) is the figure the table and the JSON give:
//  - allocation: AllocationShares every metrics interval (allocation_rate is their mean after
//    the warm-up);
//  - utilization: Σ usage ÷ Σ capacity at every usage tick (utilization is their mean after it);
//  - wait shares: wait ÷ tolerance of every first start of a task of a job submitted after the
//    warm-up (wait_tolerance_share_p50/p99 are their percentiles), by job type;
//  - disruption: evictions, migrations and OOM kills per hour over the whole run (their sums are
//    the totals of Metrics, which count the warm-up too).
// Per node, every node sample interval: its CPU usage from services and from batch (after
// contention), and its services' predicted CPU (the profiles' high-quantile curves at that time of
// day, sched/predicted_load.h); at the end a sample of nodes is kept for the heat map and the
// busiest few for the predicted-versus-observed picture.
#ifndef ARCHIMEDES_SIM_RUN_SERIES_H_
#define ARCHIMEDES_SIM_RUN_SERIES_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/cluster_state.h"
#include "model/resources.h"
#include "model/workload.h"
#include "profile/profile.h"
#include "sched/predicted_load.h"
#include "sim/metrics.h"

namespace archimedes {

// Values at start_s, start_s + step_s, ...
struct TimeSeries {
  int64_t start_s = 0;
  int64_t step_s = 1;
  std::vector<double> values;

  int64_t TimeAt(size_t i) const { return start_s + static_cast<int64_t>(i) * step_s; }
  // The mean of the values at times >= from_s; 0 when there are none.
  double MeanFrom(int64_t from_s) const;
};

struct NodeSeries {
  std::string name;
  double cpu_capacity = 0;   // millicores
  TimeSeries service_cpu;    // millicores used by services
  TimeSeries batch_cpu;      // millicores used by batch tasks
  TimeSeries predicted_cpu;  // services' predicted millicores; empty without profiles
};

struct RunSeries {
  int64_t warmup_s = 0;
  int64_t end_s = 0;
  std::array<double, kNumDims> hot_threshold{};  // cpu and memory; 0 where there is none
  double burst_buffer = 0;                       // the policy's, a share of capacity
  std::array<TimeSeries, kNumDims> allocation;
  std::array<TimeSeries, kNumDims> utilization;
  std::array<std::vector<double>, 2> wait_shares;  // by JobType
  TimeSeries evictions, migrations, oom_kills;     // per hour
  std::vector<NodeSeries> heat_map_nodes;          // evenly spaced over the fleet
  std::vector<NodeSeries> busy_nodes;              // the highest mean CPU share after warm-up
};

// Fed by the simulator as it runs; Finish() hands over the series.
class SeriesRecorder {
 public:
  static constexpr int kHeatMapNodes = 40;
  static constexpr int kBusyNodes = 3;
  static constexpr int64_t kDisruptionStep = 3600;

  // `profiles` may be null (no predicted curve). `tick_s` divides the node sample interval, the
  // metrics interval rounded up to whole ticks.
  SeriesRecorder(const Scenario& scenario, const ProfileSet* profiles, int64_t warmup_s,
                 int64_t tick_s, int64_t metrics_interval_s,
                 std::array<double, kNumDims> hot_threshold, double burst_buffer);

  void SampleAllocation(const ClusterState& state);
  void FleetTicked(const std::array<double, kNumDims>& usage,
                   const std::array<double, kNumDims>& capacity);
  void TaskStarted(int64_t now, const BatchJob& job);
  void Evicted(int64_t now) { Count(series_.evictions, now); }
  void Migrated(int64_t now) { Count(series_.migrations, now); }
  void OomKilled(int64_t now) { Count(series_.oom_kills, now); }
  // Whether the usage tick at `now` samples the nodes: then BeginNodeSample first (every node at
  // zero, its services' predicted CPU from the containers of `state`), then NodeTicked for each
  // node that runs.
  bool NodeSampleDue(int64_t now) const { return now % node_step_ == 0; }
  void BeginNodeSample(int64_t now, const ClusterState& state);
  void NodeTicked(NodeId n, double service_cpu, double batch_cpu);

  RunSeries Finish();

 private:
  void Count(TimeSeries& series, int64_t now);

  std::unique_ptr<PredictedLoad> predicted_;  // null without profiles
  int64_t node_step_;
  int64_t node_samples_ = 0;
  RunSeries series_;
  std::vector<NodeSeries> nodes_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_RUN_SERIES_H_
