#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

#include "model/quantile.h"
#include "sched/plugins/fragmentation.h"

namespace archimedes {

ShapeMix ShapeMix::FromWorkload(const Workload& workload, int max_shapes) {
  ShapeCounts counts;
  for (const Service& s : workload.services) counts[s.requests.amount] += s.replicas;
  for (const BatchJob& j : workload.jobs) counts[j.task_requests.amount] += j.tasks;
  ShapeMix mix;
  mix.shapes_ = MostFrequentShapes(counts, max_shapes);
  return mix;
}

double FragmentationRate(const ClusterState& state, const ShapeMix& mix) {
  double total_cpu = 0, total_memory = 0;
  for (const Node& n : state.nodes()) {
    total_cpu += static_cast<double>(n.allocatable.cpu());
    total_memory += static_cast<double>(n.allocatable.memory());
  }
  if (total_cpu == 0 || total_memory == 0 || mix.shapes().empty()) return 0;
  double free_sum = 0, fragment_sum = 0;
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    if (!state.ready(n)) continue;
    Resources free = state.unrequested(n);
    for (int64_t& a : free.amount) a = std::max<int64_t>(a, 0);
    double weight = static_cast<double>(free.cpu()) / total_cpu +
                    static_cast<double>(free.memory()) / total_memory;
    if (weight == 0) continue;
    free_sum += weight;
    for (const auto& [shape, share] : mix.shapes()) {
      if (!shape.FitsIn(free)) fragment_sum += share * weight;
    }
  }
  return free_sum == 0 ? 0 : fragment_sum / free_sum;
}

std::array<double, kNumDims> AllocationShares(const ClusterState& state) {
  std::array<double, kNumDims> requested{}, capacity{}, shares{};
  const bool tasks_outside = state.accounting() == TaskAccounting::kReclaimed;
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    for (int d = 0; d < kNumDims; ++d) {
      capacity[d] += static_cast<double>(state.node(n).capacity.amount[d]);
      requested[d] += static_cast<double>(state.requested(n).amount[d]);
      if (tasks_outside) requested[d] += static_cast<double>(state.task_requested(n).amount[d]);
    }
  }
  for (int d = 0; d < kNumDims; ++d) {
    if (capacity[d] > 0) shares[d] = requested[d] / capacity[d];
  }
  return shares;
}

double Percentile(std::vector<std::pair<double, double>> samples, double q) {
  return WeightedQuantile(std::move(samples), q);
}

}  // namespace archimedes
