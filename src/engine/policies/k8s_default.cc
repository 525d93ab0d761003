#include "engine/policy.h"

namespace archimedes {

// kube-scheduler as it ships: request-based, no over-commit; batch tasks are ordinary pods.
Policy K8sDefaultPolicy() {
  return Policy{
      .name = "k8s-default",
      .description = "request-based, LeastAllocated + BalancedAllocation, batch as plain pods",
      .services = [](uint64_t seed) { return NewRequestPlacement(false, seed); },
      .batch = [](uint64_t seed, double) { return NewPodBatch(false, seed + 1); }};
}

}  // namespace archimedes
