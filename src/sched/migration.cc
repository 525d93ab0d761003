#include "sched/migration.h"

namespace archimedes {

std::string_view MigrationTriggerName(MigrationTrigger trigger) {
  switch (trigger) {
    case MigrationTrigger::kNone:
      return "none";
    case MigrationTrigger::kNodeOffline:
      return "node-offline";
    case MigrationTrigger::kOverloadBeyondBatch:
      return "overload-beyond-batch";
    case MigrationTrigger::kPredictedBreach:
      return "predicted-breach";
  }
  return "unknown";
}

MigrationTrigger ShouldMigrate(OwnerKind kind, const MigrationEvidence& evidence,
                               const MigrationRule& rule) {
  if (kind != OwnerKind::kService) return MigrationTrigger::kNone;
  if (evidence.node_offline) return MigrationTrigger::kNodeOffline;
  if (evidence.overload_beyond_batch) return MigrationTrigger::kOverloadBeyondBatch;
  if (evidence.breach_lead_time_s >= 0 && evidence.breach_lead_time_s <= rule.breach_horizon_s) {
    return MigrationTrigger::kPredictedBreach;
  }
  return MigrationTrigger::kNone;
}

std::optional<Migration> StartMigration(ClusterState& state, Scheduler& scheduler,
                                        const SchedulingContext& ctx, ContainerId id,
                                        const PodRequest& pod, int64_t now,
                                        std::span<const NodeId> excluded) {
  const Container old = state.container(id);
  const NodeCondition source_condition = state.node(old.node).condition;
  state.SetCondition(old.node, NodeCondition::kNotReady);
  for (NodeId n : excluded) state.SetCondition(n, NodeCondition::kNotReady);
  const NodeId target = scheduler.Schedule(ctx, pod);
  for (NodeId n : excluded) state.SetCondition(n, NodeCondition::kReady);
  state.SetCondition(old.node, source_condition);
  if (target < 0 || target == old.node) return std::nullopt;
  Container replacement = old;
  replacement.node = target;
  replacement.requests = pod.requests;
  replacement.priority = pod.priority;
  replacement.start_time = now;
  const ContainerId replacement_id = state.Add(replacement);
  return Migration{
      .old_container = id, .replacement = replacement_id, .source = old.node, .target = target};
}

}  // namespace archimedes
