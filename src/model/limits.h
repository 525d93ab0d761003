// The largest values an input may give, the one place they are defined. Every reader checks the
// numbers it reads against them (and names the limit when it refuses one), so that:
//
//  - a size that drives a loop or an allocation (replicas, tasks, nodes, days, durations, class
//    ids) cannot make a run last for ever or exhaust memory;
//  - arithmetic on resource amounts cannot overflow int64: an amount is below 2^46 and a count of
//    replicas, tasks or nodes below 2^17, so any one product of the two, and a whole fleet's sum,
//    stays below 2^63;
//  - a usage value squared (k-means distances, variances in float) stays finite.
//
// The limits are far above any real fleet (a node of 64 TiB, a service of 10,000 replicas), so
// they refuse only mistakes. docs/formats.md lists them.
#ifndef ARCHIMEDES_MODEL_LIMITS_H_
#define ARCHIMEDES_MODEL_LIMITS_H_

#include <cstdint>

#include "model/curve.h"

namespace archimedes {

// Any resource amount or usage value, in canonical units (millicores, bytes, bytes per second,
// thousandths of a GPU): 2^46, i.e. 64 TiB of memory or 70 million cores.
inline constexpr int64_t kMaxResourceAmount = int64_t{1} << 46;

// Replicas of one service (at its start or after a scale event): kube-scheduler's retries of the
// pending ones make a service of 100,000 replicas on a small fleet take minutes per simulated day.
inline constexpr int kMaxReplicas = 10'000;
// Tasks of one batch job.
inline constexpr int kMaxTasks = 100'000;
// A batch task's CPU use as a share of its request.
inline constexpr double kMaxUtilization = 100;
// Nodes of a fleet, those added by events included.
inline constexpr int kMaxNodes = 100'000;

// Any duration or time of a scenario (its length, a job's duration or tolerance, an event's time):
// one leap year.
inline constexpr int64_t kMaxDurationSeconds = 366 * kSecondsPerDay;
inline constexpr int kMaxDays = 366;

// Profile class ids are in [0, kMaxClassId]: the complementarity of classes is a square table.
inline constexpr int kMaxClassId = 1023;

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_LIMITS_H_
