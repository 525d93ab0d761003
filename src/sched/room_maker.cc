#include "sched/room_maker.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace archimedes {
namespace {

// At most this many replicas move to make room on one node.
constexpr size_t kMaxMovesPerNode = 4;

// How much of the pod's requests the node's unrequested allocatable lacks, as a sum of shares
// of the request per dimension (0: the requests fit).
double Shortfall(const Resources& free, const Resources& requests) {
  double shortfall = 0;
  for (Dim d : ClusterState::kIndexedDims) {
    if (requests[d] > free[d]) {
      shortfall += static_cast<double>(requests[d] - free[d]) / static_cast<double>(requests[d]);
    }
  }
  return shortfall;
}

// How much of the shortfall moving `requests` away covers.
double Covers(const Resources& free, const Resources& pod, const Resources& requests) {
  double covered = 0;
  for (Dim d : ClusterState::kIndexedDims) {
    const int64_t lack = pod[d] - free[d];
    if (lack > 0) {
      covered += static_cast<double>(std::min(lack, requests[d])) / static_cast<double>(pod[d]);
    }
  }
  return covered;
}

}  // namespace

NodeId MakeRoom(const Scheduler& scheduler, const SchedulingContext& ctx, const PodRequest& pod,
                std::span<ContainerId> movable, std::span<const PodRequest> movable_pods,
                const ReplicaMover& move, int max_nodes) {
  // Cycles after the one that placed a service have nothing movable: no scan of the fleet then.
  if (movable.empty()) return -1;
  const ClusterState& state = ctx.state;
  const PredictedLoad& load = *ctx.predicted;
  const int num_nodes = state.num_nodes();
  // Nodes holding movable replicas whose requests, moved away, would let the pod's fit.
  std::vector<std::pair<double, NodeId>> candidates;
  {
    std::vector<Resources> movable_on(static_cast<size_t>(num_nodes));
    for (ContainerId id : movable) {
      const Container& c = state.container(id);
      movable_on[c.node] += c.requests;
    }
    for (NodeId n = 0; n < num_nodes; ++n) {
      if (!state.ready(n) || movable_on[n] == Resources{}) continue;
      const Resources free = state.unrequested(n);
      if (Shortfall(free + movable_on[n], pod.requests) > 0) continue;
      candidates.emplace_back(Shortfall(free, pod.requests), n);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  if (static_cast<int>(candidates.size()) > max_nodes) candidates.resize(max_nodes);

  const PeakCost cost(state);
  std::vector<size_t> on_node;
  std::vector<size_t> moved;
  for (const auto& [shortfall, n] : candidates) {
    on_node.clear();
    for (size_t i = 0; i < movable.size(); ++i) {
      if (state.container(movable[i]).node == n) on_node.push_back(i);
    }
    const Resources free = state.unrequested(n);
    std::stable_sort(on_node.begin(), on_node.end(), [&](size_t a, size_t b) {
      return Covers(free, pod.requests, movable_pods[a].requests) >
             Covers(free, pod.requests, movable_pods[b].requests);
    });
    moved.clear();
    for (size_t i : on_node) {
      if (scheduler.Feasible(ctx, pod, n) || moved.size() == kMaxMovesPerNode) break;
      const Demand demand = load.DemandOf(state.container(movable[i]));
      const NodeId to = CheapestNode(scheduler, ctx, cost, movable_pods[i], demand, n, 0,
                                     std::min(num_nodes, kMaxNodesOffered));
      if (to < 0) continue;
      movable[i] = move(movable[i], to);
      moved.push_back(i);
    }
    if (scheduler.Feasible(ctx, pod, n)) return n;
    for (size_t i : moved) movable[i] = move(movable[i], n);
  }
  return -1;
}

Repacking Repack(Scheduler& scheduler, const ClusterState& state, int64_t now,
                 const PodRequest& pod, std::span<const ContainerId> movable,
                 std::span<const PodRequest> movable_pods) {
  ClusterState trial = state;
  std::vector<Container> replicas;
  replicas.reserve(movable.size());
  for (ContainerId id : movable) {
    replicas.push_back(state.container(id));
    trial.Remove(id);
  }
  const SchedulingContext ctx{.state = trial, .now = now};
  Repacking repacking;
  repacking.movable_nodes.reserve(movable.size());
  for (size_t i = 0; i < movable.size(); ++i) {
    const NodeId node = scheduler.Schedule(ctx, movable_pods[i]);
    if (node < 0) return {};
    replicas[i].node = node;
    trial.Add(replicas[i]);
    repacking.movable_nodes.push_back(node);
  }
  repacking.pod_node = scheduler.Schedule(ctx, pod);
  if (repacking.pod_node < 0) return {};
  return repacking;
}

}  // namespace archimedes
