#include <memory>
#include <optional>
#include <vector>

#include "engine/core.h"
#include "engine/service_placement.h"
#include "sched/archimedes_placement.h"
#include "sched/kubernetes_scheduler.h"
#include "sched/peak_refiner.h"
#include "sched/room_maker.h"

namespace archimedes {
namespace {

class ProfilePlacement : public ServicePlacement {
 public:
  ProfilePlacement(bool refine, uint64_t seed)
      : refine_(refine), fallback_(MakeKubernetesScheduler(FitScoring::kLeastAllocated, seed)) {}

  bool uses_profiles() const override { return true; }

  void Start(EngineCore& core) override {
    scheduler_.emplace(MakeArchimedesServiceScheduler(
        core.placement_settings(),
        PlacementInputs::From(core.services(), core.options().profiles, *core.predicted(),
                              core.placement_settings(), core.options().task_shapes)));
  }

  Scheduler& scheduler() override { return *scheduler_; }

  ServiceChoice Choose(EngineCore& core, const PodRequest& pod) override {
    const NodeId node = core.Decide(*scheduler_, pod);
    if (node >= 0) return {.node = node, .movable = refine_};
    // A replica's guarantee is its requests: where no node fits its predicted curve under the
    // buffer, it still goes where its requests fit rather than stay pending.
    return {.node = core.Decide(fallback_, pod)};
  }

  NodeId MakeRoom(EngineCore& core, const PodRequest& pod) override {
    if (!refine_) return -1;
    return archimedes::MakeRoom(*scheduler_, core.Context(), pod, placed_ids_, placed_pods_,
                                [&](ContainerId id, NodeId to) {
                                  return core.MoveUnstartedReplica(
                                      id, to, "to make room for a replica that fit nowhere");
                                });
  }

  void Placed(ContainerId id, const PodRequest& pod) override {
    placed_ids_.push_back(id);
    placed_pods_.push_back(pod);
  }

  // Moves the replicas placed in this cycle while that lowers the sum of predicted peaks.
  void EndCycle(EngineCore& core) override {
    constexpr size_t kMinReplicasToRefine = 2;
    if (placed_ids_.size() >= kMinReplicasToRefine) {
      RefinePeaks(
          *scheduler_, core.Context(), placed_ids_, placed_pods_, [&](ContainerId id, NodeId to) {
            return core.MoveUnstartedReplica(
                id, to, "as that lowers the sum of the nodes' predicted cpu and memory peaks");
          });
    }
    placed_ids_.clear();
    placed_pods_.clear();
  }

 private:
  bool refine_;
  std::optional<Scheduler> scheduler_;  // built by Start, from the engine's profiles
  Scheduler fallback_;
  // Replicas the profile scheduler placed in this cycle: they have not started and may move.
  std::vector<ContainerId> placed_ids_;
  std::vector<PodRequest> placed_pods_;
};

}  // namespace

std::unique_ptr<ServicePlacement> NewProfilePlacement(bool refine, uint64_t seed) {
  return std::make_unique<ProfilePlacement>(refine, seed);
}

}  // namespace archimedes
