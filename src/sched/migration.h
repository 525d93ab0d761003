// Make-before-break migration of service replicas, and the rule that says when one must move.
//
// The rule (ShouldMigrate): a service replica moves only when its contract would otherwise break,
// never for tidiness (balance, packing, a better score elsewhere):
//   kNodeOffline          its node has been declared offline by quorum (MAGI), not merely seen
//                         NotReady from one vantage point;
//   kOverloadBeyondBatch  its node's actual or predicted usage crosses the threshold, evicting
//                         every evictable batch task there cannot bring it back, and the minimal
//                         victim set (eviction.h) names this replica — moving it make-before-break
//                         costs the service nothing, evicting it costs a replica;
//   kPredictedBreach      a health warning predicts the replica reaches a limit (memory leak,
//                         runaway CPU) within the rule's horizon; a fresh replacement elsewhere
//                         avoids the OOM kill or throttling.
// Batch tasks never migrate: a task's progress is lost either way, so it is evicted and requeued.
//
// Make-before-break (StartMigration): the replacement is scheduled through the policy's Scheduler
// on a node other than the source and added to the cluster state while the old replica still runs,
// so the replacement must fit beside everything already placed, including the old replica's own
// requests on its node. Only when the replacement is ready (its service's start-up delay has
// passed) does the caller stop the old replica (the "break"). When no other node can take the
// replacement nothing changes and the caller decides to evict or to keep the replica.
#ifndef ARCHIMEDES_SCHED_MIGRATION_H_
#define ARCHIMEDES_SCHED_MIGRATION_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "model/cluster_state.h"
#include "sched/framework.h"

namespace archimedes {

enum class MigrationTrigger : uint8_t {
  kNone,
  kNodeOffline,
  kOverloadBeyondBatch,
  kPredictedBreach
};
std::string_view MigrationTriggerName(MigrationTrigger trigger);

// What is known about one replica and its node.
struct MigrationEvidence {
  bool node_offline = false;
  bool overload_beyond_batch = false;  // and the replica is in the minimal victim set
  int64_t breach_lead_time_s = -1;     // from a health warning; negative = no warning
};

struct MigrationRule {
  // A predicted breach further away than this is left to the next warnings (it may not happen).
  int64_t breach_horizon_s = 3600;
};

// kNone for tasks and for replicas whose contract holds; otherwise the first trigger in the order
// listed above.
MigrationTrigger ShouldMigrate(OwnerKind kind, const MigrationEvidence& evidence,
                               const MigrationRule& rule = {});

struct Migration {
  ContainerId old_container = -1;  // still running; the caller removes it once `replacement` runs
  ContainerId replacement = -1;
  NodeId source = -1;
  NodeId target = -1;
};

// The "make" half: schedules a replacement of container `id` with `pod` (its owner's request, as
// for a new replica) on any node but the source and the nodes in `excluded` (distinct Ready nodes
// other than the source, e.g. those the replacement would make hot: moving harm elsewhere is no
// relief), adds it to `state` with start
// time `now`, and returns both ids. std::nullopt, with `state` unchanged, when no other node passes
// the filters. Excluded nodes are hidden by marking them not Ready for the one Schedule call, so
// `scheduler` must include the NodeReady filter, as every policy does. No allocation beyond the
// scheduler's own. `ctx` is what the scheduler reads (its `state` must be `state`: the hidden
// nodes are hidden from the scheduler through it).
std::optional<Migration> StartMigration(ClusterState& state, Scheduler& scheduler,
                                        const SchedulingContext& ctx, ContainerId id,
                                        const PodRequest& pod, int64_t now,
                                        std::span<const NodeId> excluded = {});

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_MIGRATION_H_
