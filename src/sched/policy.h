// A policy is a named composition of schedulers and settings that the simulator (and later the
// service) drives. Every policy of DESIGN §6 is built here from the plugins in plugins/.
#ifndef ARCHIMEDES_SCHED_POLICY_H_
#define ARCHIMEDES_SCHED_POLICY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster_state.h"
#include "sched/framework.h"

namespace archimedes {

// Where service replicas go: by requests alone, or by learned profiles (time-aware fit,
// complementarity, fragmentation; the driver builds that scheduler once it has the profiles).
enum class ServicePlacement : uint8_t { kRequests, kProfiles };

// Where batch tasks go: as ordinary pods by requests, on reclaimed capacity as soon as they fit
// now, or planned ahead by the batch planner into the predicted valleys and fragments (kPlanned;
// the driver re-plans every bin, and `Policy::batch` places between re-plans the serverless tasks
// and the tasks that capacity freed since lets start, see docs/batch.md).
enum class BatchPlacement : uint8_t { kRequests, kReclaimed, kPlanned };

// What happens when a node's usage crosses its threshold: nothing beyond the kernel's OOM killer,
// batch evicted lowest priority first (the naive evictor), or the SLA-ordered minimal evictor.
enum class EvictionMode : uint8_t { kNone, kNaiveBatch, kMinimal };

struct Policy {
  std::string name;
  std::string description;
  ServicePlacement service_placement = ServicePlacement::kRequests;
  BatchPlacement batch_placement = BatchPlacement::kRequests;
  EvictionMode eviction = EvictionMode::kNone;
  // The burst buffer: share of each node's capacity kept free of batch for services' peaks
  // (reclaiming policies only).
  double buffer = 0.10;
  // Acts on health warnings (sim/health_monitor.h): a replica predicted to reach its memory limit
  // within the migration rule's horizon is migrated make-before-break, or, when no other node can
  // take it, the service gets one more replica until the warned one ends.
  bool act_on_health = false;
  // kProfiles: the replicas a scheduling cycle has placed may still move before they start: to make
  // room for a replica that fits nowhere (sched/room_maker.h), and then while that lowers the sum
  // of the nodes' predicted peaks (sched/peak_refiner.h).
  bool refine_placement = false;
  // kPlanned: the share of the CPU requested by offline tasks on a node that serverless tasks may
  // borrow (the node then throttles the offline tasks, never the serverless ones). Offline tasks
  // then need not keep the CPU of the serverless reserve free, only its memory: the reserve's CPU
  // works for them until a serverless burst arrives. 0 keeps the whole reserve free.
  double serverless_cpu_borrow = 0;
  // Places long-running service replicas. For kProfiles this is the request-based fallback; the
  // driver replaces it with the profile-driven scheduler once it has profiles.
  Scheduler services;
  Scheduler batch;  // places batch and serverless tasks

  TaskAccounting task_accounting() const {
    return batch_placement == BatchPlacement::kRequests ? TaskAccounting::kAllocatable
                                                        : TaskAccounting::kReclaimed;
  }
};

// Names accepted by MakePolicy, in the order reports list them.
std::vector<std::string> PolicyNames();

// Besides those names, "archimedes-no-health" is archimedes with act_on_health off, for measuring
// what acting on health warnings changes, "archimedes-greedy" archimedes with refine_placement
// off, for measuring what refining the greedy service placement changes, and
// "archimedes-no-borrow" archimedes with serverless_cpu_borrow 0. Throws
// std::invalid_argument naming the unknown policy and the known ones.
Policy MakePolicy(std::string_view name, uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_POLICY_H_
