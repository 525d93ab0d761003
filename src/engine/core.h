// The engine's state as its parts share it, and the operations they change it through — the
// engine's counterpart of kube-scheduler's framework Handle. Internal to engine/: drivers use
// engine.h. Every change to the fleet goes through these operations, so the cluster state, the
// predicted load, the strategies' tallies and the actions stay in step.
#ifndef ARCHIMEDES_ENGINE_CORE_H_
#define ARCHIMEDES_ENGINE_CORE_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/action.h"
#include "engine/batch_queue.h"
#include "engine/engine.h"
#include "engine/latency_histogram.h"
#include "engine/policy.h"
#include "engine/surge_margin.h"
#include "model/chunked_vector.h"
#include "model/cluster_state.h"
#include "model/workload.h"
#include "sched/archimedes_placement.h"
#include "sched/framework.h"
#include "sched/migration.h"
#include "sched/predicted_load.h"

namespace archimedes {

// A service as the engine runs it.
struct ServiceRun {
  int desired = 0;
  // A health scale-out: one replica beyond `desired` while the warned replica `scaled_for` runs.
  int extra = 0;
  ContainerId scaled_for = -1;
  // Replacements started by health migrations, as (container, start time). When one of them is
  // warned in turn, the memory trend is the service's own, not a leak of the replica that moved:
  // moving cannot cure it, and the service's warnings are no longer acted on.
  std::vector<std::pair<ContainerId, int64_t>> health_replacements;
  bool health_moves_futile = false;
  std::vector<ContainerId> running;
  std::vector<uint8_t> slot_used;  // replica slots in use; a replacement takes the lowest free one
  bool pending_listed = false;
  // kube-scheduler's backoff for pods that could not be scheduled: 1 s doubling up to 10 s.
  int64_t backoff_s = 0;
  int64_t next_attempt = 0;
};

// A job as the engine runs it.
struct JobRun {
  int pending = 0;
  int running = 0;
  int finished = 0;
  int failed = 0;
  int first_started = 0;  // tasks that started at least once (restarts are not new starts)
  bool queued = false;
  // Pending tasks the batch planner has not been given since its last call: they are passed to
  // PlanAdditional between full re-plans, so no task is planned twice.
  int unplanned = 0;
  bool reported_late = false;  // the planner found its tolerance can no longer be met
  // Set when no node could take a task of the job; it is tried again only once a node that could
  // have grown enough frees resources (or at the next usage round, when usage-based filters
  // change).
  bool parked = false;
  bool rejected = false;
  // Placed greedily by the batch queue (BatchPlacement::Greedy, asked once at submission).
  bool greedy = true;
  int64_t give_up_at = 0;
};

// A make-before-break migration whose replacement is not ready yet: the old replica serves until
// `ready_at`, then stops.
struct Move {
  ContainerId old;
  ContainerId replacement;
  int64_t ready_at;
};

class EngineCore {
 public:
  EngineCore(const Policy& policy, EngineOptions options, std::vector<Node> nodes,
             std::vector<Service> services);

  // --- What the parts read.
  const EngineOptions& options() const { return options_; }
  const Policy& policy() const { return policy_; }
  bool reads_usage() const { return reads_usage_; }
  bool reads_fleet_usage() const { return reads_fleet_usage_; }
  int64_t now() const { return now_; }
  const ClusterState& state() const { return state_; }
  const Service& service(int32_t s) const { return services_[s]; }
  const std::vector<Service>& services() const { return services_; }
  ServiceRun& service_run(int32_t s) { return service_runs_[s]; }
  const ServiceRun& service_run(int32_t s) const { return service_runs_[s]; }
  int num_services() const { return static_cast<int>(services_.size()); }
  const BatchJob& job(int32_t j) const { return jobs_[j]; }
  JobRun& job_run(int32_t j) { return job_runs_[j]; }
  const JobRun& job_run(int32_t j) const { return job_runs_[j]; }
  // Queued jobs by priority (highest first), each FIFO.
  std::map<int, std::vector<int32_t>, std::greater<>>& job_queue() { return job_queue_; }
  const std::map<int, std::vector<int32_t>, std::greater<>>& job_queue() const {
    return job_queue_;
  }
  PredictedLoad* predicted() { return predicted_ ? &*predicted_ : nullptr; }
  const PredictedLoad* predicted() const { return predicted_ ? &*predicted_ : nullptr; }
  const SurgeMargin* surge_margin() const;
  const PlacementSettings& placement_settings() const { return placement_; }
  ServicePlacement& service_placement() { return *services_placement_; }
  BatchPlacement& batch_placement() { return *batch_; }
  const BatchPlacement& batch_placement() const { return *batch_; }
  SchedulingContext Context() const;
  // Containers on the node being observed and their usage this round (ObserveNodeUsage); the
  // pressure response evicts from it and keeps it to the live ones.
  std::vector<std::pair<ContainerId, Usage>>& node_usage() { return node_containers_; }
  const std::vector<std::pair<ContainerId, Usage>>& node_usage() const { return node_containers_; }
  // Seconds of work done by task `id` and of its whole run, as last reported.
  std::pair<double, int64_t> work(ContainerId id) const { return work_[id]; }
  // Container `id`'s key in the SLA order (sched/sla_contract.h), which every eviction carries: a
  // replica's loss is one of its service's desired replicas; a task's, the share of its work
  // done as last reported, or before any report its time running over its job's estimate.
  SlaKey SlaKeyOf(ContainerId id) const;
  // Per service, how many replicas may be disrupted this round (sla_contract.h).
  std::vector<int32_t>& budgets() { return budget_; }
  std::vector<Move>& moves() { return moves_; }
  std::vector<Move>::iterator FindMove(ContainerId id);
  const MigrationRule& migration_rule() const { return migration_rule_; }

