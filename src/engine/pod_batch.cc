#include <memory>

#include "engine/batch_placement.h"
#include "engine/core.h"
#include "sched/kubernetes_scheduler.h"

namespace archimedes {
namespace {

class PodBatch final : public BatchPlacement {
 public:
  PodBatch(FitScoring scoring, uint64_t seed)
      : scheduler_(MakeKubernetesScheduler(scoring, seed)) {}

  TaskAccounting accounting() const override { return TaskAccounting::kAllocatable; }
  Scheduler& scheduler() override { return scheduler_; }

  Resources TaskRoom(const EngineCore& core, NodeId n) const override {
    return core.state().unrequested(n);
  }

  Resources Envelope(const EngineCore& core) const override {
    return RoomEnvelope(core.state(), [&](NodeId n) { return TaskRoom(core, n); });
  }

  BatchLimits Limits(const EngineCore& core, NodeId n) const override {
    return {.cpu = static_cast<double>(core.state().node(n).capacity.cpu())};
  }

 private:
  Scheduler scheduler_;
};

}  // namespace

std::unique_ptr<BatchPlacement> NewPodBatch(bool most_allocated, uint64_t seed) {
  return std::make_unique<PodBatch>(
      most_allocated ? FitScoring::kMostAllocated : FitScoring::kLeastAllocated, seed);
}

}  // namespace archimedes
