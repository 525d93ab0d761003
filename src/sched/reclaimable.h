// Reclaimable capacity and the burst-buffer rule (DESIGN §4, docs/batch.md).
//
// Batch and serverless tasks run on capacity that services reserve but do not use. Of a node's
// capacity, a share `buffer` (default 10 %) is kept free for sudden service peaks; batch may use
//
//   reclaimable = capacity × (1 − buffer) − service usage
//
// and never plans into the buffer. When a service bursts anyway, batch on that node yields first:
// compressible dimensions (cpu, disk, network) are throttled, and where throttling cannot help
// (memory and gpu cannot be throttled) the fewest tasks are evicted, least progress first.
#ifndef ARCHIMEDES_SCHED_RECLAIMABLE_H_
#define ARCHIMEDES_SCHED_RECLAIMABLE_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "model/resources.h"

namespace archimedes {

inline constexpr double kDefaultBurstBuffer = 0.10;

// capacity × (1 − buffer) − service_usage, rounded down to whole units; negative when services
// already reach into the buffer. Inline: the planner calls it for every node, dimension and bin.
inline int64_t ReclaimableAmount(int64_t capacity, double buffer, double service_usage) {
  return static_cast<int64_t>(
      std::floor(static_cast<double>(capacity) * (1.0 - buffer) - service_usage));
}

// True for the dimensions a kernel can throttle (cpu, disk, network); memory and gpu are not.
bool Compressible(Dim dim);

// One batch task running on the node that must yield.
struct YieldingTask {
  std::array<double, kNumDims> usage{};  // what the task uses now, canonical units
  double progress = 0;  // work done so far (e.g. seconds), i.e. what an eviction throws away
};

struct YieldDecision {
  // Share of their current speed the surviving batch tasks keep in the compressible dimensions:
  // 1 = no throttling, 0 = stopped.
  double throttle = 1;
  // Indices into the task span, ascending: the fewest tasks whose eviction brings every
  // incompressible dimension back under the limit; among sets of that size, the least progress.
  std::vector<int32_t> evict;
};

// How batch on one node yields to its services: batch may use at most
// max(0, capacity × (1 − buffer) − service_usage) in every dimension, so the buffer above the
// services' usage is free again. Evictions are chosen first (incompressible dimensions), then the
// throttle for what remains. When the services alone exceed the limit in an incompressible
// dimension every task with usage there is evicted.
YieldDecision YieldToServices(const std::array<double, kNumDims>& service_usage,
                              std::span<const YieldingTask> tasks, const Resources& capacity,
                              double buffer = kDefaultBurstBuffer);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_RECLAIMABLE_H_
