#include "sim/run_series.h"

#include <algorithm>
#include <numeric>

#include "sched/archimedes_placement.h"

namespace archimedes {

double TimeSeries::MeanFrom(int64_t from_s) const {
  double sum = 0;
  int64_t count = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (TimeAt(i) < from_s) continue;
    sum += values[i];
    ++count;
  }
  return count > 0 ? sum / static_cast<double>(count) : 0;
}

SeriesRecorder::SeriesRecorder(const Scenario& scenario, const ProfileSet* profiles,
                               int64_t warmup_s, int64_t tick_s, int64_t metrics_interval_s,
                               std::array<double, kNumDims> hot_threshold, double burst_buffer)
    : node_step_((metrics_interval_s + tick_s - 1) / tick_s * tick_s) {
  if (profiles != nullptr) {
    predicted_ = std::make_unique<PredictedLoad>(scenario.nodes);
    RegisterServices(*predicted_, scenario.workload.services, *profiles);
  }
  series_.warmup_s = warmup_s;
  series_.end_s = scenario.duration_s;
  series_.hot_threshold = hot_threshold;
  series_.burst_buffer = burst_buffer;
  for (int d = 0; d < kNumDims; ++d) {
    series_.allocation[d].step_s = metrics_interval_s;
    series_.utilization[d].step_s = tick_s;
  }
  for (TimeSeries* s : {&series_.evictions, &series_.migrations, &series_.oom_kills}) {
    s->step_s = kDisruptionStep;
    s->values.assign(static_cast<size_t>((series_.end_s + kDisruptionStep - 1) / kDisruptionStep),
                     0);
  }
}

void SeriesRecorder::SampleAllocation(const ClusterState& state) {
  const std::array<double, kNumDims> shares = AllocationShares(state);
  for (int d = 0; d < kNumDims; ++d) series_.allocation[d].values.push_back(shares[d]);
}

void SeriesRecorder::FleetTicked(const std::array<double, kNumDims>& usage,
                                 const std::array<double, kNumDims>& capacity) {
  // As MetricsCollector::FleetTicked: a dimension without capacity has no utilization.
  for (int d = 0; d < kNumDims; ++d) {
    series_.utilization[d].values.push_back(capacity[d] > 0 ? usage[d] / capacity[d] : 0.0);
  }
}

void SeriesRecorder::TaskStarted(int64_t now, const BatchJob& job) {
  if (job.submit_time < series_.warmup_s) return;
  const auto wait = static_cast<double>(now - job.submit_time);
  series_.wait_shares[static_cast<size_t>(job.type)].push_back(
      wait / static_cast<double>(std::max<int64_t>(job.delay_tolerance_s, 1)));
}

void SeriesRecorder::Count(TimeSeries& series, int64_t now) {
  const auto i = static_cast<size_t>(now / kDisruptionStep);
  if (i < series.values.size()) series.values[i] += 1;
}

void SeriesRecorder::BeginNodeSample(int64_t now, const ClusterState& state) {
  ++node_samples_;
  for (NodeId n = static_cast<NodeId>(nodes_.size()); n < state.num_nodes(); ++n) {
    // A node added during the run used nothing before it.
    NodeSeries node{.name = state.node(n).name,
                    .cpu_capacity = static_cast<double>(state.node(n).capacity.cpu())};
    for (TimeSeries* s : {&node.service_cpu, &node.batch_cpu, &node.predicted_cpu}) {
      s->step_s = node_step_;
      s->values.assign(static_cast<size_t>(node_samples_ - 1), 0);
    }
    nodes_.push_back(std::move(node));
    if (predicted_ && n >= predicted_->num_nodes()) predicted_->AddNode(state.node(n));
  }
  for (NodeSeries& node : nodes_) {
    node.service_cpu.values.push_back(0);
    node.batch_cpu.values.push_back(0);
    node.predicted_cpu.values.push_back(0);
  }
  if (!predicted_) return;
  const int bin = predicted_->BinAt(now);
  for (ContainerId id = 0; id < state.id_limit(); ++id) {
    if (!state.alive(id)) continue;
    const Container& c = state.container(id);
    if (c.kind != OwnerKind::kService) continue;
    const Demand demand = predicted_->DemandOf(c);
    // The curve is dimension-major and CPU is the first dimension.
    nodes_[c.node].predicted_cpu.values.back() +=
        demand.curve != nullptr ? demand.curve[bin] : demand.peak[0];
  }
}

void SeriesRecorder::NodeTicked(NodeId n, double service_cpu, double batch_cpu) {
  nodes_[n].service_cpu.values.back() = service_cpu;
  nodes_[n].batch_cpu.values.back() = batch_cpu;
}

RunSeries SeriesRecorder::Finish() {
  RunSeries series = std::move(series_);
  if (!predicted_) {
    for (NodeSeries& node : nodes_) node.predicted_cpu.values.clear();
  }
  const size_t count = nodes_.size();
  const size_t heat = std::min<size_t>(count, kHeatMapNodes);
  for (size_t i = 0; i < heat; ++i) series.heat_map_nodes.push_back(nodes_[i * count / heat]);
  std::vector<double> mean_use(count);
  for (size_t n = 0; n < count; ++n) {
    if (nodes_[n].cpu_capacity <= 0) continue;
    mean_use[n] = (nodes_[n].service_cpu.MeanFrom(series.warmup_s) +
                   nodes_[n].batch_cpu.MeanFrom(series.warmup_s)) /
                  nodes_[n].cpu_capacity;
  }
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  const size_t busy = std::min<size_t>(count, kBusyNodes);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(busy), order.end(),
                    [&](size_t a, size_t b) { return mean_use[a] > mean_use[b]; });
  for (size_t i = 0; i < busy; ++i) series.busy_nodes.push_back(nodes_[order[i]]);
  return series;
}

}  // namespace archimedes
