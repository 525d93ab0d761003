// Lowering the sum of the nodes' predicted peaks after a burst of placements (DESIGN §4).
//
// A greedy decision sees only the replicas placed before it: the valley an early replica filled
// may be where the replicas placed after it peak, and the last replicas go wherever requests still
// fit. When one scheduling cycle has placed many replicas at once (the fleet's start, a failed
// node's replicas), RefinePeaks revisits them, last placed first: each moves to the node, among
// those that pass every filter of the scheduler, where it raises the predicted peak least, when
// that lowers the sum over nodes of the predicted cpu and memory peaks (each dimension divided by
// the fleet's capacity in it: PeakCost). The filters see the replica still on its node, which is
// stricter than the move (a zone's spread count holds it once more), never looser. Passes repeat
// until none moves a replica or `max_passes` is reached. On fleets over 1,024 nodes each replica
// is offered 1,024 of them per pass, in rotating order. Nothing it moves has started, so a move is
// a better decision, not a migration.
//
// The driver owns the cluster state and the PredictedLoad that `ctx` reads and moves a replica
// through `move(id, node)`: removes container `id` from both, adds it on `node` and returns its
// new id.
#ifndef ARCHIMEDES_SCHED_PEAK_REFINER_H_
#define ARCHIMEDES_SCHED_PEAK_REFINER_H_

#include <array>
#include <functional>
#include <limits>
#include <span>

#include "model/cluster_state.h"
#include "sched/framework.h"
#include "sched/predicted_load.h"

namespace archimedes {

using ReplicaMover = std::function<ContainerId(ContainerId id, NodeId to)>;

// On larger fleets a replica looking for a better node is offered this many nodes, so that the
// work stays O(replicas) rather than O(replicas × nodes).
inline constexpr int kMaxNodesOffered = 1024;

// What a demand costs a node in predicted peaks: Σ over cpu and memory of the change of the node's
// peak ÷ the ready fleet's capacity in that dimension.
class PeakCost {
 public:
  explicit PeakCost(const ClusterState& state);
  // How much the node's peaks rise when `demand` joins it.
  double Rise(const PredictedLoad& load, NodeId n, const Demand& demand) const;
  // A lower bound of Rise in O(1): what the demand adds at its own peak bin.
  double RiseBound(const PredictedLoad& load, NodeId n, const Demand& demand) const;
  // How much the node's peaks fall when `demand`, one of its residents, leaves it.
  double Fall(const PredictedLoad& load, NodeId n, const Demand& demand) const;

 private:
  static constexpr std::array<Dim, 2> kDims = {Dim::kCpu, Dim::kMemory};
  std::array<double, kDims.size()> weight_{};
};

// Scans up to `scan` nodes from `start` (round-robin), skipping `from` and nodes not ready, for the
// one where `demand` rises least and by less than `max_rise`, among those where `pod` passes every
// filter; -1 when none. `rise`, when set, receives the winner's rise.
NodeId CheapestNode(const Scheduler& scheduler, const SchedulingContext& ctx, const PeakCost& cost,
                    const PodRequest& pod, const Demand& demand, NodeId from, int start, int scan,
                    double max_rise = std::numeric_limits<double>::infinity(),
                    double* rise = nullptr);

struct RefineResult {
  int moves = 0;
  int passes = 0;
  double gain = 0;  // what the moves lowered Σ over nodes of peak_d / fleet capacity_d by
};

// `replicas` are the containers just placed (their ids in ctx.state; `pods` the matching
// requests); ctx.predicted must be set. A moved replica's id in `replicas` is updated.
RefineResult RefinePeaks(const Scheduler& scheduler, const SchedulingContext& ctx,
                         std::span<ContainerId> replicas, std::span<const PodRequest> pods,
                         const ReplicaMover& move, int max_passes = 3);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PEAK_REFINER_H_
