#include "sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/engine.h"
#include "sim/engine_link.h"
#include "sim/metrics_collector.h"
#include "sim/usage_model.h"
#include "sim/warmup_profiles.h"

namespace archimedes {
namespace {

using Clock = std::chrono::steady_clock;

// A task's work as the world runs it: its speed changes with contention.
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

struct ServiceEvent {
  int64_t time;
  int32_t service;
  int replicas;  // desired replicas from then on
};

// The simulated world: the clock, the usage model, contention and throttling, the OOM killers and
// the scenario's failures. It turns what happens into engine events and carries out the engine's
// actions; in this world a bind or a start takes effect at once, so the engine's cluster state is
// where the containers are.
class Simulation {
 public:
  Simulation(const Scenario& scenario, const Policy& policy, const SimOptions& options,
             EngineLink& engine);
  Metrics Run();

 private:
  void ApplyActions();
  // The first second from now on at which the world has something to do (the end at the latest).
  int64_t NextWorldSecond() const;
  // One second at which the world acts: its events, the cycle, the usage round, the samples.
  void RunSecond();
  void ReportProgress();
  void ApplyNodeEvent(const NodeEvent& e);
  void CompleteTasks();
  void SubmitJobs();
  void UsageTick();
  // Node `n`'s physics for this tick once the engine has relieved it: CPU contention slows batch
  // down (services keep their share), memory beyond capacity OOM-kills.
  void RunNode(NodeId n, std::array<double, kNumDims>& usage_total);
  void OomKill(ContainerId id);
  // A task ends before its work is done: its progress is lost.
  void EndTask(ContainerId id);
  double WorkDone(ContainerId id) const;
  // Container `id`'s usage now: computed once per tick where the round reads it twice (the
  // fleet's replicas, then each node's containers).
  Usage UsageNow(const Container& c, ContainerId id);
  Usage ContainerUsage(const Container& c) const;
  void Forget(ContainerId id);
  // A task's sample also carries its work done and to do: what an eviction would throw away.
  void AddWork(const Container& c, UsageSample& sample) const;

