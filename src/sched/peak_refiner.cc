#include "sched/peak_refiner.h"

#include <algorithm>

namespace archimedes {
namespace {

// The node's peak in `d` once `demand` leaves it.
float PeakWithout(const PredictedLoad& load, NodeId n, Dim d, const Demand& demand) {
  const int di = static_cast<int>(d);
  if (demand.curve == nullptr) return load.peak(n, d) - demand.peak[di];
  std::span<const float> u = load.usage(n, d);
  const float* c = demand.curve + static_cast<size_t>(di) * u.size();
  float best = 0;
  for (size_t b = 0; b < u.size(); ++b) best = std::max(best, u[b] - c[b]);
  return best;
}

}  // namespace

PeakCost::PeakCost(const ClusterState& state) {
  for (size_t k = 0; k < kDims.size(); ++k) {
    double capacity = 0;
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      if (state.ready(n)) capacity += static_cast<double>(state.node(n).capacity[kDims[k]]);
    }
    weight_[k] = capacity > 0 ? 1.0 / capacity : 0.0;
  }
}

double PeakCost::Rise(const PredictedLoad& load, NodeId n, const Demand& demand) const {
  double rise = 0;
  for (size_t k = 0; k < kDims.size(); ++k) {
    rise += weight_[k] * (load.PeakWith(n, kDims[k], demand) - load.peak(n, kDims[k]));
  }
  return rise;
}

double PeakCost::RiseBound(const PredictedLoad& load, NodeId n, const Demand& demand) const {
  double bound = 0;
  for (size_t k = 0; k < kDims.size(); ++k) {
    const Dim d = kDims[k];
    const int di = static_cast<int>(d);
    const float at_peak = load.usage(n, d)[demand.peak_bin[di]] + demand.peak[di];
    bound += weight_[k] * std::max(0.0f, at_peak - load.peak(n, d));
  }
  return bound;
}

double PeakCost::Fall(const PredictedLoad& load, NodeId n, const Demand& demand) const {
  double fall = 0;
  for (size_t k = 0; k < kDims.size(); ++k) {
    fall += weight_[k] * (load.peak(n, kDims[k]) - PeakWithout(load, n, kDims[k], demand));
  }
  return fall;
}

NodeId CheapestNode(const Scheduler& scheduler, const SchedulingContext& ctx, const PeakCost& cost,
                    const PodRequest& pod, const Demand& demand, NodeId from, int start, int scan,
                    double max_rise, double* rise) {
  const ClusterState& state = ctx.state;
  const PredictedLoad& load = *ctx.predicted;
  const int num_nodes = state.num_nodes();
  NodeId best = -1;
  double best_rise = max_rise;
  for (int k = 0; k < scan; ++k) {
    const NodeId n = static_cast<NodeId>((start + k) % num_nodes);
    if (n == from || !state.ready(n) || cost.RiseBound(load, n, demand) >= best_rise) continue;
    const double r = cost.Rise(load, n, demand);
    if (r >= best_rise || !scheduler.Feasible(ctx, pod, n)) continue;
    best = n;
    best_rise = r;
  }
  if (rise != nullptr) *rise = best_rise;
  return best;
}

RefineResult RefinePeaks(const Scheduler& scheduler, const SchedulingContext& ctx,
                         std::span<ContainerId> replicas, std::span<const PodRequest> pods,
                         const ReplicaMover& move, int max_passes) {
  const ClusterState& state = ctx.state;
  const PredictedLoad& load = *ctx.predicted;
  const PeakCost cost(state);
  const int num_nodes = state.num_nodes();
  const int scan = std::min(num_nodes, kMaxNodesOffered);
  int start = 0;  // rotates like the Scheduler's scan where a replica sees only part of the fleet
  RefineResult result;
  for (; result.passes < max_passes;) {
    ++result.passes;
    int moved = 0;
    for (size_t i = replicas.size(); i-- > 0;) {
      const Container& c = state.container(replicas[i]);
      const NodeId from = c.node;
      const Demand demand = load.DemandOf(c);
      const double gain = cost.Fall(load, from, demand);
      // Rounding in the float curves must not make a move look worth it.
      constexpr double kMinGain = 1e-7;
      if (gain <= kMinGain) continue;
      double rise = 0;
      const NodeId best = CheapestNode(scheduler, ctx, cost, pods[i], demand, from, start, scan,
                                       gain - kMinGain, &rise);
      start = (start + scan) % num_nodes;
      if (best < 0) continue;
      replicas[i] = move(replicas[i], best);
      result.gain += gain - rise;
      ++result.moves;
      ++moved;
    }
    if (moved == 0) break;
  }
  return result;
}

}  // namespace archimedes
