// Queued batch jobs (engine/core.h's job_queue), placed greedily once per scheduling cycle by
// priority, then arrival (or urgency, BatchPlacement::UrgencyWindow), through the policy's
// BatchPlacement scheduler. Cheap when most of the
// queue cannot fit: a job whose task fit no node is parked until a node that could take it frees
// resources (or the next usage round); an envelope of the room any node has and the minimal set of
// shapes that failed this cycle reject hopeless tasks in O(1); the tasks of one job skip nodes
// already found infeasible and keep the scores of nodes nothing was placed on (FeasibilityMemo).
// A gang job starts all its tasks or none.
#ifndef ARCHIMEDES_ENGINE_BATCH_QUEUE_H_
#define ARCHIMEDES_ENGINE_BATCH_QUEUE_H_

#include <array>
#include <cstdint>
#include <vector>

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

 private:
  bool PlaceJob(EngineCore& core, int32_t j);
  void RecomputeEnvelope(const EngineCore& core);
  // Inline: asked for every queued job in every cycle.
  bool EnvelopeAdmits(const Resources& r) const {
    for (Dim d : kRequestDims) {
      if (r[d] > envelope_[d]) return false;
    }
    for (const Resources& failed : failed_shapes_) {
      if (Dominates(r, failed)) return false;
    }
    return true;
  }
  // The dimensions kube-scheduler checks requests in; an envelope over them lets a cycle skip, in
  // O(1), tasks that no node could take.
  static constexpr std::array<Dim, 3> kRequestDims = {Dim::kCpu, Dim::kMemory, Dim::kGpu};
  static bool Dominates(const Resources& a, const Resources& b) {
    for (Dim d : kRequestDims) {
      if (a[d] < b[d]) return false;
    }
    return true;
  }
  void AddFailedShape(const Resources& r);

  Resources envelope_;
  std::vector<Resources> failed_shapes_;
  std::array<std::vector<int32_t>, kUrgencies> by_urgency_;  // of one priority's queue, this cycle
  std::vector<ContainerId> started_;
  FeasibilityMemo memo_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_BATCH_QUEUE_H_
