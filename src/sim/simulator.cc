#include "sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/archimedes_placement.h"
#include "sched/batch_planner.h"
#include "sched/eviction.h"
#include "sched/migration.h"
#include "sched/peak_refiner.h"
#include "sched/predicted_load.h"
#include "sched/reclaimable.h"
#include "sched/room_maker.h"
#include "sched/sla_contract.h"
#include "sim/explain.h"
#include "sim/health_monitor.h"
#include "sim/surge_margin.h"
#include "sim/usage_model.h"
#include "sim/warmup_profiles.h"

namespace archimedes {
namespace {

using Clock = std::chrono::steady_clock;

// The dimensions kube-scheduler checks requests in; an envelope over them lets a scheduling cycle
// skip, in O(1), tasks that no node could take.
constexpr std::array<Dim, 3> kRequestDims = {Dim::kCpu, Dim::kMemory, Dim::kGpu};

// Standard deviations of the next usage step that overload relief keeps below the hot threshold
// when services run above their profiles (sim/surge_margin.h): 3 leaves a node-step about a 0.13 %
// chance of crossing, against a 99.9 % availability target.
constexpr double kSurgeMarginZ = 3.0;

// Whether the batch planner places `job`'s tasks. It plans cpu and memory; tasks that request a GPU
// go the greedy way, whose filter checks unrequested GPU (GPUs are not reclaimed).
bool Planned(const BatchJob& job) { return job.task_requests[Dim::kGpu] == 0; }

// The CPU work one task of `job` does when it runs to completion, in core-seconds.
double CoreSeconds(const BatchJob& job) {
  return static_cast<double>(job.task_requests.cpu()) / 1000.0 * job.utilization *
         static_cast<double>(job.duration_s);
}

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
  int64_t last_oom_kill = -1;  // of a replica, cgroup or node OOM killer: a breach's reason
  // The last start or scale-up of the service and the replicas it added: those placed within a
  // tick of it are no harm while they start, as a new deployment's rollout is no outage (a
  // replacement of a lost replica is).
  int64_t ramp_start = -1;
  int ramp_added = 0;
  std::vector<ContainerId> running;
  std::vector<uint8_t> slot_used;  // replica slots in use; a replacement takes the lowest free one
  bool pending_listed = false;
  // kube-scheduler's backoff for pods that could not be scheduled: 1 s doubling up to 10 s.
  int64_t backoff_s = 0;
  int64_t next_attempt = 0;
  double desired_time = 0;  // replica-seconds after warm-up
  double harmed_time = 0;
  std::vector<Breach> breaches;  // filled only for --sla-report
};

struct JobRun {
  int pending = 0;
  int running = 0;
  int finished = 0;
  int failed = 0;
  int first_started = 0;  // tasks that started at least once (restarts are not new starts)
  bool started_late = false;
  int64_t worst_wait = 0;  // longest wait of a first start
  bool queued = false;
  // Pending tasks the batch planner has not been given since its last call: they are passed to
  // PlanAdditional between full re-plans, so no task is planned twice.
  int unplanned = 0;
  bool reported_late = false;  // the planner found its tolerance can no longer be met
  // Set when no node could take a task of the job; it is tried again only once a node that could
  // have grown enough frees resources (or at the next usage tick, when usage-based filters change).
  bool parked = false;
  int64_t expire_at = 0;
  int64_t completed_at = -1;
};

struct TaskRun {
  int32_t job = -1;
  double remaining = 0;  // seconds of work left at full speed
  double rate = 1;       // share of full speed since last_update
  int64_t last_update = 0;
  uint32_t generation = 0;
};

struct TaskFinish {
  int64_t time;
  ContainerId id;
  uint32_t generation;
  bool operator>(const TaskFinish& o) const { return time != o.time ? time > o.time : id > o.id; }
};

// A make-before-break migration whose replacement is not ready yet: the old replica serves until
// `ready_at`, then stops.
struct Move {
  ContainerId old;
  ContainerId replacement;
  int64_t ready_at;
};

struct ServiceEvent {
  int64_t time;
  int32_t service;
  int replicas;  // desired replicas from then on
};

class Simulation {
 public:
  Simulation(const Scenario& scenario, Policy& policy, const SimOptions& options);
  Metrics Run();

 private:
  void ApplyNodeEvent(const NodeEvent& e);
  void SetDesired(int32_t s, int replicas);
  void CompleteTasks();
  void SubmitJobs();
  void Enqueue(int32_t j);
  void SchedulingCycle();
  void PlaceServices();
  void RefinePlacedPeaks();
  ContainerId MoveUnstartedReplica(ContainerId id, NodeId to, std::string_view why);
  bool PreemptFor(int32_t s);
  void PlaceBatch();
  bool PlaceJob(int32_t j);
  void RecordFirstStarts(int32_t j, int first_started_before);
  void JudgeStarts(const BatchJob& job, int64_t tasks, bool within_tolerance);
  void ExpireJob(JobRun& run) const;
  void PlanBatch(bool full);
  void CollectPending(bool full);
  PlannerInput PlannerInputNow();
  void SampleServerlessDemand();
  void UpdateServerlessReserve();
  void StartPlanned();
  void CountTask(int32_t j, NodeId n, int sign);
  void ReportLate();
  int64_t PlanBin(int64_t t) const { return t / planner_->options().bin_seconds; }
  double YieldBatch(NodeId n);
  void ObserveServices(NodeId n, const Usage& service_usage);
  NodeId Decide(Scheduler& scheduler, const PodRequest& pod, FeasibilityMemo* memo = nullptr);
  ContainerId StartTask(int32_t j, NodeId node);
  void Kill(ContainerId id);
  void UsageTick();
  void SampleMetrics();
  void SetUpProfiles();
  SchedulingContext Context() const;
  Resources TaskRoom(NodeId n) const;
  void UpdateBatchAllocatable(NodeId n, const Usage& service_usage);
  void RelievePressure(NodeId n, double cpu_threshold, double memory_threshold);
  ContainerId Migrate(ContainerId id);
  void StopLeavingReplicas(NodeId n, double cpu_threshold);
  int ReadyReplicas(int32_t s) const;
  void FinishMigrations();
  void FinishMove(const Move& m);
  Usage PredictedRise(NodeId n, const Usage& usage) const;
  const Usage& ServiceUsageNow(NodeId n);
  void SetServiceUsage(NodeId n, const Usage& usage);
  std::vector<Move>::iterator FindMove(ContainerId id);
  void EndScaleOut(int32_t s);
  void WatchHealth();
  Usage ContainerUsage(const Container& c) const;
  void OomKill(ContainerId id);
  void RecomputeEnvelope();
  bool EnvelopeAdmits(const Resources& r) const;
  void AddFailedShape(const Resources& r);
  void RemoveContainer(ContainerId id);
  PodRequest ServicePod(int32_t s) const;
  Metrics Summarize();

  const Scenario& scenario_;
  const Workload& workload_;
  Policy& policy_;
  SimOptions options_;
  ClusterState state_;
  std::unordered_map<std::string, NodeId> node_index_;
  std::vector<ServiceRun> services_;
  std::vector<JobRun> jobs_;
  std::vector<TaskRun> tasks_;  // by ContainerId
  std::vector<Usage> node_usage_;
  std::vector<uint8_t> node_hot_;
  // Per node, the services' usage at the time in node_service_usage_at_ with their predicted rise
  // (PredictedRise), plus the replacements moved there since: where a make-before-break move may go
  // without making its target hot (ServiceUsageNow).
  std::vector<Usage> node_service_usage_;
  std::vector<int64_t> node_service_usage_at_;
  std::vector<NodeId> no_room_;  // reused by Migrate
  std::priority_queue<TaskFinish, std::vector<TaskFinish>, std::greater<>> finishes_;
  std::vector<ServiceEvent> service_events_;
  std::vector<NodeEvent> node_events_;
  size_t next_service_event_ = 0, next_node_event_ = 0, next_job_ = 0;
  std::vector<int32_t> pending_services_;
  std::map<int, std::vector<int32_t>, std::greater<>> job_queue_;  // priority → jobs, FIFO
  bool dirty_ = true;
  bool unpark_all_ = true;
  std::vector<uint8_t> node_freed_;
  std::vector<NodeId> freed_nodes_;
  Resources envelope_;
  std::vector<Resources> failed_shapes_;
  std::vector<ContainerId> started_;  // reused by PlaceJob
  FeasibilityMemo memo_;
  int64_t now_ = 0;
  int64_t end_ = 0;
  ShapeMix mix_;

  // Accumulators after warm-up.
  std::array<double, kNumDims> allocation_sum_{}, utilization_sum_{};
  double fragmentation_sum_ = 0;
  int64_t allocation_samples_ = 0, utilization_samples_ = 0;
  int64_t hot_node_ticks_ = 0, node_ticks_ = 0;
  double container_seconds_ = 0;
  double batch_core_seconds_ = 0;
  std::vector<std::pair<double, double>> waits_;  // (wait, tasks)
  int64_t tasks_within_tolerance_ = 0, tasks_judged_ = 0;
  std::array<int64_t, 2> type_within_tolerance_{}, type_judged_{};  // by JobType
  double offered_core_seconds_ = 0;  // the CPU work of the jobs submitted after warm-up
  double lost_core_seconds_ = 0;     // the progress of batch tasks killed after warm-up
  std::vector<std::pair<double, double>> wait_shares_;  // (wait ÷ tolerance, tasks)
  int64_t evictions_ = 0, migrations_ = 0, oom_kills_ = 0, failure_kills_ = 0;
  int64_t health_migrations_ = 0, health_scale_outs_ = 0;
  std::vector<Move> moves_;
  // Acting on health warnings (Policy::act_on_health): the monitor and this tick's samples.
  std::optional<HealthMonitor> health_;
  MigrationRule migration_rule_;
  std::vector<std::pair<int32_t, ReplicaSample>> health_samples_;  // (service, sample)
  std::vector<ReplicaSample> replica_samples_;
  std::vector<std::pair<ContainerId, HealthFinding>> findings_;
  LatencyHistogram latency_;         // per placement decision
  LatencyHistogram plan_latency_;    // per planner call
  LatencyHistogram replan_latency_;  // per full re-plan

