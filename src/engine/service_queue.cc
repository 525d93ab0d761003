#include "engine/service_queue.h"

#include <algorithm>
#include <vector>

#include "engine/core.h"
#include "engine/explain.h"
#include "sched/preemption.h"

namespace archimedes {
namespace {

constexpr int64_t kInitialBackoff = 1, kMaxBackoff = 10;

// Evicts what preemption chose to make room for `pod`; false when nothing can.
bool Preempt(EngineCore& core, const PodRequest& pod) {
  const Preemption preemption = FindPreemption(core.state(), pod);
  if (preemption.node < 0) return false;
  for (ContainerId id : preemption.victims) {
    core.End(id, EngineCore::Ending::kEvicted, EvictReason::kPreemption, core.SlaKeyOf(id));
  }
  return true;
}

}  // namespace

void PlaceServices(EngineCore& core) {
  std::vector<int32_t> pending;
  pending.swap(core.pending_services);
  // Higher priority first: after a node failure the most important replicas find room first.
  std::stable_sort(pending.begin(), pending.end(), [&](int32_t a, int32_t b) {
    return core.service(a).priority > core.service(b).priority;
  });
  ServicePlacement& placement = core.service_placement();
  const EngineOptions& options = core.options();
  for (int32_t s : pending) {
    ServiceRun& run = core.service_run(s);
    if (core.now() < run.next_attempt) {
      core.pending_services.push_back(s);
      continue;
    }
    run.pending_listed = false;
    const PodRequest pod = core.ServicePod(s);
    while (static_cast<int>(run.running.size()) < run.desired + run.extra) {
      ServiceChoice choice = placement.Choose(core, pod);
      const bool explain =
          !core.explained && options.explain_out && core.service(s).name == options.explain_service;
      if (explain) {
        core.explained = true;
        options.explain_out(
            FormatExplanation(placement.scheduler(), core.Context(), pod, choice.node));
      }
      if (choice.node < 0) {
        // Moving replicas that have not started costs nothing; evicting lower priorities does.
        choice.node = placement.MakeRoom(core, pod);
        choice.movable = choice.node >= 0;
        if (explain && choice.node >= 0) {
          options.explain_out("refined: placed on " + core.state().node(choice.node).name +
                              " after moving replicas there that had not started "
                              "(docs/placement.md)\n");
        }
      }
      if (choice.node < 0) {
        if (Preempt(core, pod)) continue;
        break;
      }
      const ContainerId id = core.BindReplica(s, choice.node, pod);
      if (explain) core.explained_id = id;
      if (choice.movable) placement.Placed(id, pod);
    }
    if (static_cast<int>(run.running.size()) < run.desired + run.extra) {
      run.backoff_s = std::min(std::max(run.backoff_s * 2, kInitialBackoff), kMaxBackoff);
      run.next_attempt = core.now() + run.backoff_s;
      run.pending_listed = true;
      core.pending_services.push_back(s);
    } else {
      run.backoff_s = 0;
    }
  }
  placement.EndCycle(core);
  core.explained_id = -1;
}

}  // namespace archimedes
