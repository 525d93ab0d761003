#include <memory>

#include "engine/core.h"
#include "engine/service_placement.h"
#include "sched/kubernetes_scheduler.h"

namespace archimedes {
namespace {

class RequestPlacement : public ServicePlacement {
 public:
  RequestPlacement(FitScoring scoring, uint64_t seed)
      : scheduler_(MakeKubernetesScheduler(scoring, seed)) {}

  Scheduler& scheduler() override { return scheduler_; }

  ServiceChoice Choose(EngineCore& core, const PodRequest& pod) override {
    return {.node = core.Decide(scheduler_, pod)};
  }

 private:
  Scheduler scheduler_;
};

}  // namespace

std::unique_ptr<ServicePlacement> NewRequestPlacement(bool most_allocated, uint64_t seed) {
  return std::make_unique<RequestPlacement>(
      most_allocated ? FitScoring::kMostAllocated : FitScoring::kLeastAllocated, seed);
}

}  // namespace archimedes