  // Reclaiming policies: per node, capacity × (1 − buffer) − the services' peak usage over the
  // last kPeakWindow ticks (ring), what batch may use now.
  static constexpr int kPeakWindow = 15;
  std::vector<Resources> batch_allocatable_;
  std::vector<std::array<float, 2>> service_usage_ring_;  // node × kPeakWindow, cpu and memory
  int ring_pos_ = 0;
  // Profile-driven policies: the services' predicted usage per node and time bin.
  std::optional<PredictedLoad> predicted_;
  // Overload relief under the minimal evictor with profiles: the spread of the next usage step.
  std::optional<SurgeMargin> surge_margin_;
  std::vector<int32_t> staying_services_, leaving_services_;
  std::optional<Scheduler> request_fallback_;  // the policy's request-based service scheduler
  // Service replicas the profile scheduler placed in this cycle, for RefinePlacedPeaks.
  std::vector<ContainerId> placed_ids_;
  std::vector<PodRequest> placed_pods_;
  PlacementSettings placement_;
  // Eviction workspace.
  Evictor evictor_;
  NaiveEvictor naive_evictor_;
  std::vector<EvictionCandidate> candidates_;
  std::vector<int32_t> budget_;
  std::vector<ContainerId> victims_;
  std::vector<std::pair<ContainerId, Usage>> node_containers_;
  std::vector<std::pair<ContainerId, Usage>> leaving_;  // reused by StopLeavingReplicas
  bool explained_ = false;
  ContainerId explained_id_ = -1;  // the explained replica while RefinePlacedPeaks may move it