  // --- Decisions.
  // The scheduler's choice for `pod`, timed as one decision; `batch_room` as
  // SchedulingContext::batch_room.
  NodeId Decide(Scheduler& scheduler, const PodRequest& pod, FeasibilityMemo* memo = nullptr,
                std::span<const std::array<int64_t, 2>> batch_room = {});
  void TimePlan(double microseconds, bool full);
  PodRequest ServicePod(int32_t s) const { return ServicePodRequest(services_[s], s); }

  // --- Changes, each emitting its action.
  ContainerId BindReplica(int32_t s, NodeId node, const PodRequest& pod);
  ContainerId StartTask(int32_t j, NodeId node);
  // Takes back tasks started in this call that a gang cannot keep; their start actions go too.
  void UndoStarts(int32_t j, std::span<const ContainerId> started, int first_started_before);
  // Moves a service replica placed in this cycle, before it starts; --explain reports it, with
  // `why`, when it is the explained replica. Returns its new id.
  ContainerId MoveUnstartedReplica(ContainerId id, NodeId to, std::string_view why);
  // Ends a container against its will (an eviction), or as planned (a scale-down), or because the
  // world ended it (failed, OOM-killed: no action). A replica's service wants it replaced; a
  // task goes back to its queue unless its job has given up.
  enum class Ending : uint8_t { kEvicted, kStopped, kLost };
  void End(ContainerId id, Ending ending, EvictReason reason = EvictReason::kPressure,
           const SlaKey& sla = {});
  // Make-before-break: starts a replacement elsewhere; the old replica serves until it is ready.
  // Nodes where the replica's usage now (times its burst ratio with a surge margin), added to
  // their services', would cross a hot threshold are no target. Returns the replacement, or -1.
  ContainerId Migrate(ContainerId id, MigrationTrigger trigger);
  // The replacement of `m` takes the old replica's place, which stops.
  void FinishMove(const Move& m);
  // The moves whose replacement is ready by now finish.
  void FinishMigrations();
  void SetDesired(int32_t s, int replicas);
  // Service `s` runs one replica more until `warned` ends (a health scale-out).
  void ScaleOut(int32_t s, ContainerId warned);
  void Enqueue(int32_t j);
  // The job's give-up time has come: its unstarted tasks fail. (Inline: the batch queue asks for
  // every queued job in every cycle.)
  void ExpireJob(int32_t j) {
    JobRun& run = job_runs_[j];
    if (run.pending > 0 && now_ >= run.give_up_at) {
      run.failed += run.pending;
      run.pending = 0;
    }
  }
  void ReportLate(int32_t j, int tasks, int64_t expected_start);
  void Throttle(NodeId n, const BatchLimits& limits);
  void Emit(Action action) { actions_.push_back(std::move(action)); }

  // --- Usage.
  // The usage of container `id` this round; zero when it has none, or where no strategy moves
  // replicas (then nothing reads it and it is not kept).
  const Usage& UsageOf(ContainerId id) const;
  // The services' usage on node `n` now, with their predicted rise, plus the replacements moved
  // there since it was taken.
  const Usage& ServiceUsageNow(NodeId n);
  // Records the services' usage on node `n` now, with their predicted rise.
  void SetServiceUsage(NodeId n, const Usage& usage);
  // With profiles, how much the services on node `n`, using `usage` now, are predicted to rise
  // within the migration horizon, scaled by how far their usage runs above the prediction now (a
  // surge the profiles never saw); zero without profiles.
  Usage PredictedRise(NodeId n, const Usage& usage) const;
  int ReadyReplicas(int32_t s) const;

  // --- Change flags, read and reset by the queues.
  bool dirty = true;       // something changed since the last cycle
  bool unpark_all = true;  // every parked job may fit again (usage-based filters changed)
  // Nodes that freed resources since the last batch pass.
  std::vector<uint8_t> node_freed;
  std::vector<NodeId> freed_nodes;
  std::vector<int32_t> pending_services;
  // Explaining the first placement of options().explain_service.
  bool explained = false;
  ContainerId explained_id = -1;

