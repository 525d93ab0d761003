// SLA contracts (DESIGN §1.4) as eviction and migration read them: the defaults a service gets
// from its QoS class, how many of its replicas may be disrupted now, what an eviction costs a
// container's owner, and the SLA order in which containers are given up under pressure.
//
// The SLA order (EvictsBefore) is lexicographic, cheapest victim first:
//   1. batch tasks before service replicas;
//   2. lower priority before higher;
//   3. smaller loss before larger, where a task's loss is the share of its work that eviction
//      throws away (elapsed / duration) and a replica's loss is the share of its service's
//      container-time one missing replica harms (1 / desired replicas, DESIGN §5);
//   4. the newest container (largest start time) first: it has the least warm state to lose.
// A replica whose service is at or below its min_available has no disruption budget and is never a
// victim at all; that is not part of the order but a hard constraint (see eviction.h).
#ifndef ARCHIMEDES_SCHED_SLA_CONTRACT_H_
#define ARCHIMEDES_SCHED_SLA_CONTRACT_H_

#include <cstdint>

#include "model/cluster_state.h"
#include "model/workload.h"

namespace archimedes {

// Replicas of a service that may be stopped now without going below its min_available.
int DisruptionBudget(const ServiceSla& sla, int running_replicas);

// The loss of evicting a task that has run `elapsed_s` of its `duration_s`, in [0, 1].
double TaskLoss(int64_t elapsed_s, int64_t duration_s);

// The loss of evicting one replica of a service that wants `desired_replicas`, in (0, 1].
double ReplicaLoss(int desired_replicas);

// What the SLA order compares.
struct SlaKey {
  OwnerKind kind = OwnerKind::kTask;
  int priority = 0;
  double loss = 0;
  int64_t start_time = 0;
};

// True when `a` is given up before `b` (a strict weak order; equal keys are equally cheap).
bool EvictsBefore(const SlaKey& a, const SlaKey& b);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_SLA_CONTRACT_H_