  // Planned batch (BatchPlacement::kPlanned): the planner and its inputs, reused across calls.
  std::optional<BatchPlanner> planner_;
  int64_t planned_bin_ = -1;  // the bin of the last full re-plan
  bool replan_ = true;        // the fleet changed since then
  std::vector<Resources> plan_capacity_;
  std::vector<uint8_t> plan_schedulable_;
  std::vector<float> observed_service_;  // nodes × kNumDims: the services' usage at the last tick
  std::vector<RunningTask> plan_running_;
  std::vector<PendingJob> plan_pending_;
  // The serverless reserve: the peak, over the last hour, of the requests of serverless tasks
  // running or waiting, spread over the ready nodes in proportion to their capacity.
  static constexpr int64_t kServerlessWindow = 3600;
  Resources serverless_running_;
  Resources serverless_peak_;  // of serverless_running_ since the last sample
  std::deque<std::pair<int64_t, Resources>> serverless_demand_;  // (tick, peak in it)
  std::vector<Resources> serverless_reserve_;
  // Policy::serverless_cpu_borrow: per node, the CPU requested by tasks other than serverless
  // ones, and the share of it serverless tasks may take (the node throttles the others for them).
  std::vector<int64_t> offline_cpu_;
  std::vector<int64_t> borrowable_cpu_;
  std::vector<int32_t> pending_owner_;  // job of each plan_pending_ entry
  std::vector<YieldingTask> yielding_;
  std::vector<ContainerId> yielding_ids_;
  // Tasks of jobs submitted after warm-up that the planner reported, ahead of time, as unable to
  // start within their tolerance (once per job).
  int64_t tasks_reported_late_ = 0;
};

Simulation::Simulation(const Scenario& scenario, Policy& policy, const SimOptions& options)
    : scenario_(scenario),
      workload_(scenario.workload),
      policy_(policy),
      options_(options),
      state_(scenario.nodes, policy.task_accounting()),
      services_(workload_.services.size()),
      jobs_(workload_.jobs.size()),
      node_usage_(scenario.nodes.size()),
      node_hot_(scenario.nodes.size()),
      node_service_usage_(scenario.nodes.size()),
      node_service_usage_at_(scenario.nodes.size(), -1),
      node_freed_(scenario.nodes.size()),
      end_(scenario.duration_s),
      mix_(ShapeMix::FromWorkload(scenario.workload)),
      batch_allocatable_(scenario.nodes.size()),
      service_usage_ring_(scenario.nodes.size() * kPeakWindow),
      offline_cpu_(scenario.nodes.size()),
      borrowable_cpu_(scenario.nodes.size()) {
  for (NodeId n = 0; n < state_.num_nodes(); ++n) node_index_[state_.node(n).name] = n;
  if (policy_.act_on_health) health_.emplace();
  std::unordered_map<std::string, int32_t> service_index;
  for (size_t s = 0; s < workload_.services.size(); ++s) {
    const Service& svc = workload_.services[s];
    service_index[svc.name] = static_cast<int32_t>(s);
    if (svc.end_time > svc.start_time) {
      service_events_.push_back({svc.start_time, static_cast<int32_t>(s), svc.replicas});
      if (svc.end_time != kForever)
        service_events_.push_back({svc.end_time, static_cast<int32_t>(s), 0});
    }
  }
  for (const ScaleEvent& e : workload_.scale_events) {
    auto it = service_index.find(e.service);
    if (it == service_index.end()) {
      throw std::invalid_argument("scale event at " + std::to_string(e.time) +
                                  " s names unknown service \"" + e.service + "\"");
    }
    const Service& svc = workload_.services[it->second];
    if (e.time >= svc.start_time && e.time < svc.end_time) {
      service_events_.push_back({e.time, it->second, e.replicas});
    }
  }
  std::stable_sort(service_events_.begin(), service_events_.end(),
                   [](const ServiceEvent& a, const ServiceEvent& b) { return a.time < b.time; });
  node_events_ = workload_.node_events;
  std::stable_sort(node_events_.begin(), node_events_.end(),
                   [](const NodeEvent& a, const NodeEvent& b) { return a.time < b.time; });
  for (const NodeEvent& e : node_events_) {
    if (e.kind != NodeEvent::Kind::kAdd && !node_index_.count(e.node)) {
      bool added_earlier =
          std::any_of(node_events_.begin(), node_events_.end(), [&](const NodeEvent& a) {
            return a.kind == NodeEvent::Kind::kAdd && a.spec.name == e.node && a.time <= e.time;
          });
      if (!added_earlier) {
        throw std::invalid_argument("node event at " + std::to_string(e.time) +
                                    " s names unknown node \"" + e.node + "\"");
      }
    }
  }
}

PodRequest Simulation::ServicePod(int32_t s) const {
  return ServicePodRequest(workload_.services[s], s);
}

SchedulingContext Simulation::Context() const {
  return SchedulingContext{.state = state_,
                           .predicted = predicted_ ? &*predicted_ : nullptr,
                           .batch_allocatable = batch_allocatable_,
                           .serverless_reserve = serverless_reserve_,
                           .borrowable_cpu = borrowable_cpu_,
                           .now = now_};
}

NodeId Simulation::Decide(Scheduler& scheduler, const PodRequest& pod, FeasibilityMemo* memo) {
  const SchedulingContext ctx = Context();
  auto start = Clock::now();
  NodeId node = scheduler.Schedule(ctx, pod, memo);
  latency_.Add(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  return node;
}

void Simulation::ApplyNodeEvent(const NodeEvent& e) {
  if (e.kind == NodeEvent::Kind::kAdd) {
    NodeId n = state_.AddNode(e.spec);
    node_index_[e.spec.name] = n;
    node_usage_.emplace_back();
    node_hot_.push_back(0);
    node_service_usage_.emplace_back();
    node_service_usage_at_.push_back(-1);
    node_freed_.push_back(0);
    batch_allocatable_.emplace_back();
    offline_cpu_.push_back(0);
    borrowable_cpu_.push_back(0);
    service_usage_ring_.resize(service_usage_ring_.size() + kPeakWindow);
    if (predicted_) predicted_->AddNode(e.spec);
    dirty_ = true;
    unpark_all_ = true;
    replan_ = true;
    return;
  }
  NodeId n = node_index_.at(e.node);
  replan_ = true;
  if (e.kind == NodeEvent::Kind::kRecover) {
    state_.SetCondition(n, NodeCondition::kReady);
    dirty_ = true;
    unpark_all_ = true;
    return;
  }
  state_.SetCondition(n, NodeCondition::kNotReady);
  std::vector<ContainerId> victims(state_.containers_on(n).begin(), state_.containers_on(n).end());
  for (ContainerId id : victims) {
    Kill(id);
    ++failure_kills_;
  }
  node_usage_[n] = {};
}

void Simulation::SetDesired(int32_t s, int replicas) {
  ServiceRun& run = services_[s];
  run.desired = replicas;
  if (replicas == 0) {
    run.extra = 0;
    run.scaled_for = -1;
  }
  while (static_cast<int>(run.running.size()) > replicas + run.extra) {
    ContainerId id = run.running.back();
    // Scale-down of the newest replica: not an eviction; a move of it under way stops with it.
    if (auto move = FindMove(id); move != moves_.end()) Kill(move->replacement);
    Kill(id);
  }
  if (static_cast<int>(run.running.size()) < replicas + run.extra && !run.pending_listed) {
    run.pending_listed = true;
    pending_services_.push_back(s);
  }
  dirty_ = true;
}

// Removes a container; a service replica becomes pending again, a task goes back to its queue
// and loses its progress.
void Simulation::Kill(ContainerId id) {
  const Container c = state_.container(id);
  RemoveContainer(id);
  if (c.kind == OwnerKind::kService) {
    ServiceRun& run = services_[c.owner];
    if (auto move = FindMove(id); move != moves_.end()) {
      // The replacement's death leaves the old replica serving in its slot; the old one's death
      // makes the replacement the replica, ready when its start-up is over.
      const Move m = *move;
      moves_.erase(move);
      if (m.old == id) *std::find(run.running.begin(), run.running.end(), id) = m.replacement;
      if (run.scaled_for == id) EndScaleOut(c.owner);
      return;
    }
    run.running.erase(std::find(run.running.begin(), run.running.end(), id));
    run.slot_used[c.index] = 0;
    if (run.scaled_for == id) EndScaleOut(c.owner);
    if (static_cast<int>(run.running.size()) < run.desired + run.extra && !run.pending_listed) {
      run.pending_listed = true;
      pending_services_.push_back(c.owner);
    }
    return;
  }
  TaskRun& task = tasks_[id];
  ++task.generation;
  if (now_ >= options_.warmup_s) {
    const BatchJob& spec = workload_.jobs[task.job];
    const double left = task.remaining - static_cast<double>(now_ - task.last_update) * task.rate;
    const double done = std::clamp(static_cast<double>(spec.duration_s) - left, 0.0,
                                   static_cast<double>(spec.duration_s));
    lost_core_seconds_ += CoreSeconds(spec) * done / static_cast<double>(spec.duration_s);
  }
  JobRun& job = jobs_[task.job];
  --job.running;
  if (now_ < job.expire_at) {
    ++job.pending;
    ++job.unplanned;
    Enqueue(task.job);
  } else {
    ++job.failed;
  }
}

void Simulation::CompleteTasks() {
  while (!finishes_.empty() && finishes_.top().time <= now_) {
    TaskFinish f = finishes_.top();
    finishes_.pop();
    if (!state_.alive(f.id) || tasks_[f.id].generation != f.generation) continue;
    const int32_t j = tasks_[f.id].job;
    const BatchJob& job = workload_.jobs[j];
    RemoveContainer(f.id);
    ++tasks_[f.id].generation;
    JobRun& run = jobs_[j];
    --run.running;
    ++run.finished;
    if (run.finished == job.tasks) run.completed_at = now_;
    if (now_ >= options_.warmup_s) {
      batch_core_seconds_ += CoreSeconds(job);
    }
    dirty_ = true;
  }
}

void Simulation::SubmitJobs() {
  while (next_job_ < workload_.jobs.size() && workload_.jobs[next_job_].submit_time <= now_) {
    const int32_t j = static_cast<int32_t>(next_job_++);
    const BatchJob& job = workload_.jobs[j];
    JobRun& run = jobs_[j];
    int64_t patience = std::max(
        static_cast<int64_t>(options_.patience_factor * static_cast<double>(job.delay_tolerance_s)),
        options_.min_patience_s);
    run.expire_at = job.submit_time + job.delay_tolerance_s + patience;
    run.pending = job.tasks;
    run.unplanned = job.tasks;
    if (job.submit_time >= options_.warmup_s) offered_core_seconds_ += CoreSeconds(job) * job.tasks;
    Enqueue(j);
  }
}

void Simulation::RemoveContainer(ContainerId id) {
  const Container& c = state_.container(id);
  NodeId n = c.node;
  if (predicted_ && c.kind == OwnerKind::kService) predicted_->RemoveContainer(c);
  if (c.kind == OwnerKind::kTask) CountTask(c.owner, n, -1);
  state_.Remove(id);
  dirty_ = true;
  if (!node_freed_[n]) {
    node_freed_[n] = 1;
    freed_nodes_.push_back(n);
  }
}

// Keeps only the minimal failed shapes: a shape that dominates a failed one fails too.
void Simulation::AddFailedShape(const Resources& r) {
  auto dominates = [](const Resources& a, const Resources& b) {
    for (Dim d : kRequestDims) {
      if (a[d] < b[d]) return false;
    }
    return true;
  };
  for (const Resources& f : failed_shapes_) {
    if (dominates(r, f)) return;
  }
  std::erase_if(failed_shapes_, [&](const Resources& f) { return dominates(f, r); });
  failed_shapes_.push_back(r);
}

void Simulation::Enqueue(int32_t j) {
  dirty_ = true;
  if (jobs_[j].queued) return;
  jobs_[j].queued = true;
  job_queue_[workload_.jobs[j].priority].push_back(j);
}

// An upper bound of the room a task could find on node `n` under the policy's batch placement.
Resources Simulation::TaskRoom(NodeId n) const {
  switch (policy_.batch_placement) {
    case BatchPlacement::kRequests:
      return state_.unrequested(n);
    case BatchPlacement::kReclaimed:
      return batch_allocatable_[n] - state_.task_requested(n);
    case BatchPlacement::kPlanned: {
      Resources room = state_.node(n).capacity - state_.task_requested(n);
      room[Dim::kCpu] += borrowable_cpu_[n];
      return room;
    }
  }
  return Resources{};
}

void Simulation::RecomputeEnvelope() {
  envelope_ = Resources{};
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    if (state_.ready(n)) envelope_ = Max(envelope_, TaskRoom(n));
  }
}

bool Simulation::EnvelopeAdmits(const Resources& r) const {
  for (Dim d : kRequestDims) {
    if (r[d] > envelope_[d]) return false;
  }
  for (const Resources& failed : failed_shapes_) {
    bool dominates = true;
    for (Dim d : kRequestDims) dominates = dominates && r[d] >= failed[d];
    if (dominates) return false;
  }
  return true;
}

void Simulation::SchedulingCycle() {
  const bool replan_due = planner_ && (replan_ || PlanBin(now_) != planned_bin_);
  if (!dirty_ && !replan_due) return;
  dirty_ = false;
  PlaceServices();
  if (planner_) PlanBatch(replan_due);
  PlaceBatch();
}

void Simulation::PlaceServices() {
  std::vector<int32_t> pending;
  pending.swap(pending_services_);
  // Higher priority first: after a node failure the most important replicas find room first.
  std::stable_sort(pending.begin(), pending.end(), [&](int32_t a, int32_t b) {
    return workload_.services[a].priority > workload_.services[b].priority;
  });
  constexpr int64_t kInitialBackoff = 1, kMaxBackoff = 10;
  for (int32_t s : pending) {
    ServiceRun& run = services_[s];
    if (now_ < run.next_attempt) {
      pending_services_.push_back(s);
      continue;
    }
    run.pending_listed = false;
    PodRequest pod = ServicePod(s);
    while (static_cast<int>(run.running.size()) < run.desired + run.extra) {
      NodeId node = Decide(policy_.services, pod);
      const bool by_cycle_refinement = request_fallback_ && policy_.refine_placement;
      bool by_profile = node >= 0 && by_cycle_refinement;
      // A replica's guarantee is its requests: where no node fits its predicted curve under the
      // buffer, it still goes where its requests fit rather than stay pending.
      if (node < 0 && request_fallback_) node = Decide(*request_fallback_, pod);
      const bool explain = !explained_ && options_.explain_out &&
                           workload_.services[s].name == options_.explain_service;
      if (explain) {
        explained_ = true;
        options_.explain_out(FormatExplanation(policy_.services, Context(), pod, node));
      }
      if (node < 0 && by_cycle_refinement) {
        // Moving replicas that have not started costs nothing; evicting lower priorities does.
        node = MakeRoom(policy_.services, Context(), pod, placed_ids_, placed_pods_,
                        [&](ContainerId id, NodeId to) {
                          return MoveUnstartedReplica(
                              id, to, "to make room for a replica that fit nowhere");
                        });
        by_profile = node >= 0;
        if (explain && node >= 0) {
          options_.explain_out("refined: placed on " + state_.node(node).name +
                               " after moving replicas there that had not started "
                               "(docs/placement.md)\n");
        }
      }
      if (node < 0) {
        if (PreemptFor(s)) continue;
        break;
      }
      auto free_slot = std::find(run.slot_used.begin(), run.slot_used.end(), 0);
      const int32_t slot = static_cast<int32_t>(free_slot - run.slot_used.begin());
      if (free_slot == run.slot_used.end()) run.slot_used.push_back(0);
      run.slot_used[slot] = 1;
      Container c{.kind = OwnerKind::kService,
                  .owner = s,
                  .index = slot,
                  .node = node,
                  .requests = pod.requests,
                  .priority = pod.priority,
                  .start_time = now_};
      run.running.push_back(state_.Add(c));
      if (predicted_) predicted_->AddContainer(c);
      if (explain) explained_id_ = run.running.back();
      if (by_profile) {
        placed_ids_.push_back(run.running.back());
        placed_pods_.push_back(pod);
      }
    }
    if (static_cast<int>(run.running.size()) < run.desired + run.extra) {
      run.backoff_s = std::min(std::max(run.backoff_s * 2, kInitialBackoff), kMaxBackoff);
      run.next_attempt = now_ + run.backoff_s;
      run.pending_listed = true;
      pending_services_.push_back(s);
    } else {
      run.backoff_s = 0;
    }
  }
  RefinePlacedPeaks();
}

// Moves a service replica placed in this cycle, before it starts; --explain reports it, with
// `why`, when it is the explained replica.
ContainerId Simulation::MoveUnstartedReplica(ContainerId id, NodeId to, std::string_view why) {
  Container c = state_.container(id);
  const NodeId from = c.node;
  std::vector<ContainerId>& running = services_[c.owner].running;
  predicted_->RemoveContainer(c);
  state_.Remove(id);
  c.node = to;
  const ContainerId moved = state_.Add(c);
  predicted_->AddContainer(c);
  *std::find(running.begin(), running.end(), id) = moved;
  if (id == explained_id_) {
    explained_id_ = moved;
    options_.explain_out("refined: moved from " + state_.node(from).name + " to " +
                         state_.node(to).name + " before it started, " + std::string(why) +
                         " (docs/placement.md)\n");
  }
  return moved;
}

// Moves the replicas placed in this cycle while that lowers the sum of predicted peaks
// (sched/peak_refiner.h).
void Simulation::RefinePlacedPeaks() {
  constexpr size_t kMinReplicasToRefine = 2;
  if (placed_ids_.size() >= kMinReplicasToRefine) {
    RefinePeaks(
        policy_.services, Context(), placed_ids_, placed_pods_, [&](ContainerId id, NodeId to) {
          return MoveUnstartedReplica(
              id, to, "as that lowers the sum of the nodes' predicted cpu and memory peaks");
        });
  }
  explained_id_ = -1;
  placed_ids_.clear();
  placed_pods_.clear();
}

// kube-scheduler's DefaultPreemption, for a service replica that fits nowhere: on the node where
// evicting lower-priority containers makes room with the least harm (lowest highest victim
// priority, then fewest victims), evict them, lowest priority and newest first.
bool Simulation::PreemptFor(int32_t s) {
  const PodRequest pod = ServicePod(s);
  NodeId best = -1;
  std::pair<int, size_t> best_cost{0, 0};
  std::vector<ContainerId> best_victims, victims, candidates;
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    if (!state_.ready(n)) continue;
    candidates.clear();
    Resources preemptible;
    for (ContainerId id : state_.containers_on(n)) {
      const Container& c = state_.container(id);
      // Tasks on reclaimed capacity hold no allocatable: evicting them makes no room.
      if (c.kind == OwnerKind::kTask && state_.accounting() == TaskAccounting::kReclaimed) continue;
      if (c.priority < pod.priority) {
        candidates.push_back(id);
        preemptible += c.requests;
      }
    }
    if (candidates.empty()) continue;
    bool could_fit = true;
    for (Dim d : kRequestDims) {
      could_fit = could_fit && (pod.requests[d] == 0 ||
                                state_.requested(n)[d] - preemptible[d] + pod.requests[d] <=
                                    state_.allocatable(n)[d]);
    }
    if (!could_fit) continue;
    std::sort(candidates.begin(), candidates.end(), [&](ContainerId a, ContainerId b) {
      const Container& ca = state_.container(a);
      const Container& cb = state_.container(b);
      return ca.priority != cb.priority ? ca.priority < cb.priority : ca.start_time > cb.start_time;
    });
    Resources requested = state_.requested(n);
    const Resources& alloc = state_.allocatable(n);
    auto fits = [&] {
      for (Dim d : kRequestDims) {
        if (pod.requests[d] > 0 && requested[d] + pod.requests[d] > alloc[d]) return false;
      }
      return true;
    };
    victims.clear();
    for (ContainerId id : candidates) {
      if (fits()) break;
      requested -= state_.container(id).requests;
      victims.push_back(id);
    }
    if (victims.empty() || !fits()) continue;
    int top_priority = state_.container(victims.back()).priority;
    for (ContainerId id : victims)
      top_priority = std::max(top_priority, state_.container(id).priority);
    std::pair<int, size_t> cost{top_priority, victims.size()};
    if (best < 0 || cost < best_cost) {
      best = n;
      best_cost = cost;
      best_victims = victims;
    }
  }
  if (best < 0) return false;
  for (ContainerId id : best_victims) {
    Kill(id);
    ++evictions_;
  }
  return true;
}

