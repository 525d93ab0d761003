#include "sched/peak_refiner.h"

#include <algorithm>
#include <array>

#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr std::array<Dim, 2> kPeakDims = {Dim::kCpu, Dim::kMemory};
// On larger fleets each replica is offered this many nodes (in rotating order), so that a pass
// stays O(replicas) rather than O(replicas × nodes).
constexpr int kMaxNodesPerReplica = 1024;

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

RefineResult RefinePeaks(const Scheduler& scheduler, const SchedulingContext& ctx,
                         std::span<ContainerId> replicas, std::span<const PodRequest> pods,
                         const ReplicaMover& move, int max_passes) {
  const ClusterState& state = ctx.state;
  const PredictedLoad& load = *ctx.predicted;
  std::array<double, kPeakDims.size()> weight{};
  for (size_t k = 0; k < kPeakDims.size(); ++k) {
    double capacity = 0;
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      if (state.ready(n)) capacity += static_cast<double>(state.node(n).capacity[kPeakDims[k]]);
    }
    weight[k] = capacity > 0 ? 1.0 / capacity : 0.0;
  }
  RefineResult result;
  const int num_nodes = state.num_nodes();
  int start = 0;  // rotates like the Scheduler's scan where a replica sees only part of the fleet
  for (; result.passes < max_passes;) {
    ++result.passes;
    int moved = 0;
    for (size_t i = replicas.size(); i-- > 0;) {
      const Container& c = state.container(replicas[i]);
      const NodeId from = c.node;
      const Demand demand = load.DemandOf(c);
      double gain = 0;
      for (size_t k = 0; k < kPeakDims.size(); ++k) {
        gain += weight[k] *
                (load.peak(from, kPeakDims[k]) - PeakWithout(load, from, kPeakDims[k], demand));
      }
      // Rounding in the float curves must not make a move look worth it.
      constexpr double kMinGain = 1e-7;
      if (gain <= kMinGain) continue;
      NodeId best = -1;
      double best_rise = gain - kMinGain;
      const int scan = std::min(num_nodes, kMaxNodesPerReplica);
      for (int k = 0; k < scan; ++k) {
        const NodeId n = static_cast<NodeId>((start + k) % num_nodes);
        if (n == from || !state.ready(n)) continue;
        // The rise is at least what the replica adds at its own peak bin: a cheap bound first.
        double bound = 0;
        for (size_t k = 0; k < kPeakDims.size(); ++k) {
          const Dim d = kPeakDims[k];
          const int di = static_cast<int>(d);
          const float at_peak = load.usage(n, d)[demand.peak_bin[di]] + demand.peak[di];
          bound += weight[k] * std::max(0.0f, at_peak - load.peak(n, d));
        }
        if (bound >= best_rise) continue;
        double rise = 0;
        for (size_t k = 0; k < kPeakDims.size(); ++k) {
          const Dim d = kPeakDims[k];
          rise += weight[k] * (load.PeakWith(n, d, demand) - load.peak(n, d));
        }
        if (rise >= best_rise || !scheduler.Feasible(ctx, pods[i], n)) continue;
        best = n;
        best_rise = rise;
      }
      start = (start + scan) % num_nodes;
      if (best < 0) continue;
      replicas[i] = move(replicas[i], best);
      result.gain += gain - best_rise;
      ++result.moves;
      ++moved;
    }
    if (moved == 0) break;
  }
  return result;
}

}  // namespace archimedes
