// What the engine does when a node's usage crosses its threshold: one part of a Policy
// (engine/policy.h). Called once per ready node and usage round, with the node's containers and
// their usage (EngineCore::node_usage()); the strategy evicts or migrates through the core and
// returns how far batch on the node must slow down in disk and network.
#ifndef ARCHIMEDES_ENGINE_PRESSURE_RESPONSE_H_
#define ARCHIMEDES_ENGINE_PRESSURE_RESPONSE_H_

#include <memory>

#include "engine/surge_margin.h"
#include "model/cluster_state.h"

namespace archimedes {

class EngineCore;

class PressureResponse {
 public:
  virtual ~PressureResponse() = default;
  // Called once the engine's state exists, before any decision, and again whenever the service
  // catalogue changes.
  virtual void Start(EngineCore& core) {}
  // How far above their profiles the services of a node may still rise (engine/surge_margin.h);
  // null when the strategy keeps no margin. Migrations leave room for a mover's bursts by it.
  virtual const SurgeMargin* surge_margin() const { return nullptr; }
  // Whether the strategy may move service replicas: a move judges its targets by the usage of
  // every replica in the fleet, which the driver then has to supply at each round's start.
  virtual bool moves_replicas() const { return false; }
  // Relieves node `n`; returns the disk and network throttle of its batch (1 = none).
  virtual double Relieve(EngineCore& core, NodeId n) = 0;
};

// The baseline's: batch evicted lowest priority first, newest first, when the memory of the node
// crosses the burst buffer (sched/eviction.h's NaiveEvictor).
std::unique_ptr<PressureResponse> NewBatchEviction();

// Archimedes': batch yields first (throttled, then the fewest evictions, least progress first:
// sched/reclaimable.h); then, when services alone cross the hot thresholds now or are predicted to
// within the migration horizon (with a surge margin above their profiles), the SLA-ordered minimal
// victim set is moved make-before-break where it can be, evicted where it cannot (only when the
// node is over now).
std::unique_ptr<PressureResponse> NewSlaRelief();

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_PRESSURE_RESPONSE_H_