void Simulation::PlaceBatch() {
  RecomputeEnvelope();
  failed_shapes_.clear();
  Resources freed_envelope;
  for (NodeId n : freed_nodes_) {
    node_freed_[n] = 0;
    if (state_.ready(n)) freed_envelope = Max(freed_envelope, TaskRoom(n));
  }
  freed_nodes_.clear();
  const bool unpark_all = unpark_all_;
  unpark_all_ = false;
  for (auto& [priority, queue] : job_queue_) {
    size_t keep = 0;
    for (size_t i = 0; i < queue.size(); ++i) {
      const int32_t j = queue[i];
      JobRun& run = jobs_[j];
      ExpireJob(run);
      // Under the planner, serverless tasks are also placed greedily: they tolerate seconds, so
      // they cannot wait for the next re-plan. Other tasks start between re-plans only where
      // capacity has just been freed (outside the serverless reserve), not to leave it idle.
      const bool greedy = !planner_ || workload_.jobs[j].type == JobType::kServerless ||
                          !Planned(workload_.jobs[j]);
      const Resources& shape = workload_.jobs[j].task_requests;
      bool may_fit = greedy && (!run.parked || unpark_all);
      if (!may_fit) {
        may_fit = true;
        for (Dim d : kRequestDims) may_fit = may_fit && shape[d] <= freed_envelope[d];
      }
      if (run.pending > 0 && may_fit) run.parked = !PlaceJob(j) && run.pending > 0;
      if (run.pending > 0) {
        queue[keep++] = j;
      } else {
        run.queued = false;
      }
    }
    queue.resize(keep);
  }
}

bool Simulation::PlaceJob(int32_t j) {
  const BatchJob& job = workload_.jobs[j];
  JobRun& run = jobs_[j];
  if (!EnvelopeAdmits(job.task_requests)) return false;
  const PodRequest pod{.requests = job.task_requests,
                       .priority = job.priority,
                       .kind = OwnerKind::kTask,
                       .owner = j,
                       .duration_estimate_s = job.duration_estimate_s,
                       .serverless = job.type == JobType::kServerless};
  const bool all_or_nothing = job.gang && run.running == 0 && run.finished == 0;
  const int first_started_before = run.first_started;
  started_.clear();
  memo_.Reset();  // nothing leaves a node while this job's tasks are placed
  while (run.pending > 0) {
    NodeId node = Decide(policy_.batch, pod, &memo_);
    if (node < 0) {
      AddFailedShape(job.task_requests);
      break;
    }
    started_.push_back(StartTask(j, node));
  }
  if (all_or_nothing && run.pending > 0) {
    for (ContainerId id : started_) {
      RemoveContainer(id);
      ++tasks_[id].generation;
      --run.running;
      ++run.pending;
    }
    run.first_started = first_started_before;
    return false;
  }
  // Started outside the plan: counted in it, so that PlanAdditional does not give their room away.
  if (planner_) {
    for (ContainerId id : started_) {
      planner_->AddRunning(RunningTask{.node = state_.container(id).node,
                                       .requests = job.task_requests,
                                       .end_time = now_ + job.duration_estimate_s});
    }
  }
  RecordFirstStarts(j, first_started_before);
  return run.pending == 0;
}

// Waits count once per task, on its first start (a restart after eviction is not a new wait).
void Simulation::RecordFirstStarts(int32_t j, int first_started_before) {
  const BatchJob& job = workload_.jobs[j];
  JobRun& run = jobs_[j];
  const int first_starts = run.first_started - first_started_before;
  if (first_starts <= 0) return;
  const int64_t wait = now_ - job.submit_time;
  if (wait > job.delay_tolerance_s) run.started_late = true;
  run.worst_wait = std::max(run.worst_wait, wait);
  if (job.submit_time >= options_.warmup_s) {
    waits_.push_back({static_cast<double>(wait), static_cast<double>(first_starts)});
    wait_shares_.push_back({static_cast<double>(wait) /
                                static_cast<double>(std::max<int64_t>(job.delay_tolerance_s, 1)),
                            static_cast<double>(first_starts)});
    JudgeStarts(job, first_starts, wait <= job.delay_tolerance_s);
  }
}

void Simulation::JudgeStarts(const BatchJob& job, int64_t tasks, bool within_tolerance) {
  const auto t = static_cast<size_t>(job.type);
  tasks_judged_ += tasks;
  type_judged_[t] += tasks;
  if (within_tolerance) {
    tasks_within_tolerance_ += tasks;
    type_within_tolerance_[t] += tasks;
  }
}

// The submitter gives up on the unstarted tasks of a job past its patience.
void Simulation::ExpireJob(JobRun& run) const {
  if (run.pending > 0 && now_ >= run.expire_at) {
    run.failed += run.pending;
    run.pending = 0;
  }
}

// Planned batch: a full re-plan at every bin boundary and whenever the fleet changed (planned
// tasks that have not started move as reality diverges from the prediction); in between, only the
// tasks the plan does not hold yet are added to it. The tasks planned to start now start now.
void Simulation::PlanBatch(bool full) {
  CollectPending(full);
  if (!full && plan_pending_.empty()) return;
  const auto start = Clock::now();
  if (full) {
    planner_->Replan(PlannerInputNow());
    planned_bin_ = PlanBin(now_);
    replan_ = false;
  } else {
    planner_->PlanAdditional(now_, plan_pending_);
  }
  const double elapsed_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  plan_latency_.Add(elapsed_us);
  if (full) replan_latency_.Add(elapsed_us);
  StartPlanned();
  // PlanAdditional fits new jobs into what the plan leaves, so a job it cannot fit on time may
  // still be on time in the next re-plan, which plans every pending job by deadline: only a full
  // re-plan reports lateness.
  if (full) ReportLate();
}

// The jobs to plan: every pending task for a full re-plan, else those the plan does not hold.
void Simulation::CollectPending(bool full) {
  plan_pending_.clear();
  pending_owner_.clear();
  for (const auto& [priority, queue] : job_queue_) {
    for (int32_t j : queue) {
      JobRun& run = jobs_[j];
      ExpireJob(run);
      const int tasks = full ? run.pending : std::min(run.unplanned, run.pending);
      run.unplanned = 0;
      if (tasks <= 0) continue;
      const BatchJob& job = workload_.jobs[j];
      if (!Planned(job)) continue;
      const bool gang = job.gang && run.running == 0 && run.finished == 0 && tasks == run.pending;
      plan_pending_.push_back(PendingJob::From(job, tasks, gang));
      pending_owner_.push_back(j);
    }
  }
}

PlannerInput Simulation::PlannerInputNow() {
  const int nodes = state_.num_nodes();
  plan_capacity_.resize(nodes);
  plan_schedulable_.resize(nodes);
  observed_service_.resize(static_cast<size_t>(nodes) * kNumDims);
  plan_running_.clear();
  for (NodeId n = 0; n < nodes; ++n) {
    plan_capacity_[n] = state_.node(n).capacity;
    plan_schedulable_[n] = state_.ready(n);
    for (ContainerId id : state_.containers_on(n)) {
      const Container& c = state_.container(id);
      if (c.kind != OwnerKind::kTask) continue;
      const BatchJob& job = workload_.jobs[c.owner];
      plan_running_.push_back(RunningTask{
          .node = n, .requests = c.requests, .end_time = c.start_time + job.duration_estimate_s});
    }
  }
  UpdateServerlessReserve();
  // The node-level quantile (PredictedLoad keeps it as one contiguous nodes × kNumDims × bins
  // array, the layout the planner reads): batch needs the node's total under the buffer, not each
  // resident at its own high quantile at once.
  return PlannerInput{.now = now_,
                      .capacity = plan_capacity_,
                      .schedulable = plan_schedulable_,
                      .service_usage = predicted_->node_quantiles(),
                      .usage_bins = predicted_->bins(),
                      .observed_service_usage = observed_service_,
                      .serverless_reserve = serverless_reserve_,
                      .running = plan_running_,
                      .pending = plan_pending_};
}

void Simulation::SampleServerlessDemand() {
  Resources demand = serverless_running_;
  for (const auto& [priority, queue] : job_queue_) {
    for (int32_t j : queue) {
      const BatchJob& job = workload_.jobs[j];
      if (job.type != JobType::kServerless) continue;
      for (int d = 0; d < kNumDims; ++d) {
        demand.amount[d] += job.task_requests.amount[d] * jobs_[j].pending;
      }
    }
  }
  while (!serverless_demand_.empty() &&
         serverless_demand_.front().first <= now_ - kServerlessWindow) {
    serverless_demand_.pop_front();
  }
  serverless_demand_.emplace_back(now_, Max(demand, serverless_peak_));
  serverless_peak_ = serverless_running_;
}

