// Bringing one node back under its thresholds before the kernel or the hardware would, shared by
// the pressure responses (engine/pressure_response.h). Batch yields the memory it holds above the
// burst buffer, as far as its own memory goes. With `services` relief, services that alone cross
// the hot thresholds — the CPU threshold (batch CPU is throttled instead, never a reason to
// evict) or all of the memory — now, or predicted to within the migration horizon (with the surge
// margin), give up the SLA-ordered minimal victim set: moved make-before-break where a node can
// take them, evicted only when the node is over now. A replica whose move is under way still runs
// until its replacement is ready, but is already leaving: its usage does not count towards the
// services' need, or further replicas would be moved for it; it and replacements still starting
// on the node are no candidates.
#ifndef ARCHIMEDES_ENGINE_NODE_RELIEF_H_
#define ARCHIMEDES_ENGINE_NODE_RELIEF_H_

#include <cstdint>
#include <vector>

#include "engine/surge_margin.h"
#include "model/cluster_state.h"
#include "sched/eviction.h"

namespace archimedes {

class EngineCore;

class NodeRelief {
 public:
  // Batch memory only, chosen by the naive evictor (lowest priority, newest first).
  void RelieveBatch(EngineCore& core, NodeId n);
  // Batch memory and services, chosen by the SLA-ordered minimal evictor; `margin` may be null.
  void RelieveAll(EngineCore& core, NodeId n, const SurgeMargin* margin);

 private:
  void Relieve(EngineCore& core, NodeId n, bool services_too, const SurgeMargin* margin);

  Evictor evictor_;
  NaiveEvictor naive_evictor_;
  std::vector<EvictionCandidate> candidates_;
  std::vector<ContainerId> victims_;
  std::vector<int32_t> staying_services_, leaving_services_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_NODE_RELIEF_H_
