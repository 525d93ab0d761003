// Room for a replica that fits nowhere, made by moving replicas that have not started yet.
//
// A cycle that places many replicas at once decides them one by one, so a large replica late in
// the cycle can find every node's room taken by smaller ones placed before it, although moving a
// few of those elsewhere would make room. MakeRoom tries the nodes whose unrequested allocatable
// comes closest to the pod's requests (at most `max_nodes` of them): on each, the movable replicas
// there (those covering most of what the pod lacks first, at most four) move to the node where
// they raise the predicted peak least among those that pass every filter (the first 1,024 nodes
// on larger fleets), until the pod passes every filter there, and that node is returned. Otherwise
// every move of that attempt is undone and the next node is tried. Only replicas placed in the same
// cycle are movable: they have not started, so a move is a different decision, not a migration.
//
// The driver owns the cluster state and the PredictedLoad that `ctx` reads and moves replicas
// through `move` (sched/peak_refiner.h's ReplicaMover); a moved replica's id in `movable` is
// updated.
#ifndef ARCHIMEDES_SCHED_ROOM_MAKER_H_
#define ARCHIMEDES_SCHED_ROOM_MAKER_H_

#include <span>
#include <vector>

#include "model/cluster_state.h"
#include "sched/framework.h"
#include "sched/peak_refiner.h"

namespace archimedes {

// The node where `pod` now passes every filter of `scheduler`, or -1 (nothing moved).
NodeId MakeRoom(const Scheduler& scheduler, const SchedulingContext& ctx, const PodRequest& pod,
                std::span<ContainerId> movable, std::span<const PodRequest> movable_pods,
                const ReplicaMover& move, int max_nodes = 32);

// Where the movable replicas (in their order) and then `pod` go when placed again by `scheduler`
// (a request-based one: it reads no predicted load) on a copy of the fleet without them. Moves
// one at a time cannot undo an arrangement in which every node's room went to small replicas;
// this is the cycle decided again from its start. `pod_node` is -1, and nothing is decided, when
// one of them finds no node; the caller carries out the moves.
struct Repacking {
  NodeId pod_node = -1;
  std::vector<NodeId> movable_nodes;  // per movable replica
};
Repacking Repack(Scheduler& scheduler, const ClusterState& state, int64_t now,
                 const PodRequest& pod, std::span<const ContainerId> movable,
                 std::span<const PodRequest> movable_pods);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_ROOM_MAKER_H_