void Simulation::UpdateServerlessReserve() {
  Resources peak;
  for (const auto& [time, demand] : serverless_demand_) peak = Max(peak, demand);
  Resources ready_capacity;
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    if (state_.ready(n)) ready_capacity += state_.node(n).capacity;
  }
  serverless_reserve_.assign(state_.num_nodes(), Resources{});
  // Serverless tasks that borrow CPU from offline ones find the reserve's CPU by throttling them:
  // offline tasks then keep only the rest of the reserve free.
  const bool borrowing = policy_.serverless_cpu_borrow > 0;
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    if (!state_.ready(n)) continue;
    for (Dim d : kAllDims) {
      if (ready_capacity[d] <= 0 || (borrowing && d == Dim::kCpu)) continue;
      serverless_reserve_[n][d] = static_cast<int64_t>(
          std::ceil(static_cast<double>(peak[d]) * static_cast<double>(state_.node(n).capacity[d]) /
                    static_cast<double>(ready_capacity[d])));
    }
  }
}

// Gang jobs are planned at one start bin or not at all, so their tasks start here all together.
void Simulation::StartPlanned() {
  const std::span<const TaskPlacement> starts = planner_->start_now();
  for (size_t i = 0; i < starts.size();) {
    const int32_t j = pending_owner_[starts[i].job];
    JobRun& run = jobs_[j];
    const int first_started_before = run.first_started;
    for (; i < starts.size() && pending_owner_[starts[i].job] == j; ++i) {
      if (run.pending > 0) StartTask(j, starts[i].node);
    }
    RecordFirstStarts(j, first_started_before);
  }
}

// Late jobs still run, best effort; the report comes once per job, as early as the plan knows.
void Simulation::ReportLate() {
  for (int32_t p : planner_->late_jobs()) {
    const int32_t j = pending_owner_[p];
    JobRun& run = jobs_[j];
    if (run.reported_late) continue;
    run.reported_late = true;
    const JobOutcome& outcome = planner_->outcomes()[p];
    const int tasks = outcome.late + outcome.unplaced;
    if (workload_.jobs[j].submit_time >= options_.warmup_s) tasks_reported_late_ += tasks;
    if (options_.on_reported_late) options_.on_reported_late(now_, j, tasks);
  }
}

// Keeps the tallies by task type: serverless demand, and the CPU serverless tasks may borrow.
void Simulation::CountTask(int32_t j, NodeId n, int sign) {
  const BatchJob& job = workload_.jobs[j];
  if (job.type == JobType::kServerless) {
    if (sign > 0) {
      serverless_running_ += job.task_requests;
      serverless_peak_ = Max(serverless_peak_, serverless_running_);
    } else {
      serverless_running_ -= job.task_requests;
    }
    return;
  }
  offline_cpu_[n] += sign * job.task_requests.cpu();
  borrowable_cpu_[n] =
      static_cast<int64_t>(static_cast<double>(offline_cpu_[n]) * policy_.serverless_cpu_borrow);
}

ContainerId Simulation::StartTask(int32_t j, NodeId node) {
  const BatchJob& job = workload_.jobs[j];
  JobRun& run = jobs_[j];
  Container c{.kind = OwnerKind::kTask,
              .owner = j,
              .index = run.first_started,
              .node = node,
              .requests = job.task_requests,
              .priority = job.priority,
              .start_time = now_};
  ContainerId id = state_.Add(c);
  CountTask(j, node, 1);
  if (static_cast<size_t>(id) >= tasks_.size()) tasks_.resize(id + 1);
  TaskRun& task = tasks_[id];
  task.job = j;
  task.remaining = static_cast<double>(job.duration_s);
  task.rate = 1;
  task.last_update = now_;
  ++task.generation;
  finishes_.push({now_ + job.duration_s, id, task.generation});
  --run.pending;
  ++run.running;
  if (run.first_started < job.tasks) ++run.first_started;
  return id;
}

void Simulation::UpdateBatchAllocatable(NodeId n, const Usage& service_usage) {
  std::array<float, 2>* ring = &service_usage_ring_[static_cast<size_t>(n) * kPeakWindow];
  ring[ring_pos_] = {service_usage[0], service_usage[1]};
  float cpu_peak = 0, memory_peak = 0;
  for (int i = 0; i < kPeakWindow; ++i) {
    cpu_peak = std::max(cpu_peak, ring[i][0]);
    memory_peak = std::max(memory_peak, ring[i][1]);
  }
  Resources allocatable = state_.node(n).capacity.Scaled(1.0 - policy_.buffer);
  allocatable[Dim::kCpu] -= static_cast<int64_t>(cpu_peak);
  allocatable[Dim::kMemory] -= static_cast<int64_t>(memory_peak);
  // A GPU a service requests is held by it, used or not: batch gets only unrequested GPU.
  allocatable[Dim::kGpu] = state_.allocatable(n)[Dim::kGpu] - state_.requested(n)[Dim::kGpu];
  batch_allocatable_[n] = allocatable;
}

// With profiles, how much the services on node `n`, using `usage` now, are predicted to rise within
// the migration horizon, scaled by how far their usage runs above the prediction now (a surge the
// profiles never saw); zero without profiles. A make-before-break move relieves its node only a
// start-up later, so it must start before the node is hot and cover what is still to come, and
// its target must have room for it.
Usage Simulation::PredictedRise(NodeId n, const Usage& usage) const {
  Usage rise{};
  if (!predicted_) return rise;
  const int bins = predicted_->bins();
  const int bin = predicted_->BinAt(now_);
  const int horizon = static_cast<int>(migration_rule_.breach_horizon_s / (kSecondsPerDay / bins));
  for (Dim dim : {Dim::kCpu, Dim::kMemory}) {
    const int d = static_cast<int>(dim);
    const std::span<const float> curve = predicted_->usage(n, dim);
    if (curve[bin] <= 0) continue;
    float peak = curve[bin];
    for (int b = 1; b <= horizon; ++b) peak = std::max(peak, curve[(bin + b) % bins]);
    rise[d] = std::max(1.0F, usage[d] / curve[bin]) * (peak - curve[bin]);
  }
  return rise;
}

// Brings node `n` back under its thresholds before the kernel or the hardware would. Batch yields
// the memory it holds above `batch_memory_threshold` of capacity (the burst buffer), as far as its
// own memory goes. Services are moved (make-before-break) or evicted, SLA-ordered, only by the
// minimal evictor and only when the services alone exceed the hot thresholds: `cpu_threshold`
// (batch CPU is throttled instead, never a reason to evict) or all of the memory. A replica whose
// move off `n` is under way still runs until its replacement is ready, but is already leaving: its
// usage does not count towards the services' need, or further replicas would be moved for it. It
// and replacements still starting on `n` are no candidates (neither serves from `n` for long, nor
// yet).
void Simulation::RelievePressure(NodeId n, double cpu_threshold, double batch_memory_threshold) {
  const Node& node = state_.node(n);
  double service_cpu = 0, service_memory = 0, leaving_cpu = 0, leaving_memory = 0, batch_memory = 0;
  staying_services_.clear();
  leaving_services_.clear();
  for (const auto& [id, u] : node_containers_) {
    const Container& c = state_.container(id);
    if (c.kind == OwnerKind::kService) {
      if (auto move = FindMove(id); move != moves_.end() && move->old == id) {
        leaving_cpu += u[0];
        leaving_memory += u[1];
        leaving_services_.push_back(c.owner);
        continue;
      }
      service_cpu += u[0];
      service_memory += u[1];
      staying_services_.push_back(c.owner);
    } else {
      batch_memory += u[1];
    }
  }
  const double memory_capacity = static_cast<double>(node.capacity.memory());
  // Until it stops, a leaving replica's memory is in use: batch yields to it too.
  const double batch_need =
      std::min(batch_memory, std::max(0.0, service_memory + leaving_memory + batch_memory -
                                               batch_memory_threshold * memory_capacity));
  Resources service_need;
  if (policy_.eviction == EvictionMode::kMinimal) {
    const Usage rise = PredictedRise(n, {static_cast<float>(service_cpu + leaving_cpu),
                                         static_cast<float>(service_memory + leaving_memory)});
    std::array<double, 2> margin{};
    if (surge_margin_) {
      const int bin =
          static_cast<int>((now_ % kSecondsPerDay) / (kSecondsPerDay / surge_margin_->bins()));
      margin = surge_margin_->Margin(bin, staying_services_, leaving_services_,
                                     {service_cpu + leaving_cpu, service_memory + leaving_memory});
    }
    service_need[Dim::kMemory] =
        static_cast<int64_t>(std::max(0.0, service_memory + rise[1] + margin[1] -
                                               options_.memory_hot_threshold * memory_capacity));
    service_need[Dim::kCpu] = static_cast<int64_t>(
        std::max(0.0, service_cpu + rise[0] + margin[0] -
                          cpu_threshold * static_cast<double>(node.capacity.cpu())));
  }
  // Only a node that is over now loses replicas it cannot move; a predicted overload waits for
  // the next tick rather than harm a service for a rise that may not come.
  const bool over_now = service_cpu > cpu_threshold * static_cast<double>(node.capacity.cpu()) ||
                        service_memory > options_.memory_hot_threshold * memory_capacity;
  if (batch_need < 1 && service_need.IsZero()) return;
  const bool services = !service_need.IsZero();
  candidates_.clear();
  for (const auto& [id, u] : node_containers_) {
    const Container& c = state_.container(id);
    if ((c.kind == OwnerKind::kService) != services) continue;
    if (services && FindMove(id) != moves_.end()) continue;
    EvictionCandidate e{.id = id,
                        .sla = {.kind = c.kind, .priority = c.priority, .start_time = c.start_time},
                        .usage = RoundUsage(u)};
    if (c.kind == OwnerKind::kService) {
      e.sla.loss = ReplicaLoss(services_[c.owner].desired);
      e.disruption_group = c.owner;
    } else {
      const BatchJob& job = workload_.jobs[c.owner];
      const TaskRun& t = tasks_[id];
      const double left = t.remaining - static_cast<double>(now_ - t.last_update) * t.rate;
      e.sla.loss =
          TaskLoss(std::llround(static_cast<double>(job.duration_s) - left), job.duration_s);
      e.usage[Dim::kCpu] = 0;
    }
    candidates_.push_back(e);
  }
  Resources need = service_need;
  if (!services) need[Dim::kMemory] = static_cast<int64_t>(batch_need);
  EvictionRequest request{.need = need,
                          .candidates = candidates_,
                          .disruption_budget = budget_,
                          .services_evictable = services};
  EvictionDecision decision = policy_.eviction == EvictionMode::kMinimal
                                  ? evictor_.ChooseVictims(request)
                                  : naive_evictor_.ChooseVictims(request);
  victims_.assign(decision.victims.begin(), decision.victims.end());
  for (ContainerId id : victims_) {
    const Container c = state_.container(id);
    if (c.kind == OwnerKind::kService &&
        ShouldMigrate(c.kind, {.overload_beyond_batch = true}) != MigrationTrigger::kNone &&
        Migrate(id) >= 0) {
      continue;
    }
    if (c.kind == OwnerKind::kService && !over_now) continue;
    Kill(id);
    ++evictions_;
    if (c.kind == OwnerKind::kService) --budget_[c.owner];
  }
}

