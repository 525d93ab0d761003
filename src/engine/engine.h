// The scheduling engine (DESIGN §3): the one component that decides, whichever driver feeds it —
// the trace-driven simulator (sim/) or the long-running service. Events in, actions out.
//
//   Engine engine(MakePolicy("archimedes"), options, nodes, services);
//   engine.AdvanceTo(now);  engine.SubmitJob(job, give_up_at);  engine.Schedule();
//   for (const Action& a : engine.actions()) ...carry it out...;  engine.ClearActions();
//
// Contract:
//  - The engine owns the scheduling loop: the pending queues, kube-scheduler's backoff and
//    preemption (a post-filter stage), the batch planner and its re-plan cadence, the serverless
//    reserve, reclaimable capacity, pressure relief, health actions and the SLA state its
//    decisions need. What it does with them is its Policy's (engine/policy.h).
//  - Time is what the driver says: AdvanceTo(now), never decreasing. The engine reads no clock but
//    to time its own decisions; it cannot tell simulated time from real time.
//  - Events apply at the current time, in the order given. Every decision is appended to
//    actions() in the order taken, already applied to the engine's view (cluster()); the driver
//    carries them out in that order and clears them. Ids in actions (containers, nodes, services,
//    jobs) are the engine's: a container id is valid until an action or event ends the container,
//    and may then be reused.
//  - Usage comes in rounds: BeginUsageRound with every service replica's usage now, then one
//    ObserveNodeUsage per ready node with all its containers (the engine relieves that node at
//    once), then EndUsageRound (health actions). Decisions of a round read the usage of this round
//    only. Only a policy that moves replicas judges targets by the fleet's usage: where
//    reads_fleet_usage() is false, BeginUsageRound ignores its samples and may get none. Where
//    reads_usage() is false, the policy reads no sample at all: the rounds may come without them
//    (they still set the nodes' batch limits).
//  - Bad events (an unknown id, an impossible job) throw std::invalid_argument naming the input,
//    or, for jobs, are rejected with a kReject action; nothing already accepted is lost.
//  - Not thread-safe: one driver thread. Deterministic: the same events give the same actions.
#ifndef ARCHIMEDES_ENGINE_ENGINE_H_
#define ARCHIMEDES_ENGINE_ENGINE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/action.h"
#include "engine/planned_task.h"
#include "engine/policy.h"
#include "engine/sla_record.h"
#include "model/cluster_state.h"
#include "model/node.h"
#include "model/workload.h"
#include "profile/profile.h"
#include "sched/framework.h"

namespace archimedes {

class EngineCore;
class SlaLedger;

using Usage = std::array<float, kNumDims>;

struct EngineOptions {
  uint64_t seed = 1;  // breaks ties between equally scored nodes
  // Usage above these shares of capacity makes a node hot (DESIGN §5); relief acts before it.
  double cpu_hot_threshold = 0.9;
  double memory_hot_threshold = 1.0;
  // Profiles for the profile-driven strategies; applications without one are predicted by their
  // requests.
  ProfileSet profiles;
  // The expected mix of task shapes (requests, weight summing to 1) that fragment-aware placement
  // keeps room for; empty: none.
  std::vector<std::pair<Resources, double>> task_shapes;
  // When set, the first placement of this service's replicas is explained (filter verdicts and
  // score terms per node) to `explain_out`.
  std::string explain_service;
  std::function<void(const std::string&)> explain_out;
  // Keeps the record behind service_sla() and job_sla(). A driver that measures the SLA itself
  // (the simulator's metrics) turns it off: the two then throw std::logic_error.
  bool sla_ledger = true;
};

// One container's usage at the current time, as a node reports it.
struct UsageSample {
  ContainerId container = -1;
  Usage usage{};
  // Tasks: seconds of work done, and of the whole task: what an eviction throws away.
  double work_done_s = 0;
  int64_t work_total_s = 0;
};

// What the engine keeps about a service, for drivers and reports.
struct ServiceStatus {
  int desired = 0;  // replicas wanted
  int extra = 0;    // one more while a warned replica is replaced (a health scale-out)
  // Replicas running, in the order they took their slot; a replica moving make-before-break is
  // listed (its replacement is not) until the replacement takes over.
  std::span<const ContainerId> replicas;
};

// What the engine keeps about a job: every submitted task is in exactly one of pending, running,
// finished or failed.
struct JobStatus {
  int pending = 0;
  int running = 0;
  int finished = 0;
  int failed = 0;         // never started before the job's give-up time, or cancelled
  int first_started = 0;  // tasks that started at least once
  bool rejected = false;
};

struct EngineStats {
  // Wall-clock microseconds per placement decision (one Scheduler call), per batch-planner call
  // and per full re-plan: percentiles and counts.
  double decision_p50_us = 0, decision_p99_us = 0;
  int64_t decisions = 0;
  double plan_p50_us = 0, plan_p99_us = 0;
  int64_t plans = 0;
  double replan_p50_us = 0, replan_p99_us = 0;
  int64_t replans = 0;
};

class Engine {
 public:
  // A fleet of `nodes` and the catalogue of `services` (each with no replica until scaled), as a
  // driver starts or a restarted service restores them. Node and service ids are the positions.
  Engine(const Policy& policy, EngineOptions options, std::vector<Node> nodes,
         std::vector<Service> services);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Time. Moves whose replacement has had its service's start-up time finish: the old replica
  // stops.
  void AdvanceTo(int64_t now);
  // One scheduling cycle at the current time: pending replicas, then batch (planned or greedy).
  // Cheap when nothing changed.
  void Schedule();

