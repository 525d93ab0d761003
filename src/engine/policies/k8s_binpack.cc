#include "engine/policy.h"

namespace archimedes {

// kube-scheduler with NodeResourcesFit's MostAllocated strategy: packs nodes full by requests.
Policy K8sBinpackPolicy() {
  return Policy{
      .name = "k8s-binpack",
      .description = "request-based, MostAllocated + BalancedAllocation, batch as plain pods",
      .services = [](uint64_t seed) { return NewRequestPlacement(true, seed); },
      .batch = [](uint64_t seed, double) { return NewPodBatch(true, seed + 1); }};
}

}  // namespace archimedes