// Batch on node `n` yields to bursting services (reclaimable.h): the fewest tasks, least progress
// first, are evicted where memory or gpu cannot be throttled; returns the throttle the survivors
// keep. Evicted tasks leave node_containers_, so RelievePressure does not count them again.
double Simulation::YieldBatch(NodeId n) {
  std::array<double, kNumDims> service{};
  yielding_.clear();
  yielding_ids_.clear();
  for (const auto& [id, u] : node_containers_) {
    const Container& c = state_.container(id);
    if (c.kind == OwnerKind::kService) {
      for (int d = 0; d < kNumDims; ++d) service[d] += u[d];
      continue;
    }
    const TaskRun& t = tasks_[id];
    const double left = t.remaining - static_cast<double>(now_ - t.last_update) * t.rate;
    YieldingTask& y = yielding_.emplace_back();
    for (int d = 0; d < kNumDims; ++d) y.usage[d] = u[d];
    // UsageTick shares the CPU out itself (serverless tasks first when they borrow): the throttle
    // here is for disk and network.
    y.usage[static_cast<int>(Dim::kCpu)] = 0;
    y.progress = static_cast<double>(workload_.jobs[c.owner].duration_s) - left;
    yielding_ids_.push_back(id);
  }
  const YieldDecision decision =
      YieldToServices(service, yielding_, state_.node(n).capacity, policy_.buffer);
  if (decision.evict.empty()) return decision.throttle;
  for (int32_t t : decision.evict) {
    Kill(yielding_ids_[t]);
    ++evictions_;
  }
  std::erase_if(node_containers_, [&](const auto& entry) { return !state_.alive(entry.first); });
  return decision.throttle;
}

// Make-before-break: the replacement is placed and started elsewhere; the old replica serves until
// the replacement is ready (FinishMigrations), so the service loses no replica-time. `id` must be
// a replica that is not moving yet. Nodes where the replica's current usage (times its burst ratio
// under overload relief with profiles), added to their services', would cross a hot threshold are
// no target: the move would only take the harm there. Returns the replacement, or -1 when no node
// can take it.
ContainerId Simulation::Migrate(ContainerId id) {
  const Container old = state_.container(id);
  const Usage usage = ContainerUsage(old);
  // A replica prone to bursts needs room for its bursts at the target, or the move carries them
  // onto a node that cannot absorb them.
  Usage room = usage;
  if (surge_margin_) {
    const std::array<float, 2>& burst = surge_margin_->burst_ratio(old.owner);
    for (int d = 0; d < 2; ++d) room[d] *= burst[d];
  }
  no_room_.clear();
  for (NodeId t = 0; t < state_.num_nodes(); ++t) {
    if (t == old.node || !state_.ready(t)) continue;
    const Resources& capacity = state_.node(t).capacity;
    const Usage& there = ServiceUsageNow(t);
    if (there[0] + room[0] > options_.cpu_hot_threshold * static_cast<double>(capacity.cpu()) ||
        there[1] + room[1] >
            options_.memory_hot_threshold * static_cast<double>(capacity.memory())) {
      no_room_.push_back(t);
    }
  }
  std::optional<Migration> m = StartMigration(state_, policy_.services, Context(), id,
                                              ServicePod(old.owner), now_, no_room_);
  if (!m) return -1;
  if (predicted_) predicted_->AddContainer(state_.container(m->replacement));
  for (int d = 0; d < kNumDims; ++d) node_service_usage_[m->target][d] += usage[d];
  ++migrations_;
  const Move move{.old = id,
                  .replacement = m->replacement,
                  .ready_at = now_ + workload_.services[old.owner].startup_s};
  // A replacement that is ready at once takes over at once: the old replica does not linger.
  if (move.ready_at <= now_) {
    FinishMove(move);
  } else {
    moves_.push_back(move);
  }
  return m->replacement;
}

// node_service_usage_[n], brought up to now if the usage tick has not reached node `n` yet: a move
// chosen early in a tick must not judge a target by its usage before a step (a surge's first
// minute) that has already reached it.
const Usage& Simulation::ServiceUsageNow(NodeId n) {
  if (node_service_usage_at_[n] == now_) return node_service_usage_[n];
  Usage usage{};
  for (ContainerId id : state_.containers_on(n)) {
    const Container& c = state_.container(id);
    if (c.kind != OwnerKind::kService) continue;
    const Usage u = ContainerUsage(c);
    for (int d = 0; d < kNumDims; ++d) usage[d] += u[d];
  }
  SetServiceUsage(n, usage);
  return node_service_usage_[n];
}

// Records the services' usage on node `n` now, with their predicted rise.
void Simulation::SetServiceUsage(NodeId n, const Usage& usage) {
  const Usage rise = PredictedRise(n, usage);
  for (int d = 0; d < kNumDims; ++d) node_service_usage_[n][d] = usage[d] + rise[d];
  node_service_usage_at_[n] = now_;
}

// A hot node serves none of its replicas, so a replica waiting for its replacement on a node whose
// services are over `cpu_threshold` or the memory threshold now serves nobody, and keeps its
// neighbours from serving: leaving replicas on `n` stop at once, the largest first, until the node
// is under, as far as their services' minimum availability allows.
void Simulation::StopLeavingReplicas(NodeId n, double cpu_threshold) {
  const Resources& capacity = state_.node(n).capacity;
  std::array<double, 2> over{
      -cpu_threshold * static_cast<double>(capacity.cpu()),
      -options_.memory_hot_threshold * static_cast<double>(capacity.memory())};
  leaving_.clear();
  for (const auto& [id, u] : node_containers_) {
    if (!state_.alive(id)) continue;
    const Container& c = state_.container(id);
    if (c.node != n || c.kind != OwnerKind::kService) continue;
    over[0] += u[0];
    over[1] += u[1];
    if (auto move = FindMove(id); move != moves_.end() && move->old == id)
      leaving_.push_back({id, u});
  }
  if (over[0] <= 0 && over[1] <= 0) return;
  const int dim = over[0] > 0 ? 0 : 1;
  std::sort(leaving_.begin(), leaving_.end(),
            [dim](const auto& a, const auto& b) { return a.second[dim] > b.second[dim]; });
  for (const auto& [id, u] : leaving_) {
    if (over[0] <= 0 && over[1] <= 0) break;
    const int32_t s = state_.container(id).owner;
    if (ReadyReplicas(s) <= workload_.services[s].sla.min_available) continue;
    const auto move = FindMove(id);
    const Move m = *move;
    moves_.erase(move);
    FinishMove(m);
    over[0] -= u[0];
    over[1] -= u[1];
  }
}

// Replicas of service `s` whose start-up is over.
int Simulation::ReadyReplicas(int32_t s) const {
  const int64_t startup = workload_.services[s].startup_s;
  return static_cast<int>(std::count_if(
      services_[s].running.begin(), services_[s].running.end(),
      [&](ContainerId id) { return now_ >= state_.container(id).start_time + startup; }));
}

// The "break" of the moves whose replacement is ready.
void Simulation::FinishMigrations() {
  for (size_t i = 0; i < moves_.size();) {
    const Move m = moves_[i];
    if (m.ready_at > now_) {
      ++i;
      continue;
    }
    moves_.erase(moves_.begin() + static_cast<std::ptrdiff_t>(i));
    FinishMove(m);
  }
}

// The replacement of `m` takes the old replica's place, which stops.
void Simulation::FinishMove(const Move& m) {
  const int32_t s = state_.container(m.old).owner;
  ServiceRun& run = services_[s];
  *std::find(run.running.begin(), run.running.end(), m.old) = m.replacement;
  RemoveContainer(m.old);
  if (run.scaled_for == m.old) EndScaleOut(s);
}

// The move in which `id` is the old replica or the replacement.
std::vector<Move>::iterator Simulation::FindMove(ContainerId id) {
  return std::find_if(moves_.begin(), moves_.end(),
                      [id](const Move& m) { return m.old == id || m.replacement == id; });
}

// The warned replica of a health scale-out has ended: the service returns to its desired count.
void Simulation::EndScaleOut(int32_t s) {
  ServiceRun& run = services_[s];
  run.extra = 0;
  run.scaled_for = -1;
  SetDesired(s, run.desired);
}

Usage Simulation::ContainerUsage(const Container& c) const {
  return c.kind == OwnerKind::kService
             ? ServiceContainerUsage(workload_.services[c.owner], c.owner, c.index, c.start_time,
                                     now_, options_.seed)
             : TaskUsage(workload_.jobs[c.owner]);
}

void Simulation::OomKill(ContainerId id) {
  const Container& c = state_.container(id);
  if (c.kind == OwnerKind::kService) services_[c.owner].last_oom_kill = now_;
  Kill(id);
  ++oom_kills_;
}

// Feeds the tick's replica memory to the health monitor, by service, and acts on its warnings: a
// replica predicted to reach its memory limit within the migration rule's horizon moves
// make-before-break, or, when no other node can take a replacement, its service gets one more
// replica, placed by the engine (with preemption, on any node), until the warned replica ends.
void Simulation::WatchHealth() {
  std::stable_sort(health_samples_.begin(), health_samples_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < health_samples_.size();) {
    const int32_t s = health_samples_[i].first;
    replica_samples_.clear();
    for (; i < health_samples_.size() && health_samples_[i].first == s; ++i) {
      const ReplicaSample& r = health_samples_[i].second;
      // Replacements still starting are not replicas yet; the replica they replace is.
      auto move = FindMove(r.id);
      if (!state_.alive(r.id) || state_.container(r.id).start_time != r.start_time ||
          (move != moves_.end() && move->replacement == r.id)) {
        continue;
      }
      replica_samples_.push_back(r);
    }
    findings_.clear();
    health_->ObserveService(now_, replica_samples_,
                            static_cast<double>(workload_.services[s].limits[Dim::kMemory]),
                            findings_);
    ServiceRun& run = services_[s];
    for (const auto& [id, finding] : findings_) {
      const std::pair<ContainerId, int64_t> incarnation{id, state_.container(id).start_time};
      if (std::find(run.health_replacements.begin(), run.health_replacements.end(), incarnation) !=
          run.health_replacements.end()) {
        run.health_moves_futile = true;
      }
      if (run.health_moves_futile || run.scaled_for == id || FindMove(id) != moves_.end() ||
          ShouldMigrate(OwnerKind::kService, {.breach_lead_time_s = finding.lead_time_s},
                        migration_rule_) != MigrationTrigger::kPredictedBreach) {
        continue;
      }
      if (const ContainerId replacement = Migrate(id); replacement >= 0) {
        ++health_migrations_;
        run.health_replacements.emplace_back(replacement, state_.container(replacement).start_time);
      } else if (run.extra == 0) {
        run.extra = 1;
        run.scaled_for = id;
        ++health_scale_outs_;
        SetDesired(s, run.desired);
      }
    }
  }
  health_samples_.clear();
}

