#include <memory>
#include <optional>
#include <utility>
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
      : refine_(refine),
        seed_(seed),
        fallback_(MakeKubernetesScheduler(FitScoring::kLeastAllocated, seed)) {}

  bool uses_profiles() const override { return true; }

  void Start(EngineCore& core) override {
    scheduler_.emplace(MakeArchimedesServiceScheduler(
        core.placement_settings(),
        PlacementInputs::From(core.services(), core.options().profiles, *core.predicted(),
                              core.placement_settings(), core.options().task_shapes)));
  }

  Scheduler& scheduler() override { return *scheduler_; }

  ServiceChoice Choose(EngineCore& core, const PodRequest& pod) override {
    if (!repacked_) {
      const NodeId node = core.Decide(*scheduler_, pod);
      if (node >= 0) return {.node = node, .movable = refine_};
    }
    // A replica's guarantee is its requests: where no node fits its predicted curve under the
    // buffer, it still goes where its requests fit rather than stay pending.
    return {.node = core.Decide(fallback_, pod), .movable = refine_};
  }

  // Moves of a few replicas first; where those cannot make room, the cycle's replicas are placed
  // again by requests alone, as kube-scheduler would have placed them, and the rest of the cycle
  // follows it: a replica that request-based placement finds room for is not left out by the
  // arrangement the profile scores chose. Tried once per cycle (each try places the whole cycle).
  NodeId MakeRoom(EngineCore& core, const PodRequest& pod) override {
    if (!refine_) return -1;
    const NodeId node = archimedes::MakeRoom(
        *scheduler_, core.Context(), pod, placed_ids_, placed_pods_,
        [&](ContainerId id, NodeId to) {
          return core.MoveUnstartedReplica(id, to, "to make room for a replica that fit nowhere");
        });
    if (node >= 0 || repack_tried_ || placed_ids_.empty()) return node;
    repack_tried_ = true;
    // From the state a fresh kube-scheduler starts in (its node sampling's first node, its tie
    // draws), so that on a cycle that starts from an empty fleet the decisions are exactly those
    // of the k8s-default policy; the rest of the cycle goes on from there.
    Scheduler kube = MakeKubernetesScheduler(FitScoring::kLeastAllocated, seed_);
    const Repacking repacking =
        Repack(kube, core.state(), core.now(), pod, placed_ids_, placed_pods_);
    if (repacking.pod_node < 0) return -1;
    for (size_t i = 0; i < placed_ids_.size(); ++i) {
      if (core.state().container(placed_ids_[i]).node != repacking.movable_nodes[i]) {
        placed_ids_[i] = core.MoveUnstartedReplica(
            placed_ids_[i], repacking.movable_nodes[i],
            "as the cycle was placed again by requests to make room for a replica that fit "
            "nowhere");
      }
    }
    fallback_ = std::move(kube);
    repacked_ = true;
    return repacking.pod_node;
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
    repack_tried_ = false;
    repacked_ = false;
  }

 private:
  bool refine_;
  uint64_t seed_;
  std::optional<Scheduler> scheduler_;  // built by Start, from the engine's profiles
  Scheduler fallback_;
  bool repack_tried_ = false;
  bool repacked_ = false;  // this cycle was placed again by requests (MakeRoom)
  // Replicas placed in this cycle: they have not started and may move.
  std::vector<ContainerId> placed_ids_;
  std::vector<PodRequest> placed_pods_;
};

}  // namespace

std::unique_ptr<ServicePlacement> NewProfilePlacement(bool refine, uint64_t seed) {
  return std::make_unique<ProfilePlacement>(refine, seed);
}

}  // namespace archimedes
