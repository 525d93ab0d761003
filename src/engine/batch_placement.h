// Where batch and serverless tasks go: one part of a Policy (engine/policy.h). The engine's batch
// queue places jobs greedily through the strategy's scheduler; a planning strategy also plans
// tasks into future windows and starts the ones planned for now. The strategy owns what batch
// may use on each node (reclaimed capacity, the serverless reserve) and says how batch is capped.
#ifndef ARCHIMEDES_ENGINE_BATCH_PLACEMENT_H_
#define ARCHIMEDES_ENGINE_BATCH_PLACEMENT_H_

#include <cstdint>
#include <memory>
#include <span>

#include "engine/action.h"
#include "engine/planned_task.h"
#include "model/cluster_state.h"
#include "model/resources.h"
#include "model/workload.h"
#include "sched/framework.h"

namespace archimedes {

class EngineCore;

// What a task's fit reads beyond its requests (BatchPlacement::RunNeedsOf).
struct RunNeeds {
  int bins = 0;
  bool serverless = false;
};

class BatchPlacement {
 public:
  virtual ~BatchPlacement() = default;
  // How tasks count on a node: against allocatable, or outside it on reclaimed capacity.
  virtual TaskAccounting accounting() const = 0;
  // Whether the engine needs profiles (a predicted load) for this strategy.
  virtual bool uses_profiles() const { return false; }
  // What a task's fit reads beyond its requests: the time bins of its estimated run it needs room
  // over, and whether it is serverless (it may use room other tasks leave free); zero and false
  // where the fit reads requests only. A task that failed rules out only tasks at least as large,
  // over at least as many bins, and no more privileged.
  virtual RunNeeds RunNeedsOf(const EngineCore& core, const BatchJob& job) const { return {}; }
  // Called once the engine's state exists, before any decision, and again whenever the service
  // catalogue changes.
  virtual void Start(EngineCore& core) {}
  virtual Scheduler& scheduler() = 0;
  // What this strategy adds to every decision's SchedulingContext.
  virtual void FillContext(SchedulingContext& ctx) const {}
  // An upper bound of the room a task could find on node `n`.
  virtual Resources TaskRoom(const EngineCore& core, NodeId n) const = 0;
  // TaskRoom's componentwise maximum over the ready nodes (RoomEnvelope), taken at every cycle.
  virtual Resources Envelope(const EngineCore& core) const = 0;
  // Whether a task of `job` is placed greedily by the queue (else only by the plan, or where
  // capacity was just freed). Asked once, when the job is submitted.
  virtual bool Greedy(const BatchJob& job) const { return true; }
  // Positive: within each priority the queue offers room in urgency order, first what would be
  // lost within this many seconds (tasks about to miss their deadline, then late tasks about to
  // be given up by their submitter), then the other tasks in time, then the other late ones (a
  // planner's order). 0: in arrival order (kube-scheduler's).
  virtual int64_t UrgencyWindow() const { return 0; }
  // Whether a cycle is due although nothing changed (a re-plan).
  virtual bool Due(const EngineCore& core) const { return false; }
  // Runs in every cycle after the services are placed, before the greedy pass.
  virtual void Plan(EngineCore& core) {}
  // Tasks of job `job` started greedily on `nodes` (not by the plan).
  virtual void StartedGreedily(EngineCore& core, const BatchJob& job,
                               std::span<const ContainerId> started) {}
  // A task of `job` starts on (+1) or leaves (−1) node `n`.
  virtual void CountTask(const BatchJob& job, NodeId n, int sign) {}
  // Task `c` of `job` has ended (finished, evicted, lost or stopped), at the engine's time; not
  // called for the starts a gang takes back.
  virtual void TaskEnded(const BatchJob& job, const Container& c) {}
  virtual void NodeAdded(NodeId n) {}
  // The fleet changed (a node added, failed or recovered).
  virtual void FleetChanged() {}
  virtual void BeginUsageRound(EngineCore& core) {}
  // Whether the strategy reads the services' usage (ObserveServices).
  virtual bool observes_services() const { return false; }
  // The services on ready node `n` use `service_usage` now (zero for a node that is not ready).
  virtual void ObserveServices(EngineCore& core, NodeId n,
                               const std::array<float, kNumDims>& usage) {}
  virtual void EndUsageRound() {}
  // How batch is capped on node `n`, before any yielding.
  virtual BatchLimits Limits(const EngineCore& core, NodeId n) const = 0;
  // The places the plan holds for tasks not started yet, as of the last cycle, in planning order;
  // a job may have more than it has pending tasks (some started elsewhere since). Empty for a
  // strategy that does not plan.
  virtual std::span<const PlannedTask> plan() const { return {}; }
};

// The componentwise maximum of `room(n)` over the ready nodes of `state`: a strategy's Envelope,
// with its own TaskRoom called directly (no virtual call per node).
template <typename Room>
Resources RoomEnvelope(const ClusterState& state, const Room& room) {
  Resources envelope;
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    if (state.ready(n)) envelope = Max(envelope, room(n));
  }
  return envelope;
}

// Tasks as ordinary pods (Kubernetes): by requests, against allocatable, first come first served,
// with kube-scheduler's default scoring (LeastAllocated or `most_allocated`).
std::unique_ptr<BatchPlacement> NewPodBatch(bool most_allocated, uint64_t seed);

// Tasks on reclaimed capacity as soon as they fit (Koordinator-style): per node, capacity ×
// (1 − buffer) − the services' peak usage over the last 15 usage rounds; batch CPU capped at the
// buffer.
std::unique_ptr<BatchPlacement> NewReclaimedBatch(double buffer, uint64_t seed);

// Tasks planned into the predicted valleys and fragments (sched/batch_planner.h): a full re-plan
// every bin and whenever the fleet changed, new jobs added to the plan in the cycle they arrive;
// serverless tasks (and tasks that request a GPU) placed greedily; a serverless reserve kept free
// of offline tasks; serverless tasks may borrow `serverless_cpu_borrow` of the CPU offline tasks
// request on a node (the node then throttles the offline tasks first).
std::unique_ptr<BatchPlacement> NewPlannedBatch(double buffer, double serverless_cpu_borrow,
                                                uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_BATCH_PLACEMENT_H_