  const Workload& workload_;
  SimOptions options_;
  EngineLink& engine_;
  MetricsCollector metrics_;
  std::unique_ptr<SeriesRecorder> series_;  // only when the caller asks for the series
  ShapeMix mix_;
  std::unordered_map<std::string, NodeId> node_index_;
  std::vector<TaskRun> tasks_;  // by ContainerId
  std::vector<Usage> node_usage_;
  std::vector<uint8_t> node_hot_;
  std::vector<BatchLimits> limits_;  // per node, as the engine last set them
  std::priority_queue<TaskFinish, std::vector<TaskFinish>, std::greater<>> finishes_;
  std::vector<ServiceEvent> service_events_;
  std::vector<NodeEvent> node_events_;
  size_t next_service_event_ = 0, next_node_event_ = 0, next_job_ = 0;
  SimProgress progress_;
  std::vector<int64_t> give_up_at_;  // per submitted job: when its submitter gives up
  std::vector<int> tasks_finished_;  // per submitted job
  int64_t now_ = 0;
  int64_t end_ = 0;
  // This tick's usage per container (the usage model is a function of time), and its samples.
  std::vector<Usage> usage_;
  std::vector<int64_t> usage_at_;
  // The fleet's replicas for BeginUsageRound, then one node's containers (with work only for an
  // engine that reads usage).
  std::vector<UsageSample> samples_;
  const bool reads_usage_;
  const bool reads_fleet_usage_;
  std::vector<ContainerId> oom_order_;
};

Simulation::Simulation(const Scenario& scenario, const Policy& policy, const SimOptions& options,
                       EngineLink& engine)
    : workload_(scenario.workload),
      options_(options),
      engine_(engine),
      metrics_(scenario.workload, options.warmup_s, options.tick_s, policy.traits.buffer,
               options.sla_records),
      mix_(ShapeMix::FromWorkload(scenario.workload)),
      node_usage_(scenario.nodes.size()),
      node_hot_(scenario.nodes.size()),
      end_(scenario.duration_s),
      reads_usage_(engine.reads_usage()),
      reads_fleet_usage_(engine.reads_fleet_usage()) {
  if (options.series != nullptr) {
    series_ = std::make_unique<SeriesRecorder>(
        scenario, options.profiles, options.warmup_s, options.tick_s, options.metrics_interval_s,
        std::array<double, kNumDims>{options.cpu_hot_threshold, options.memory_hot_threshold},
        policy.traits.buffer);
  }
  for (NodeId n = 0; n < engine_.cluster().num_nodes(); ++n) {
    const Node& node = engine_.cluster().node(n);
    node_index_[node.name] = n;
    limits_.push_back({.cpu = static_cast<double>(node.capacity.cpu())});
  }
  std::unordered_map<std::string, int32_t> service_index;
  for (size_t s = 0; s < workload_.services.size(); ++s) {
    const Service& svc = workload_.services[s];
    service_index[svc.name] = static_cast<int32_t>(s);
    if (svc.end_time > svc.start_time) {
      service_events_.push_back({svc.start_time, static_cast<int32_t>(s), svc.replicas});
      if (svc.end_time != kForever) {
        service_events_.push_back({svc.end_time, static_cast<int32_t>(s), 0});
      }
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
      const bool added_earlier =
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

void Simulation::ApplyActions() {
  for (const Action& a : engine_.actions()) {
    // A new container may take the id of one that ended this tick: its usage is its own.
    if (a.kind == ActionKind::kBind || a.kind == ActionKind::kStartTask ||
        a.kind == ActionKind::kMigrate) {
      Forget(a.container);
    }
    switch (a.kind) {
      case ActionKind::kStartTask: {
        const BatchJob& job = workload_.jobs[a.job];
        if (static_cast<size_t>(a.container) >= tasks_.size()) tasks_.resize(a.container + 1);
        TaskRun& task = tasks_[a.container];
        task.job = a.job;
        task.remaining = static_cast<double>(job.duration_s);
        task.rate = 1;
        task.last_update = now_;
        ++task.generation;
        finishes_.push({now_ + job.duration_s, a.container, task.generation});
        metrics_.TaskStarted(now_, a.job, a.first_start);
        if (series_ && a.first_start) series_->TaskStarted(now_, job);
        break;
      }
      case ActionKind::kEvict:
        metrics_.Evicted();
        if (series_) series_->Evicted(now_);
        if (a.job >= 0) EndTask(a.container);
        break;
      case ActionKind::kStop:
        if (a.job >= 0) EndTask(a.container);
        break;
      case ActionKind::kMigrate:
        metrics_.Migrated(a.trigger == MigrationTrigger::kPredictedBreach);
        if (series_) series_->Migrated(now_);
        break;
      case ActionKind::kThrottle:
        limits_[a.node] = a.limits;
        break;
      case ActionKind::kScaleOut:
        metrics_.ScaledOut();
        break;
      case ActionKind::kReportLate:
        metrics_.TasksReportedLate(a.job, a.tasks);
        if (options_.on_reported_late) options_.on_reported_late(now_, a.job, a.tasks);
        break;
      case ActionKind::kBind:    // a replica's usage is the usage model's from its start
      case ActionKind::kReject:  // the scenario's impossible jobs are left out before the run
        break;
    }
  }
  engine_.ClearActions();
}

double Simulation::WorkDone(ContainerId id) const {
  const TaskRun& task = tasks_[id];
  const double left = task.remaining - static_cast<double>(now_ - task.last_update) * task.rate;
  return static_cast<double>(workload_.jobs[task.job].duration_s) - left;
}

void Simulation::EndTask(ContainerId id) {
  metrics_.TaskKilled(now_, tasks_[id].job, WorkDone(id));
  ++tasks_[id].generation;
}

void Simulation::ApplyNodeEvent(const NodeEvent& e) {
  if (e.kind == NodeEvent::Kind::kAdd) {
    const NodeId n = engine_.AddNode(e.spec);
    node_index_[e.spec.name] = n;
    node_usage_.emplace_back();
    node_hot_.push_back(0);
    limits_.push_back({.cpu = static_cast<double>(e.spec.capacity.cpu())});
    return;
  }
  const NodeId n = node_index_.at(e.node);
  if (e.kind == NodeEvent::Kind::kRecover) {
    engine_.RecoverNode(n);
    return;
  }
  // The node goes down with everything on it.
  for (ContainerId id : engine_.cluster().containers_on(n)) {
    if (engine_.cluster().container(id).kind == OwnerKind::kTask) EndTask(id);
    metrics_.FailureKilled();
  }
  engine_.FailNode(n);
  node_usage_[n] = {};
}

void Simulation::CompleteTasks() {
  const ClusterState& state = engine_.cluster();
  while (!finishes_.empty() && finishes_.top().time <= now_) {
    const TaskFinish f = finishes_.top();
    finishes_.pop();
    if (!state.alive(f.id) || tasks_[f.id].generation != f.generation) continue;
    const int32_t j = tasks_[f.id].job;
    ++tasks_[f.id].generation;
    engine_.ContainerFinished(f.id);
    metrics_.TaskFinished(now_, j, ++tasks_finished_[j] == workload_.jobs[j].tasks);
    ++progress_.tasks_finished;
  }
  ApplyActions();
}

void Simulation::SubmitJobs() {
  while (next_job_ < workload_.jobs.size() && workload_.jobs[next_job_].submit_time <= now_) {
    const BatchJob& job = workload_.jobs[next_job_++];
    // The submitter gives up on the unstarted tasks of a job past its patience.
    const int64_t patience = std::max(
        static_cast<int64_t>(options_.patience_factor * static_cast<double>(job.delay_tolerance_s)),
        options_.min_patience_s);
    give_up_at_.push_back(job.submit_time + job.delay_tolerance_s + patience);
    tasks_finished_.push_back(0);
    metrics_.JobSubmitted(job);
    progress_.tasks_submitted += job.tasks;
    engine_.SubmitJob(job, give_up_at_.back());
  }
  ApplyActions();
}

void Simulation::Forget(ContainerId id) {
  if (static_cast<size_t>(id) < usage_at_.size()) usage_at_[id] = -1;
}

Usage Simulation::ContainerUsage(const Container& c) const {
  return c.kind == OwnerKind::kService
             ? ServiceContainerUsage(workload_.services[c.owner], c.owner, c.index, c.start_time,
                                     now_, options_.seed)
             : TaskUsage(workload_.jobs[c.owner]);
}

Usage Simulation::UsageNow(const Container& c, ContainerId id) {
  if (!reads_fleet_usage_) return ContainerUsage(c);
  if (static_cast<size_t>(id) >= usage_.size()) {
    usage_.resize(id + 1);
    usage_at_.resize(id + 1, -1);
  }
  if (usage_at_[id] != now_) {
    usage_[id] = ContainerUsage(c);
    usage_at_[id] = now_;
  }
  return usage_[id];
}

void Simulation::AddWork(const Container& c, UsageSample& sample) const {
  if (c.kind != OwnerKind::kTask) return;
  sample.work_done_s = WorkDone(sample.container);
  sample.work_total_s = workload_.jobs[c.owner].duration_s;
}

void Simulation::OomKill(ContainerId id) {
  const Container& c = engine_.cluster().container(id);
  metrics_.OomKilled(now_, c);
  if (series_) series_->OomKilled(now_);
  if (c.kind == OwnerKind::kTask) EndTask(id);
  engine_.ContainerOomKilled(id);
  ApplyActions();
}

void Simulation::UsageTick() {
  const ClusterState& state = engine_.cluster();
  // The services' usage now, fleet-wide: where the engine may move a replica in this round, it
  // judges the targets by it.
  samples_.clear();
  if (reads_fleet_usage_) {
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      if (!state.ready(n)) continue;
      for (ContainerId id : state.containers_on(n)) {
        const Container& c = state.container(id);
        if (c.kind == OwnerKind::kService) samples_.push_back({id, UsageNow(c, id)});
      }
    }
  }
  engine_.BeginUsageRound(samples_);
  ApplyActions();
  std::array<double, kNumDims> usage_total{}, capacity_total{};
  if (series_ && series_->NodeSampleDue(now_)) series_->BeginNodeSample(now_, state);
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    for (int d = 0; d < kNumDims; ++d) {
      capacity_total[d] += static_cast<double>(state.node(n).capacity.amount[d]);
    }
    if (!state.ready(n)) {
      node_hot_[n] = 0;
      continue;
    }
    RunNode(n, usage_total);
  }
  engine_.EndUsageRound();
  ApplyActions();
  if (options_.on_tick) options_.on_tick(now_, state);
  if (series_) series_->FleetTicked(usage_total, capacity_total);
  if (now_ >= options_.warmup_s) {
    metrics_.FleetTicked(now_, usage_total, capacity_total, engine_, node_hot_);
  }
}

void Simulation::RunNode(NodeId n, std::array<double, kNumDims>& usage_total) {
  const ClusterState& state = engine_.cluster();
  const Node& node = state.node(n);
  const bool recording =
      options_.usage_recorder != nullptr && now_ % options_.record_interval_s == 0;
  samples_.clear();
  for (ContainerId id : state.containers_on(n)) samples_.push_back({.container = id});
  // The node's containers in id order, the one order every driver's view shares: the engine lists
  // them as its in-cycle moves left them, a replay's copy as the actions came. Sums of float usage
  // and ties in what the engine does with the samples then come out the same.
  std::sort(samples_.begin(), samples_.end(),
            [](const UsageSample& a, const UsageSample& b) { return a.container < b.container; });
  for (UsageSample& sample : samples_) {
    const Container& c = state.container(sample.container);
    sample.usage = UsageNow(c, sample.container);
    if (recording && c.kind == OwnerKind::kService) {
      const Service& svc = workload_.services[c.owner];
      options_.usage_recorder->Write(now_, svc.app, svc.name + "-" + std::to_string(c.index),
                                     sample.usage);
    }
  }
  // The cgroup's OOM killer: a replica above its memory limit dies, whatever the node has free.
  std::erase_if(samples_, [&](const UsageSample& sample) {
    const Container& c = state.container(sample.container);
    if (c.kind != OwnerKind::kService) return false;
    const int64_t limit = workload_.services[c.owner].limits[Dim::kMemory];
    if (limit <= 0 || sample.usage[1] <= static_cast<double>(limit)) return false;
    OomKill(sample.container);
    return true;
  });
  if (reads_usage_) {
    for (UsageSample& sample : samples_) AddWork(state.container(sample.container), sample);
    engine_.ObserveNodeUsage(n, samples_);
  } else {
    engine_.ObserveNodeUsage(n, {});
  }
  ApplyActions();
  Usage service_usage{}, batch_usage{};
  double serverless_cpu = 0;
  for (const UsageSample& sample : samples_) {
    const ContainerId id = sample.container;
    const Usage& u = sample.usage;
    if (!state.alive(id) || state.container(id).node != n) continue;  // evicted or moved
    const Container& c = state.container(id);
    Usage& sum = c.kind == OwnerKind::kService ? service_usage : batch_usage;
    for (int d = 0; d < kNumDims; ++d) sum[d] += u[d];
    if (c.kind == OwnerKind::kTask && workload_.jobs[c.owner].type == JobType::kServerless) {
      serverless_cpu += u[0];
    }
  }
  const double cpu_capacity = static_cast<double>(node.capacity.cpu());
  const BatchLimits& limits = limits_[n];
  // Services keep their CPU share; batch gets what is left of its limit (its tasks slow down).
  // Batch shares the room evenly, unless serverless tasks are served first: then the offline
  // tasks get the rest.
  const double cpu_room = std::max(0.0, limits.cpu - service_usage[0]);
  const double offline_cpu = std::max(0.0, batch_usage[0] - serverless_cpu);
  double serverless_rate = 1, offline_rate = 1;
  if (batch_usage[0] > cpu_room) {
    if (limits.serverless_first) {
      if (serverless_cpu > cpu_room) serverless_rate = cpu_room / serverless_cpu;
      offline_rate =
          std::max(0.0, cpu_room - serverless_cpu * serverless_rate) / std::max(offline_cpu, 1e-9);
      offline_rate = std::min(offline_rate, 1.0);
    } else {
      serverless_rate = offline_rate = cpu_room / batch_usage[0];
    }
  }
  // The engine's throttle also covers disk and network.
  serverless_rate = std::min(serverless_rate, limits.io_throttle);
  offline_rate = std::min(offline_rate, limits.io_throttle);
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
  for (ContainerId id : state.containers_on(n)) {
    const Container& c = state.container(id);
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
      const auto left = static_cast<int64_t>(std::ceil(std::max(0.0, task.remaining) / rate));
      finishes_.push({now_ + std::max<int64_t>(left, 1), id, task.generation});
    }
  }
  if (actual[1] > memory_capacity) {
    // The kernel's OOM killer, as the kubelet arranges it: lowest priority first, then the
    // container that started last.
    oom_order_.assign(state.containers_on(n).begin(), state.containers_on(n).end());
    std::sort(oom_order_.begin(), oom_order_.end(), [&](ContainerId a, ContainerId b) {
      const Container& ca = state.container(a);
      const Container& cb = state.container(b);
      if (ca.priority != cb.priority) return ca.priority < cb.priority;
      return ca.start_time != cb.start_time ? ca.start_time > cb.start_time : a < b;
    });
    double memory = actual[1];
    for (ContainerId id : oom_order_) {
      if (memory <= memory_capacity) break;
      memory -= UsageNow(state.container(id), id)[1];
      OomKill(id);
    }
    actual[1] = static_cast<float>(std::min(memory, memory_capacity));
  }
  node_usage_[n] = actual;
  if (series_ && series_->NodeSampleDue(now_)) {
    const double service_cpu = std::min<double>(service_usage[0], actual[0]);
    series_->NodeTicked(n, service_cpu, actual[0] - service_cpu);
  }
  for (int d = 0; d < kNumDims; ++d) usage_total[d] += actual[d];
  if (now_ >= options_.warmup_s) {
    metrics_.NodeTicked(hot, static_cast<int>(state.containers_on(n).size()));
  }
}

void Simulation::ReportProgress() {
  progress_.now = now_;
  progress_.end = end_;
  options_.progress(progress_);
}

int64_t Simulation::NextWorldSecond() const {
  auto next_multiple = [&](int64_t period) { return (now_ + period - 1) / period * period; };
  int64_t next =
      std::min({end_, next_multiple(options_.tick_s), next_multiple(options_.metrics_interval_s)});
  if (options_.progress) next = std::min(next, next_multiple(SimOptions::kProgressInterval));
  if (next_node_event_ < node_events_.size()) {
    next = std::min(next, node_events_[next_node_event_].time);
  }
  if (next_service_event_ < service_events_.size()) {
    next = std::min(next, service_events_[next_service_event_].time);
  }
  if (!finishes_.empty()) next = std::min(next, finishes_.top().time);
  if (next_job_ < workload_.jobs.size())
    next = std::min(next, workload_.jobs[next_job_].submit_time);
  return std::max(next, now_);
}

void Simulation::RunSecond() {
  engine_.AdvanceTo(now_);
  ApplyActions();
  while (next_node_event_ < node_events_.size() && node_events_[next_node_event_].time <= now_) {
    ApplyNodeEvent(node_events_[next_node_event_++]);
    ApplyActions();
  }
  while (next_service_event_ < service_events_.size() &&
         service_events_[next_service_event_].time <= now_) {
    const ServiceEvent& e = service_events_[next_service_event_++];
    metrics_.ServiceScaled(now_, e.service, engine_.service_status(e.service).desired, e.replicas);
    engine_.ScaleService(e.service, e.replicas);
    ApplyActions();
  }
  CompleteTasks();
  SubmitJobs();
  if (now_ % options_.cycle_s == 0) {
    engine_.Schedule();
    ApplyActions();
  }
  if (now_ % options_.tick_s == 0) UsageTick();
  if (now_ % options_.metrics_interval_s == 0) {
    if (series_) series_->SampleAllocation(engine_.cluster());
    if (now_ >= options_.warmup_s) metrics_.SampleAllocation(engine_.cluster(), mix_);
  }
  if (options_.progress && now_ % SimOptions::kProgressInterval == 0) ReportProgress();
}

Metrics Simulation::Run() {
  const auto wall_start = Clock::now();
  now_ = 0;
  while (now_ < end_) {
    // The seconds before the world's next act are the engine's alone; it runs them at once and
    // stops where it acted, for the world to carry that out first.
    const int64_t next = NextWorldSecond();
    if (next > now_) {
      now_ = engine_.RunQuiet(now_, next, options_.cycle_s);
      ApplyActions();
    } else {
      RunSecond();
    }
    ++now_;
  }
  now_ = end_;
  if (options_.progress) ReportProgress();
  Metrics m = metrics_.Finish(end_, next_job_, engine_, give_up_at_);
  m.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  if (series_) *options_.series = series_->Finish();
  return m;
}

void CheckPeriods(const SimOptions& options) {
  if (options.tick_s <= 0 || options.cycle_s <= 0 || options.metrics_interval_s <= 0) {
    throw std::invalid_argument(
        "simulation periods (tick, cycle, metrics interval) must be positive");
  }
}

}  // namespace

EngineOptions EngineOptionsFor(const Scenario& scenario, const Policy& policy,
                               const SimOptions& options) {
  EngineOptions engine{.seed = options.seed,
                       .cpu_hot_threshold = options.cpu_hot_threshold,
                       .memory_hot_threshold = options.memory_hot_threshold,
                       .task_shapes = ShapeMix::FromWorkload(scenario.workload).shapes(),
                       .explain_service = options.explain_service,
                       .explain_out = options.explain_out,
                       // The world measures every contract itself (MetricsCollector).
                       .sla_ledger = false};
  // Profiles are learned from the warm-up day's usage, which does not depend on placement (a
  // recording of that day gives the same history), unless the caller brings its own.
  if (options.profiles != nullptr) {
    engine.profiles = *options.profiles;
  } else if (policy.traits.uses_profiles) {
    engine.profiles = LearnWarmupProfiles(scenario.workload, options.warmup_s, options.seed);
  }
  return engine;
}

Metrics Simulate(const Scenario& scenario, const Policy& policy, const SimOptions& options) {
  CheckPeriods(options);
  // The scenario declares its services up front; each runs from its start event on.
  LocalEngine engine(policy, EngineOptionsFor(scenario, policy, options), scenario.nodes,
                     scenario.workload.services);
  Simulation sim(scenario, policy, options, engine);
  return sim.Run();
}

Metrics SimulateWith(const Scenario& scenario, const Policy& policy, const SimOptions& options,
                     EngineLink& engine) {
  CheckPeriods(options);
  Simulation sim(scenario, policy, options, engine);
  return sim.Run();
}

}  // namespace archimedes
