// How much a container really uses at a given moment (DESIGN §2 "actual usage"): a service replica
// follows its service's usage pattern with per-replica noise and occasional bursts; a batch task
// uses its requests times its utilization factor. Deterministic: the noise of a replica at a time
// is a hash of (seed, service, replica, pattern step), so every policy sees the same usage.
//
// A container incarnation (a replica slot started at a given time) may also leak memory
// (UsagePattern::leak_per_day, leak_rate). Whether and when it leaks is a hash of (seed, service,
// replica, start time): every policy sees the same leak in the same incarnation, and a fresh
// container — a restart, a migration's replacement, a new replica — draws anew instead of
// inheriting the leak of the one it replaces.
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

// Memory a container incarnation started at `start_time` has leaked by time `t`; 0 when it does
// not leak or its leak has not begun.
double LeakedMemory(const Service& service, int32_t service_index, int32_t replica,
                    int64_t start_time, int64_t t, uint64_t seed);

// ServiceReplicaUsage plus the incarnation's leaked memory: what the container really uses.
Usage ServiceContainerUsage(const Service& service, int32_t service_index, int32_t replica,
                            int64_t start_time, int64_t t, uint64_t seed);

Usage TaskUsage(const BatchJob& job);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_USAGE_MODEL_H_
