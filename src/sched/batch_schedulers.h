// The schedulers that place batch tasks on reclaimed capacity (docs/batch.md); kube-scheduler's
// own (sched/kubernetes_scheduler.h) places them as ordinary pods.
#ifndef ARCHIMEDES_SCHED_BATCH_SCHEDULERS_H_
#define ARCHIMEDES_SCHED_BATCH_SCHEDULERS_H_

#include <cstdint>

#include "sched/framework.h"

namespace archimedes {

// Koordinator-style: filters NodeReady and ReclaimedFit (the task fits the node's batch
// allocatable now), scorer ReclaimedLeastAllocated. Reads SchedulingContext::batch_allocatable.
Scheduler MakeReclaimedBatchScheduler(uint64_t seed);

// Archimedes': filters NodeReady and TimeAwareBatchFit (the task fits the predicted valleys and
// fragments for its whole estimated run, under the burst buffer), scorer BatchBestFit. Reads the
// predicted load, the batch allocatable, the serverless reserve and the borrowable CPU.
Scheduler MakeTimeAwareBatchScheduler(uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_BATCH_SCHEDULERS_H_
