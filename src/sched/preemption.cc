#include "sched/preemption.h"

#include <algorithm>
#include <array>
#include <utility>

namespace archimedes {
namespace {

// The dimensions kube-scheduler checks requests in.
constexpr std::array<Dim, 3> kRequestDims = {Dim::kCpu, Dim::kMemory, Dim::kGpu};

}  // namespace

Preemption FindPreemption(const ClusterState& state, const PodRequest& pod) {
  Preemption best;
  std::pair<int, size_t> best_cost{0, 0};
  std::vector<ContainerId> victims, candidates;
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    if (!state.ready(n)) continue;
    candidates.clear();
    Resources preemptible;
    for (ContainerId id : state.containers_on(n)) {
      const Container& c = state.container(id);
      if (c.kind == OwnerKind::kTask && state.accounting() == TaskAccounting::kReclaimed) continue;
      if (c.priority < pod.priority) {
        candidates.push_back(id);
        preemptible += c.requests;
      }
    }
    if (candidates.empty()) continue;
    bool could_fit = true;
    for (Dim d : kRequestDims) {
      could_fit = could_fit && (pod.requests[d] == 0 ||
                                state.requested(n)[d] - preemptible[d] + pod.requests[d] <=
                                    state.allocatable(n)[d]);
    }
    if (!could_fit) continue;
    std::sort(candidates.begin(), candidates.end(), [&](ContainerId a, ContainerId b) {
      const Container& ca = state.container(a);
      const Container& cb = state.container(b);
      return ca.priority != cb.priority ? ca.priority < cb.priority : ca.start_time > cb.start_time;
    });
    Resources requested = state.requested(n);
    const Resources& alloc = state.allocatable(n);
    auto fits = [&] {
      for (Dim d : kRequestDims) {
        if (pod.requests[d] > 0 && requested[d] + pod.requests[d] > alloc[d]) return false;
      }
      return true;
    };
    victims.clear();
    for (ContainerId id : candidates) {
      if (fits()) break;
      requested -= state.container(id).requests;
      victims.push_back(id);
    }
    if (victims.empty() || !fits()) continue;
    int top_priority = state.container(victims.back()).priority;
    for (ContainerId id : victims) {
      top_priority = std::max(top_priority, state.container(id).priority);
    }
    const std::pair<int, size_t> cost{top_priority, victims.size()};
    if (best.node < 0 || cost < best_cost) {
      best.node = n;
      best_cost = cost;
      best.victims = victims;
    }
  }
  return best;
}

}  // namespace archimedes