  // Nodes.
  NodeId AddNode(const Node& node);
  void FailNode(NodeId n);     // down with everything on it: replicas re-placed, tasks requeued
  void RecoverNode(NodeId n);  // schedulable again
  // Unreachable from one observer only (a silent agent): nothing new is placed on it and what runs
  // there stays, until RecoverNode or FailNode says which it was (docs/magi.md).
  void SuspectNode(NodeId n);
  void RemoveNode(NodeId n);  // drained (its containers evicted and re-placed), never used again
  void SetNodeLabels(NodeId n, std::map<std::string, std::string> labels);

  // Services.
  int32_t CreateService(const Service& service);
  void ScaleService(int32_t service, int replicas);
  void DeleteService(int32_t service);

  // What the profile-driven strategies place by, learned from history (a service's bootstrap, a
  // refresh): replaces EngineOptions::profiles and task_shapes. The strategies start again from
  // the current state, as when a service is created; the batch plan is made anew.
  void SetPriors(ProfileSet profiles, std::vector<std::pair<Resources, double>> task_shapes);

  // Jobs. Returns the job's id, also for a job rejected with a kReject action (one that can
  // never run: model/workload.h's ValidateJob). Unstarted tasks fail at `give_up_at` (the
  // submitter's patience). A task larger than every node so far waits: nodes may come.
  int32_t SubmitJob(const BatchJob& job, int64_t give_up_at);
  void CancelJob(int32_t job);

  // Containers, as the world reports them.
  void ContainerStarted(ContainerId id);    // up and ready: a replacement takes over now
  void ContainerFinished(ContainerId id);   // a task completed its work
  void ContainerFailed(ContainerId id);     // crashed or could not start
  void ContainerOomKilled(ContainerId id);  // killed by the kernel for memory

  // Usage rounds.
  void BeginUsageRound(std::span<const UsageSample> fleet);
  void ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples);
  void EndUsageRound();

  // Actions out.
  std::span<const Action> actions() const;
  void ClearActions();

  // Views.
  const ClusterState& cluster() const;
  int64_t now() const;
  ServiceStatus service_status(int32_t service) const;
  JobStatus job_status(int32_t job) const;
  EngineStats stats() const;
  const Policy& policy() const;
  bool reads_usage() const;
  bool reads_fleet_usage() const;
  // The batch plan as of the last cycle: one place per pending task the planner holds one for
  // (never more than the job has pending), by job, then start, then node. Empty under a policy
  // whose batch placement does not plan (engine/batch_placement.h).
  std::vector<PlannedTask> plan() const;
  // The places of job `job` alone, as plan() has them; O(plan size). Throws
  // std::invalid_argument for an id the engine never gave.
  std::vector<PlannedTask> plan_of(int32_t job) const;
  // What the engine has seen of the SLA contract of service `service` (deleted ones too: up to
  // their deletion) and of job `job` so far (engine/sla_record.h). Throw std::invalid_argument for
  // an id the engine never gave, std::logic_error where the engine keeps no ledger.
  SlaRecord service_sla(int32_t service) const;
  SlaRecord job_sla(int32_t job) const;
  // What the policy's service scheduler (the one --explain shows) says of every node for one
  // replica of `pod`, changing nothing: filter verdicts and score terms. `service` is the id of
  // the catalogue's service it belongs to (its profile, its replicas), or -1 for none. What the
  // scheduler extender answers (server/extender.h).
  std::vector<NodeExplanation> ExplainReplica(const Service& pod, int32_t service = -1) const;

 private:
  // Hands the actions taken since the last call to the SLA ledger.
  void NoteActions();
  void CheckLedger() const;

  std::unique_ptr<EngineCore> core_;
  std::unique_ptr<SlaLedger> sla_;
  size_t noted_ = 0;  // actions the ledger has seen
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_ENGINE_H_
