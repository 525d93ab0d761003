// Nodes with their ClusterState and PredictedLoad, a Scheduler of TimeAwareFit alone, and service
// replicas that tests place and move as the simulator does (sched/peak_refiner.h's ReplicaMover),
// for the tests of what moves unstarted replicas (peak refiner, room maker).
#ifndef ARCHIMEDES_TESTS_SUPPORT_MOVABLE_FLEET_H_
#define ARCHIMEDES_TESTS_SUPPORT_MOVABLE_FLEET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster_state.h"
#include "sched/framework.h"
#include "sched/peak_refiner.h"
#include "sched/plugins/time_aware_fit.h"
#include "sched/predicted_load.h"

namespace archimedes::testing {

inline constexpr int64_t kGi = int64_t{1} << 30;

// Nodes named "a", "b", … of 10 cores (with `allocatable_cpu` of them allocatable) and 64 GiB.
inline std::vector<Node> TenCoreNodes(int count, int64_t allocatable_cpu) {
  std::vector<Node> nodes;
  for (int i = 0; i < count; ++i) {
    nodes.push_back(Node{.name = std::string(1, static_cast<char>('a' + i)),
                         .capacity = Resources::Of(10000, 64 * kGi),
                         .allocatable = Resources::Of(allocatable_cpu, 64 * kGi)});
  }
  return nodes;
}

inline Scheduler TimeAwareFitOnly() {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<TimeAwareFit>());
  return Scheduler(std::move(filters), std::vector<WeightedScorer>{}, SchedulerOptions{});
}

struct MovableFleet {
  explicit MovableFleet(std::vector<Node> fleet)
      : nodes(std::move(fleet)), state(nodes), load(nodes), scheduler(TimeAwareFitOnly()) {}

  // Places a replica of `service` on `n`; its id and request join `ids` and `pods`.
  void Place(int32_t service, NodeId n, const Resources& requests) {
    Container c{.kind = OwnerKind::kService, .owner = service, .node = n, .requests = requests};
    ids.push_back(state.Add(c));
    load.AddContainer(c);
    pods.push_back(PodRequest{.requests = requests, .kind = OwnerKind::kService, .owner = service});
  }

  ContainerId Move(ContainerId id, NodeId to) {
    Container c = state.container(id);
    load.RemoveContainer(c);
    state.Remove(id);
    c.node = to;
    load.AddContainer(c);
    return state.Add(c);
  }
  ReplicaMover mover() {
    return [this](ContainerId id, NodeId to) { return Move(id, to); };
  }

  SchedulingContext context() const { return SchedulingContext{state, &load}; }

  std::vector<Node> nodes;
  ClusterState state;
  PredictedLoad load;
  Scheduler scheduler;
  std::vector<ContainerId> ids;
  std::vector<PodRequest> pods;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_MOVABLE_FLEET_H_
