// Pending service replicas (engine/core.h's pending_services), placed once per scheduling cycle:
// higher priority first, each through the policy's ServicePlacement; a replica no node takes
// preempts lower priorities where that makes room (sched/preemption.h), and its service otherwise
// backs off as kube-scheduler's unschedulable pods do (1 s doubling up to 10 s).
#ifndef ARCHIMEDES_ENGINE_SERVICE_QUEUE_H_
#define ARCHIMEDES_ENGINE_SERVICE_QUEUE_H_

namespace archimedes {

class EngineCore;

void PlaceServices(EngineCore& core);

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_SERVICE_QUEUE_H_
