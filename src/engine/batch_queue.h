// Queued batch jobs (engine/core.h's job_queue), placed greedily once per scheduling cycle by
// priority, then arrival (or urgency, BatchPlacement::UrgencyWindow), through the policy's
// BatchPlacement scheduler. Cheap when most of the
// queue cannot fit: a job whose task fit no node is parked until a node that could take it frees
// resources (or the next usage round); an envelope of the room any node has and the minimal set of
// shapes that failed this cycle reject hopeless tasks in O(1); the tasks of one job skip nodes
// already found infeasible and keep the scores of nodes nothing was placed on (FeasibilityMemo);
// a scan passes over the nodes whose batch room, taken as the pass begins, is short of the task's
// requests (SchedulingContext::batch_room).
// A gang job starts all its tasks or none.
#ifndef ARCHIMEDES_ENGINE_BATCH_QUEUE_H_
#define ARCHIMEDES_ENGINE_BATCH_QUEUE_H_

#include <array>
#include <cstdint>
#include <vector>

#include "engine/batch_placement.h"
#include "model/cluster_state.h"
#include "model/resources.h"
#include "sched/framework.h"

namespace archimedes {

class EngineCore;

class BatchQueue {
 public:
  // The groups of jobs the queue offers room to in turn (BatchPlacement::UrgencyWindow).
  static constexpr int kUrgencies = 4;

  void Place(EngineCore& core);

  // The dimensions kube-scheduler checks requests in; an envelope over them lets a cycle skip, in
  // O(1), tasks that no node could take.
  static constexpr std::array<Dim, 3> kRequestDims = {Dim::kCpu, Dim::kMemory, Dim::kGpu};
  // What a task's fit depends on: its requests and what the strategy's fit reads of its run
  // (BatchPlacement::RunNeedsOf).
  struct TaskShape {
    Resources requests;
    RunNeeds run;
  };
  // True when a task of shape `a` fits nowhere `b`'s did not: it asks for at least as much, over
  // at least as many time bins, and may use no room `b` could not (only a serverless task may use
  // the serverless reserve and borrow CPU).
  static bool Dominates(const TaskShape& a, const TaskShape& b) {
    for (Dim d : kRequestDims) {
      if (a.requests[d] < b.requests[d]) return false;
    }
    return a.run.bins >= b.run.bins && (b.run.serverless || !a.run.serverless);
  }

 private:
  bool PlaceJob(EngineCore& core, int32_t j);
  // Takes room_ (SchedulingContext::batch_room) before the pass's first decision.
  void MeasureRoom(const EngineCore& core);
  void RecomputeEnvelope(const EngineCore& core);
  // Inline: asked for every queued job in every cycle.
  bool EnvelopeAdmits(const TaskShape& shape) const {
    for (Dim d : kRequestDims) {
      if (shape.requests[d] > envelope_[d]) return false;
    }
    for (const TaskShape& failed : failed_shapes_) {
      if (Dominates(shape, failed)) return false;
    }
    return true;
  }
  void AddFailedShape(const TaskShape& shape);

  Resources envelope_;
  std::vector<TaskShape> failed_shapes_;
  std::array<std::vector<int32_t>, kUrgencies> by_urgency_;  // of one priority's queue, this cycle
  std::vector<ContainerId> started_;
  std::vector<std::array<int64_t, 2>> room_;  // empty where the strategy has no batch allocatable
  bool room_measured_ = false;                // in this pass
  FeasibilityMemo memo_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_BATCH_QUEUE_H_
