// What the engine decides, for its driver to carry out (DESIGN §3: actions out). The engine has
// already applied each action to its own view of the fleet when it emits it, as kube-scheduler
// assumes a pod bound before the binding is written: the driver makes the world follow, and
// reports back through events what the world did instead (a container that failed to start).
#ifndef ARCHIMEDES_ENGINE_ACTION_H_
#define ARCHIMEDES_ENGINE_ACTION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "model/cluster_state.h"
#include "sched/migration.h"
#include "sched/sla_contract.h"

namespace archimedes {

enum class ActionKind : uint8_t {
  kBind,        // start service replica `container` on `node`
  kStartTask,   // start task `container` of job `job` on `node`
  kEvict,       // stop `container` against its will: `reason` says why, `sla` is its key in the
                // SLA order (sched/sla_contract.h) by which it was chosen
  kStop,        // stop `container` as planned: a scale-down, or the old half of a finished move
  kMigrate,     // make-before-break: start `container` on `node` to replace `replaced`, which
                // serves until a kStop names it once the replacement is ready
  kThrottle,    // the limits of batch on `node` from now on (see BatchLimits)
  kScaleOut,    // service `service` runs `replicas` replicas while a warned one is replaced
  kReportLate,  // `tasks` tasks of job `job` cannot start within its tolerance; `expected_start`
                // is when the plan now starts the first of them (-1: no room in the horizon)
  kReject,      // job `job` can never run: `message` says why
};
std::string_view ActionKindName(ActionKind kind);

// Each chooses its victims by the SLA order's terms (sched/sla_contract.h): preemption and a drain
// by priority alone (lowest first, then newest for preemption), yield by the fewest tasks and least
// progress, pressure by the whole order; the evictions carry the victims' full keys alike.
enum class EvictReason : uint8_t {
  kPreemption,   // room for a higher-priority replica (kube-scheduler's DefaultPreemption)
  kYield,        // batch yields to bursting services (memory cannot be throttled)
  kPressure,     // the node's usage crosses its threshold; the SLA order chose the victims
  kNodeRemoved,  // the node leaves the fleet, drained lowest priority first (as the kubelet does)
  // The node failed with the container on it. The engine never acts on this (its world lost the
  // container); a driver that tells agents what ended (server/control_plane.h) names it so.
  kNodeFailed,
};
std::string_view EvictReasonName(EvictReason reason);

// How much batch on a node may take: its CPU (millicores, all batch together) and a factor on
// the speed of its disk and network; serverless tasks are served first when `serverless_first`.
struct BatchLimits {
  double cpu = 0;  // millicores; the node's capacity when batch is not capped
  bool serverless_first = false;
  double io_throttle = 1;  // share of their speed batch tasks keep in disk and network
  bool operator==(const BatchLimits&) const = default;
};

struct Action {
  ActionKind kind = ActionKind::kBind;
  ContainerId container = -1;
  NodeId node = -1;
  ContainerId replaced = -1;  // kMigrate
  int32_t service = -1;       // kBind, kMigrate, kScaleOut
  int32_t job = -1;           // kStartTask, kReportLate, kReject
  bool first_start = false;   // kStartTask: the task's first start (not a restart after eviction)
  EvictReason reason = EvictReason::kPressure;         // kEvict
  MigrationTrigger trigger = MigrationTrigger::kNone;  // kMigrate: why the replica moves
  SlaKey sla;                                          // kEvict
  int replicas = 0;                                    // kScaleOut
  int tasks = 0;                                       // kReportLate
  int64_t expected_start = -1;                         // kReportLate
  BatchLimits limits;                                  // kThrottle
  std::string message;                                 // kReject
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_ACTION_H_
