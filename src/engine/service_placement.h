// Where service replicas go: one part of a Policy (engine/policy.h). The engine's service queue
// asks it for a node per replica; a strategy that places by profiles may still move the replicas
// a cycle placed before they start (room for one that fits nowhere, lower predicted peaks).
#ifndef ARCHIMEDES_ENGINE_SERVICE_PLACEMENT_H_
#define ARCHIMEDES_ENGINE_SERVICE_PLACEMENT_H_

#include <cstdint>
#include <memory>

#include "model/cluster_state.h"
#include "sched/framework.h"

namespace archimedes {

class EngineCore;

struct ServiceChoice {
  NodeId node = -1;
  bool movable = false;  // the strategy may still move the replica in this cycle
};

class ServicePlacement {
 public:
  virtual ~ServicePlacement() = default;
  // Whether the engine needs profiles (a predicted load) for this strategy.
  virtual bool uses_profiles() const { return false; }
  // Called once the engine's state exists (profiles, predicted load), before any decision, and
  // again whenever the service catalogue changes.
  virtual void Start(EngineCore& core) {}
  // The scheduler that decides for a replica: also where migrations place replacements, and what
  // --explain shows.
  virtual Scheduler& scheduler() = 0;
  // The node for one replica of `pod`, or -1 when none can take it.
  virtual ServiceChoice Choose(EngineCore& core, const PodRequest& pod) = 0;
  // For a replica that fits nowhere: the node where moving replicas of this cycle made room for
  // it, or -1 (nothing moved).
  virtual NodeId MakeRoom(EngineCore& core, const PodRequest& pod) { return -1; }
  // A movable replica was placed as `id`.
  virtual void Placed(ContainerId id, const PodRequest& pod) {}
  // The cycle's replicas are all placed.
  virtual void EndCycle(EngineCore& core) {}
};

// Kubernetes' default scheduler for resources: NodeResourcesFit with LeastAllocated (or, for
// `most_allocated`, MostAllocated) scoring and BalancedAllocation, weight 1 each.
std::unique_ptr<ServicePlacement> NewRequestPlacement(bool most_allocated, uint64_t seed);

// The archimedes placement (sched/archimedes_placement.h) by the engine's profiles, with
// kube-scheduler's as the fallback where no node fits a replica's predicted curve (its requests
// are its guarantee); with `refine`, the replicas a cycle placed may move before they start
// (sched/room_maker.h, sched/peak_refiner.h).
std::unique_ptr<ServicePlacement> NewProfilePlacement(bool refine, uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_SERVICE_PLACEMENT_H_
