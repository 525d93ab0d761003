// How much a container really uses at a given moment (DESIGN §2 "actual usage"): a service replica
// follows its service's usage pattern with per-replica noise and occasional bursts; a batch task
// uses its requests times its utilization factor. Deterministic: the noise of a replica at a time
// is a hash of (seed, service, replica, pattern step), so every policy sees the same usage.
#ifndef ARCHIMEDES_SIM_USAGE_MODEL_H_
#define ARCHIMEDES_SIM_USAGE_MODEL_H_

#include <array>
#include <cstdint>

#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

using Usage = std::array<float, kNumDims>;

Usage ServiceReplicaUsage(const Service& service, int32_t service_index, int32_t replica, int64_t t,
                          uint64_t seed);

Usage TaskUsage(const BatchJob& job);

// A uniform double in [0, 1) from a 64-bit key (splitmix64 finaliser).
double HashUniform(uint64_t key);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_USAGE_MODEL_H_