void Simulation::ObserveServices(NodeId n, const Usage& service_usage) {
  observed_service_.resize(static_cast<size_t>(state_.num_nodes()) * kNumDims);
  std::copy(service_usage.begin(), service_usage.end(),
            &observed_service_[static_cast<size_t>(n) * kNumDims]);
}

void Simulation::UsageTick() {
  unpark_all_ = true;
  dirty_ = true;
  const bool measuring = now_ >= options_.warmup_s;
  const bool recording =
      options_.usage_recorder != nullptr && now_ % options_.record_interval_s == 0;
  const bool reclaiming = policy_.batch_placement != BatchPlacement::kRequests;
  if (policy_.eviction != EvictionMode::kNone) {
    budget_.resize(services_.size());
    for (size_t s = 0; s < services_.size(); ++s) {
      budget_[s] = DisruptionBudget(workload_.services[s].sla,
                                    static_cast<int>(services_[s].running.size()));
    }
  }
  if (planner_) SampleServerlessDemand();
  std::array<double, kNumDims> usage_total{}, capacity_total{};
  std::vector<ContainerId> oom_order;
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    const Node& node = state_.node(n);
    for (int d = 0; d < kNumDims; ++d)
      capacity_total[d] += static_cast<double>(node.capacity.amount[d]);
    if (!state_.ready(n)) {
      node_hot_[n] = 0;
      if (planner_) ObserveServices(n, Usage{});
      continue;
    }
    node_containers_.clear();
    for (ContainerId id : state_.containers_on(n)) {
      const Container& c = state_.container(id);
      Usage u = ContainerUsage(c);
      node_containers_.push_back({id, u});
      if (recording && c.kind == OwnerKind::kService) {
        const Service& svc = workload_.services[c.owner];
        options_.usage_recorder->Write(now_, svc.app, svc.name + "-" + std::to_string(c.index), u);
      }
    }
    // The cgroup's OOM killer: a replica above its memory limit dies, whatever the node has free.
    std::erase_if(node_containers_, [&](const std::pair<ContainerId, Usage>& entry) {
      const Container& c = state_.container(entry.first);
      if (c.kind != OwnerKind::kService) return false;
      const int64_t limit = workload_.services[c.owner].limits[Dim::kMemory];
      if (limit <= 0 || entry.second[1] <= static_cast<double>(limit)) return false;
      OomKill(entry.first);
      return true;
    });
    const double yield_throttle = planner_ ? YieldBatch(n) : 1.0;
    if (policy_.eviction != EvictionMode::kNone) {
      RelievePressure(n, options_.cpu_hot_threshold, 1.0 - policy_.buffer);
    }
    if (!moves_.empty()) StopLeavingReplicas(n, options_.cpu_hot_threshold);
    Usage service_usage{}, batch_usage{};
    double serverless_cpu = 0;
    for (const auto& [id, u] : node_containers_) {
      if (!state_.alive(id) || state_.container(id).node != n) continue;  // evicted or moved
      const Container& c = state_.container(id);
      Usage& sum = c.kind == OwnerKind::kService ? service_usage : batch_usage;
      for (int d = 0; d < kNumDims; ++d) sum[d] += u[d];
      if (c.kind == OwnerKind::kTask && workload_.jobs[c.owner].type == JobType::kServerless) {
        serverless_cpu += u[0];
      }
    }
    SetServiceUsage(n, service_usage);
    if (reclaiming) UpdateBatchAllocatable(n, service_usage);
    if (planner_) ObserveServices(n, service_usage);
    const double cpu_capacity = static_cast<double>(node.capacity.cpu());
    // Services keep their CPU share; batch gets what is left of the capacity, or, under a
    // reclaiming policy, of the capacity outside the burst buffer (its tasks slow down).
    const double batch_cpu_limit =
        reclaiming ? cpu_capacity * (1.0 - policy_.buffer) : cpu_capacity;
    // Batch shares the room evenly, unless serverless tasks borrow CPU from offline ones: then
    // they are served first and the offline tasks get the rest.
    const double cpu_room = std::max(0.0, batch_cpu_limit - service_usage[0]);
    const double offline_cpu = std::max(0.0, batch_usage[0] - serverless_cpu);
    double serverless_rate = 1, offline_rate = 1;
    if (batch_usage[0] > cpu_room) {
      if (policy_.serverless_cpu_borrow > 0) {
        if (serverless_cpu > cpu_room) serverless_rate = cpu_room / serverless_cpu;
        offline_rate = std::max(0.0, cpu_room - serverless_cpu * serverless_rate) /
                       std::max(offline_cpu, 1e-9);
        offline_rate = std::min(offline_rate, 1.0);
      } else {
        serverless_rate = offline_rate = cpu_room / batch_usage[0];
      }
    }
    // The yield throttle also covers disk and network.
    serverless_rate = std::min(serverless_rate, yield_throttle);
    offline_rate = std::min(offline_rate, yield_throttle);
    Usage actual{};
    for (int d = 0; d < kNumDims; ++d) actual[d] = service_usage[d] + batch_usage[d];
    // Capped at the room, so that float rounding never lifts a node over its threshold.
    const double batch_cpu =
        std::min(serverless_cpu * serverless_rate + offline_cpu * offline_rate, cpu_room);
    actual[0] = static_cast<float>(std::min(service_usage[0] + batch_cpu, cpu_capacity));
    const double memory_capacity = static_cast<double>(node.capacity.memory());
    const bool memory_over = actual[1] > memory_capacity * options_.memory_hot_threshold;
    const bool hot = actual[0] > cpu_capacity * options_.cpu_hot_threshold || memory_over;
    node_hot_[n] = hot;
    for (ContainerId id : state_.containers_on(n)) {
      const Container& c = state_.container(id);
      if (c.kind != OwnerKind::kTask) continue;
      TaskRun& task = tasks_[id];
      const double rate =
          workload_.jobs[c.owner].type == JobType::kServerless ? serverless_rate : offline_rate;
      if (task.rate == rate) continue;
      task.remaining -= static_cast<double>(now_ - task.last_update) * task.rate;
      task.last_update = now_;
      task.rate = rate;
      ++task.generation;
      if (rate > 0) {
        int64_t left = static_cast<int64_t>(std::ceil(std::max(0.0, task.remaining) / rate));
        finishes_.push({now_ + std::max<int64_t>(left, 1), id, task.generation});
      }
    }
    if (actual[1] > memory_capacity) {
      // The kernel's OOM killer, as the kubelet arranges it: lowest priority first, then the
      // container that started last.
      oom_order.assign(state_.containers_on(n).begin(), state_.containers_on(n).end());
      std::sort(oom_order.begin(), oom_order.end(), [&](ContainerId a, ContainerId b) {
        const Container& ca = state_.container(a);
        const Container& cb = state_.container(b);
        return ca.priority != cb.priority ? ca.priority < cb.priority
                                          : ca.start_time > cb.start_time;
      });
      double memory = actual[1];
      for (ContainerId id : oom_order) {
        if (memory <= memory_capacity) break;
        memory -= ContainerUsage(state_.container(id))[1];
        OomKill(id);
      }
      actual[1] = static_cast<float>(std::min(memory, memory_capacity));
    }
    if (health_) {
      for (const auto& [id, u] : node_containers_) {
        if (!state_.alive(id) || state_.container(id).node != n) continue;
        const Container& c = state_.container(id);
        if (c.kind == OwnerKind::kService) {
          health_samples_.push_back(
              {c.owner, {.id = id, .start_time = c.start_time, .memory = u[1]}});
        }
      }
    }
    node_usage_[n] = actual;
    for (int d = 0; d < kNumDims; ++d) usage_total[d] += actual[d];
    if (measuring) {
      ++node_ticks_;
      hot_node_ticks_ += hot;
      container_seconds_ += static_cast<double>(state_.containers_on(n).size()) *
                            static_cast<double>(options_.tick_s);
    }
  }
  if (health_) WatchHealth();
  ring_pos_ = (ring_pos_ + 1) % kPeakWindow;
  if (options_.on_tick) options_.on_tick(now_, state_);
  if (!measuring) return;
  for (int d = 0; d < kNumDims; ++d) {
    if (capacity_total[d] > 0) utilization_sum_[d] += usage_total[d] / capacity_total[d];
  }
  ++utilization_samples_;
  const double tick = static_cast<double>(options_.tick_s);
  for (size_t s = 0; s < services_.size(); ++s) {
    ServiceRun& run = services_[s];
    if (run.desired == 0) continue;
    const Service& svc = workload_.services[s];
    // A replica serves once its start-up is over, and not while its node is hot; one the service's
    // own start or scale-up added is no harm while it starts.
    int ready = 0, serving = 0, rolling_out = 0;
    for (ContainerId id : run.running) {
      const Container& c = state_.container(id);
      if (now_ < c.start_time + svc.startup_s) {
        rolling_out += run.ramp_start >= 0 && c.start_time >= run.ramp_start &&
                       c.start_time <= run.ramp_start + options_.tick_s;
        continue;
      }
      ++ready;
      serving += !node_hot_[c.node];
    }
    rolling_out = std::min(rolling_out, run.ramp_added);
    int harmed = std::max(run.desired - serving - rolling_out, 0);
    const bool below_minimum = ready + rolling_out < svc.sla.min_available;
    if (below_minimum) harmed = run.desired;
    run.desired_time += run.desired * tick;
    run.harmed_time += std::min(harmed, run.desired) * tick;
    if (options_.sla_records != nullptr && harmed > 0) {
      // An OOM kill is the cause until its replacement has had the time to start.
      const bool oom_killed =
          run.last_oom_kill >= 0 && now_ - run.last_oom_kill <= svc.startup_s + options_.tick_s;
      AddBreach(run.breaches, now_, now_ + options_.tick_s,
                oom_killed        ? "OOM-killed"
                : below_minimum   ? "below minimum availability"
                : ready > serving ? "hot node"
                                  : "unavailable");
    }
  }
}

