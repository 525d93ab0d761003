// kube-scheduler's default profile as far as resources go (DESIGN §6, `k8s-default` and
// `k8s-binpack`): filters NodeReady, NodeResourcesFit, MaxPerNode and NodeSelector; scorers
// NodeResourcesFit with the given scoring strategy and NodeResourcesBalancedAllocation, weight 1
// each; kube-scheduler's node sampling and random tie-breaking from `seed`.
#ifndef ARCHIMEDES_SCHED_KUBERNETES_SCHEDULER_H_
#define ARCHIMEDES_SCHED_KUBERNETES_SCHEDULER_H_

#include <cstdint>

#include "sched/framework.h"

namespace archimedes {

// NodeResourcesFit's scoring strategies.
enum class FitScoring : uint8_t { kLeastAllocated, kMostAllocated };

Scheduler MakeKubernetesScheduler(FitScoring scoring, uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_KUBERNETES_SCHEDULER_H_