  // Events and rounds (engine.cc).
  void AdvanceTo(int64_t now);
  NodeId AddNode(const Node& node);
  void FailNode(NodeId n);
  void RecoverNode(NodeId n);
  void SuspectNode(NodeId n);
  void RemoveNode(NodeId n);
  void SetNodeLabels(NodeId n, std::map<std::string, std::string> labels);
  int32_t CreateService(const Service& service);
  void SetPriors(ProfileSet profiles, std::vector<std::pair<Resources, double>> task_shapes);
  void ScaleService(int32_t s, int replicas);
  void DeleteService(int32_t s);
  int32_t SubmitJob(const BatchJob& job, int64_t give_up_at);
  void CancelJob(int32_t j);
  void ContainerStarted(ContainerId id);
  void ContainerFinished(ContainerId id);
  void ContainerLost(ContainerId id);
  void BeginUsageRound(std::span<const UsageSample> fleet);
  void ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples);
  void EndUsageRound();
  void Schedule();
  std::span<const Action> actions() const { return actions_; }
  void ClearActions();
  ServiceStatus service_status(int32_t s) const;
  JobStatus job_status(int32_t j) const;
  EngineStats stats() const;

 private:
  // Per-container records follow a new container (ids are reused).
  void Added(ContainerId id);
  // `taken_back`: a start withdrawn in the call that made it (a gang that cannot start whole).
  void RemoveContainer(ContainerId id, bool taken_back = false);
  void EndScaleOut(int32_t s);
  void StopLeavingReplicas(NodeId n);
  // Keeps what is read back: a container's usage only where replicas move (UsageOf), a task's
  // work for the SLA order of its eviction. Each write misses the cache (ids are scattered).
  void Record(const UsageSample& sample, OwnerKind kind) {
    const ContainerId id = sample.container;
    if (reads_fleet_usage_) usage_[id] = sample.usage;
    if (kind != OwnerKind::kTask) {
      if (reads_fleet_usage_) usage_round_[id] = round_;
      return;
    }
    usage_round_[id] = round_;
    work_[id] = {sample.work_done_s, sample.work_total_s};
  }
  void SetUpProfiles();
  void CheckNode(NodeId n) const;
  void CheckService(int32_t s) const;
  void CheckJob(int32_t j) const;
  // Throws unless `id` is a live container of the engine's. Inline: a usage round checks every
  // sample.
  void CheckContainer(ContainerId id) const {
    if (!state_.alive(id)) ThrowNoContainer(id);
  }
  [[noreturn]] static void ThrowNoContainer(ContainerId id);

  Policy policy_;
  EngineOptions options_;
  std::unique_ptr<ServicePlacement> services_placement_;
  std::unique_ptr<BatchPlacement> batch_;
  std::unique_ptr<PressureResponse> pressure_;
  std::unique_ptr<HealthResponse> health_;
  // Some strategy reads usage (relief, health, reclaimed capacity): without one, a usage round
  // only sets the nodes' batch limits.
  bool reads_usage_ = false;
  // Some strategy moves replicas (Migrate judges targets by their services' usage): the round's
  // fleet-wide samples are read.
  bool reads_fleet_usage_ = false;
  ClusterState state_;
  std::vector<uint8_t> removed_;  // per node: it left the fleet
  std::vector<Service> services_;
  std::vector<ServiceRun> service_runs_;
  std::vector<uint8_t> deleted_;  // per service
  // A server appends a job while requests wait on its lock: a vector's doubling (a copy of every
  // job so far) would stall them all for as long as it takes.
  ChunkedVector<BatchJob> jobs_;
  ChunkedVector<JobRun> job_runs_;
  std::map<int, std::vector<int32_t>, std::greater<>> job_queue_;
  BatchQueue batch_queue_;
  int64_t now_ = 0;
  std::vector<Action> actions_;
  // Per container, the index in actions_ of its kBind, for a replica that moves before it starts.
  std::vector<int32_t> bind_action_;

  // Usage: per container its last sample and the round it is from.
  int64_t round_ = 0;
  std::vector<Usage> usage_;
  std::vector<int64_t> usage_round_;
  std::vector<std::pair<double, int64_t>> work_;
  std::vector<std::pair<ContainerId, Usage>> node_containers_;
  // The node whose round is under way: removals of its containers until another node's event
  // arrives also take their staged health samples. -1 between nodes.
  NodeId round_node_ = -1;
  // Per node, the services' usage at the time in node_service_usage_at_ with their predicted rise,
  // plus the replacements moved there since: where a make-before-break move may go without making
  // its target hot (ServiceUsageNow).
  std::vector<Usage> node_service_usage_;
  std::vector<int64_t> node_service_usage_at_;
  std::vector<BatchLimits> limits_;                     // per node, the last kThrottle
  std::vector<NodeId> no_room_;                         // reused by Migrate
  std::vector<std::pair<ContainerId, Usage>> leaving_;  // reused by StopLeavingReplicas
  std::vector<int32_t> budget_;
  std::vector<Move> moves_;
  MigrationRule migration_rule_;

  // Profiles: the services' predicted usage per node and time bin.
  PlacementSettings placement_;
  std::optional<PredictedLoad> predicted_;

  LatencyHistogram latency_;         // per placement decision
  LatencyHistogram plan_latency_;    // per planner call
  LatencyHistogram replan_latency_;  // per full re-plan
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_CORE_H_