void Simulation::SampleMetrics() {
  std::array<double, kNumDims> requested{}, capacity{};
  const bool tasks_outside = state_.accounting() == TaskAccounting::kReclaimed;
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    for (int d = 0; d < kNumDims; ++d) {
      capacity[d] += static_cast<double>(state_.node(n).capacity.amount[d]);
      requested[d] += static_cast<double>(state_.requested(n).amount[d]);
      if (tasks_outside) requested[d] += static_cast<double>(state_.task_requested(n).amount[d]);
    }
  }
  for (int d = 0; d < kNumDims; ++d) {
    if (capacity[d] > 0) allocation_sum_[d] += requested[d] / capacity[d];
  }
  fragmentation_sum_ += FragmentationRate(state_, mix_);
  ++allocation_samples_;
}

void Simulation::SetUpProfiles() {
  if (policy_.service_placement != ServicePlacement::kProfiles &&
      policy_.batch_placement != BatchPlacement::kPlanned) {
    return;
  }
  const ProfileSet learned = options_.profiles != nullptr
                                 ? ProfileSet{}
                                 : LearnWarmupProfiles(workload_, options_.warmup_s, options_.seed);
  const ProfileSet& profiles = options_.profiles != nullptr ? *options_.profiles : learned;
  placement_.buffer = policy_.buffer;
  placement_.seed = options_.seed;
  if (policy_.eviction == EvictionMode::kMinimal) {
    surge_margin_.emplace(workload_.services, profiles, kSurgeMarginZ);
  }
  predicted_.emplace(BuildPredictedLoad(state_, workload_.services, profiles, placement_));
  if (policy_.batch_placement == BatchPlacement::kPlanned) {
    // One planner bin per profile bin, so the predicted curve is read bin for bin over a day.
    const int64_t bin_seconds = kSecondsPerDay / predicted_->bins();
    planner_.emplace(PlannerOptions{.bin_seconds = bin_seconds,
                                    .horizon_bins = static_cast<int>(kSecondsPerDay / bin_seconds),
                                    .buffer = policy_.buffer,
                                    // Re-planned every bin: only late starts now are acted on.
                                    .late_window_bins = 1});
  }
  if (policy_.service_placement == ServicePlacement::kProfiles) {
    request_fallback_.emplace(std::move(policy_.services));
    policy_.services = MakeArchimedesServiceScheduler(
        placement_, PlacementInputs::From(workload_.services, profiles, *predicted_, placement_,
                                          mix_.shapes()));
  }
}

Metrics Simulation::Run() {
  auto wall_start = Clock::now();
  SetUpProfiles();
  for (now_ = 0; now_ < end_; ++now_) {
    while (next_node_event_ < node_events_.size() && node_events_[next_node_event_].time <= now_) {
      ApplyNodeEvent(node_events_[next_node_event_++]);
    }
    while (next_service_event_ < service_events_.size() &&
           service_events_[next_service_event_].time <= now_) {
      const ServiceEvent& e = service_events_[next_service_event_++];
      ServiceRun& run = services_[e.service];
      if (e.replicas > run.desired) {
        run.ramp_start = now_;
        run.ramp_added = e.replicas - run.desired;
      }
      SetDesired(e.service, e.replicas);
    }
    if (!moves_.empty()) FinishMigrations();
    CompleteTasks();
    SubmitJobs();
    if (now_ % options_.cycle_s == 0) SchedulingCycle();
    if (now_ % options_.tick_s == 0) UsageTick();
    if (now_ >= options_.warmup_s && now_ % options_.metrics_interval_s == 0) SampleMetrics();
    if (options_.progress && now_ % 3600 == 0) options_.progress(now_, end_);
  }
  Metrics m = Summarize();
  m.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  return m;
}

Metrics Simulation::Summarize() {
  Metrics m;
  for (int d = 0; d < kNumDims; ++d) {
    if (allocation_samples_ > 0) m.allocation_rate[d] = allocation_sum_[d] / allocation_samples_;
    if (utilization_samples_ > 0) m.utilization[d] = utilization_sum_[d] / utilization_samples_;
  }
  if (allocation_samples_ > 0) m.fragmentation_rate = fragmentation_sum_ / allocation_samples_;
  if (node_ticks_ > 0) m.hot_node_time = static_cast<double>(hot_node_ticks_) / node_ticks_;
  m.measured_days =
      static_cast<double>(std::max<int64_t>(end_ - options_.warmup_s, 0)) / kSecondsPerDay;

  int services_honoured = 0, jobs_honoured = 0;
  for (size_t s = 0; s < services_.size(); ++s) {
    const ServiceRun& run = services_[s];
    if (run.desired_time == 0) continue;
    ++m.services_counted;
    double availability = 1.0 - run.harmed_time / run.desired_time;
    const bool honoured = availability + 1e-12 >= workload_.services[s].sla.availability;
    services_honoured += honoured;
    if (options_.sla_records != nullptr) {
      options_.sla_records->push_back({.kind = "service",
                                       .name = workload_.services[s].name,
                                       .honoured = honoured,
                                       .target = workload_.services[s].sla.availability,
                                       .achieved = availability,
                                       .breaches = run.breaches});
    }
  }
  for (size_t j = 0; j < jobs_.size(); ++j) {
    const BatchJob& job = workload_.jobs[j];
    JobRun& run = jobs_[j];
    if (run.pending > 0 && end_ >= run.expire_at) {
      run.failed += run.pending;
      run.pending = 0;
    }
    m.tasks_submitted += j < next_job_ ? job.tasks : 0;
    m.tasks_finished += run.finished;
    m.tasks_running += run.running;
    m.tasks_queued += run.pending;
    m.tasks_failed += run.failed;
    // A job submitted after the end never waited in the run: it is not judged.
    const bool submitted = j < next_job_;
    if (submitted && run.pending == 0 && job.submit_time >= options_.warmup_s) {
      JudgeStarts(job, job.tasks - run.first_started, false);  // never started
    }
    const bool due = job.submit_time >= options_.warmup_s &&
                     job.submit_time + job.delay_tolerance_s + job.duration_s <= end_;
    if (!due) continue;
    ++m.jobs_counted;
    const bool honoured = !run.started_late && run.failed == 0 && run.completed_at >= 0;
    jobs_honoured += honoured;
    if (options_.sla_records != nullptr) {
      ContractRecord record{.kind = "job",
                            .name = job.name,
                            .honoured = honoured,
                            .target = static_cast<double>(job.delay_tolerance_s),
                            .achieved = static_cast<double>(run.worst_wait)};
      if (run.started_late) {
        AddBreach(record.breaches, job.submit_time + job.delay_tolerance_s,
                  job.submit_time + job.delay_tolerance_s, "started late");
      }
      if (run.failed > 0) AddBreach(record.breaches, run.expire_at, run.expire_at, "expired");
      if (run.completed_at < 0 && run.failed == 0)
        AddBreach(record.breaches, end_, end_, "not completed");
      options_.sla_records->push_back(std::move(record));
    }
  }
  if (m.services_counted > 0)
    m.sla_services = static_cast<double>(services_honoured) / m.services_counted;
  if (m.jobs_counted > 0) m.sla_jobs = static_cast<double>(jobs_honoured) / m.jobs_counted;
  const int all = m.services_counted + m.jobs_counted;
  if (all > 0) m.sla_all = static_cast<double>(services_honoured + jobs_honoured) / all;

  if (m.measured_days > 0) {
    m.batch_core_hours_per_day = batch_core_seconds_ / 3600.0 / m.measured_days;
    m.offered_core_hours_per_day = offered_core_seconds_ / 3600.0 / m.measured_days;
    m.lost_core_hours_per_day = lost_core_seconds_ / 3600.0 / m.measured_days;
  }
  m.wait_p50_s = Percentile(waits_, 0.5);
  m.wait_p99_s = Percentile(waits_, 0.99);
  m.wait_tolerance_share_p50 = Percentile(wait_shares_, 0.5);
  m.wait_tolerance_share_p99 = Percentile(wait_shares_, 0.99);
  if (tasks_judged_ > 0) {
    m.started_within_tolerance = static_cast<double>(tasks_within_tolerance_) / tasks_judged_;
  }
  for (JobType type : {JobType::kServerless, JobType::kOffline}) {
    const auto t = static_cast<size_t>(type);
    if (type_judged_[t] > 0) {
      m.started_within_tolerance_by_type[t] =
          static_cast<double>(type_within_tolerance_[t]) / type_judged_[t];
    }
  }
  m.evictions = evictions_;
  m.tasks_reported_late = tasks_reported_late_;
  m.migrations = migrations_;
  m.oom_kills = oom_kills_;
  m.health_migrations = health_migrations_;
  m.health_scale_outs = health_scale_outs_;
  m.failure_kills = failure_kills_;
  const double container_days = container_seconds_ / kSecondsPerDay;
  if (container_days > 0) {
    m.evictions_per_1000_container_days = evictions_ * 1000.0 / container_days;
    m.migrations_per_1000_container_days = migrations_ * 1000.0 / container_days;
  }
  m.latency_p50_us = latency_.Percentile(0.5);
  m.latency_p99_us = latency_.Percentile(0.99);
  m.decisions = latency_.count();
  m.plan_latency_p50_us = plan_latency_.Percentile(0.5);
  m.plan_latency_p99_us = plan_latency_.Percentile(0.99);
  m.plans = plan_latency_.count();
  m.replan_latency_p50_us = replan_latency_.Percentile(0.5);
  m.replan_latency_p99_us = replan_latency_.Percentile(0.99);
  m.replans = replan_latency_.count();
  return m;
}

}  // namespace

Metrics Simulate(const Scenario& scenario, Policy& policy, const SimOptions& options) {
  if (options.tick_s <= 0 || options.cycle_s <= 0 || options.metrics_interval_s <= 0) {
    throw std::invalid_argument(
        "simulation periods (tick, cycle, metrics interval) must be positive");
  }
  Simulation sim(scenario, policy, options);
  return sim.Run();
}

}  // namespace archimedes
