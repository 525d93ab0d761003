#include "engine/policy.h"

namespace archimedes {

// What a co-location add-on to Kubernetes does today (Koordinator's batch resources): services as
// k8s-default; batch on the capacity services reserve but do not use, as soon as it fits, evicted
// lowest priority first on memory pressure.
Policy ReclaimPolicy() {
  return Policy{
      .name = "reclaim",
      .description =
          "services as k8s-default; batch on reclaimed capacity as soon as "
          "it fits, naive batch eviction on pressure",
      .buffer = 0.10,
      .keeps_buffer = true,
      .services = [](uint64_t seed) { return NewRequestPlacement(false, seed); },
      .batch = [](uint64_t seed, double buffer) { return NewReclaimedBatch(buffer, seed + 1); },
      .pressure = [] { return NewBatchEviction(); }};
}

}  // namespace archimedes
