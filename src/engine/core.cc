#include "engine/core.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "engine/explain.h"

namespace archimedes {
namespace {

using Clock = std::chrono::steady_clock;

const Usage kNoUsage{};

}  // namespace

EngineCore::EngineCore(const Policy& policy, EngineOptions options, std::vector<Node> nodes,
                       std::vector<Service> services)
    : policy_(policy),
      options_(std::move(options)),
      services_placement_(policy_.services(options_.seed)),
      batch_(policy_.batch(options_.seed, policy_.buffer)),
      pressure_(policy_.pressure ? policy_.pressure() : nullptr),
      health_(policy_.health ? policy_.health() : nullptr),
      state_(std::move(nodes), batch_->accounting()),
      removed_(state_.num_nodes()),
      services_(std::move(services)),
      service_runs_(services_.size()),
      deleted_(services_.size()) {
  const int num_nodes = state_.num_nodes();
  node_freed.assign(num_nodes, 0);
  node_service_usage_.assign(num_nodes, Usage{});
  node_service_usage_at_.assign(num_nodes, -1);
  for (NodeId n = 0; n < num_nodes; ++n) {
    limits_.push_back(BatchLimits{.cpu = static_cast<double>(state_.node(n).capacity.cpu())});
  }
  placement_.buffer = policy_.buffer;
  placement_.seed = options_.seed;
  reads_usage_ = pressure_ || health_ || batch_->observes_services();
  reads_fleet_usage_ = health_ || (pressure_ && pressure_->moves_replicas());
  SetUpProfiles();
}

void EngineCore::SetUpProfiles() {
  if (services_placement_->uses_profiles() || batch_->uses_profiles()) {
    predicted_.emplace(BuildPredictedLoad(state_, services_, options_.profiles, placement_));
  }
  if (pressure_) pressure_->Start(*this);
  services_placement_->Start(*this);
  batch_->Start(*this);
}

SchedulingContext EngineCore::Context() const {
  SchedulingContext ctx{.state = state_, .predicted = predicted(), .now = now_};
  batch_->FillContext(ctx);
  return ctx;
}

NodeId EngineCore::Decide(Scheduler& scheduler, const PodRequest& pod, FeasibilityMemo* memo,
                          std::span<const std::array<int64_t, 2>> batch_room) {
  SchedulingContext ctx = Context();
  ctx.batch_room = batch_room;
  const auto start = Clock::now();
  const NodeId node = scheduler.Schedule(ctx, pod, memo);
  latency_.Add(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  return node;
}

void EngineCore::TimePlan(double microseconds, bool full) {
  plan_latency_.Add(microseconds);
  if (full) replan_latency_.Add(microseconds);
}

const SurgeMargin* EngineCore::surge_margin() const {
  return pressure_ ? pressure_->surge_margin() : nullptr;
}

void EngineCore::Added(ContainerId id) {
  const auto size = static_cast<size_t>(state_.id_limit());
  if (usage_.size() < size) {
    usage_.resize(size);
    usage_round_.resize(size, -1);
    work_.resize(size);
    bind_action_.resize(size, -1);
  }
  usage_round_[id] = -1;
  bind_action_[id] = -1;
}

ContainerId EngineCore::BindReplica(int32_t s, NodeId node, const PodRequest& pod) {
  ServiceRun& run = service_runs_[s];
  auto free_slot = std::find(run.slot_used.begin(), run.slot_used.end(), 0);
  const auto slot = static_cast<int32_t>(free_slot - run.slot_used.begin());
  if (free_slot == run.slot_used.end()) run.slot_used.push_back(0);
  run.slot_used[slot] = 1;
  const Container c{.kind = OwnerKind::kService,
                    .owner = s,
                    .index = slot,
                    .node = node,
                    .requests = pod.requests,
                    .priority = pod.priority,
                    .start_time = now_};
  const ContainerId id = state_.Add(c);
  Added(id);
  run.running.push_back(id);
  if (predicted_) predicted_->AddContainer(c);
  bind_action_[id] = static_cast<int32_t>(actions_.size());
  Emit(Action{.kind = ActionKind::kBind, .container = id, .node = node, .service = s});
  return id;
}

ContainerId EngineCore::StartTask(int32_t j, NodeId node) {
  const BatchJob& job = jobs_[j];
  JobRun& run = job_runs_[j];
  const Container c{.kind = OwnerKind::kTask,
                    .owner = j,
                    .index = run.first_started,
                    .node = node,
                    .requests = job.task_requests,
                    .priority = job.priority,
                    .start_time = now_};
  const ContainerId id = state_.Add(c);
  Added(id);
  batch_->CountTask(job, node, 1);
  --run.pending;
  ++run.running;
  const bool first_start = run.first_started < job.tasks;
  if (first_start) ++run.first_started;
  Emit(Action{.kind = ActionKind::kStartTask,
              .container = id,
              .node = node,
              .job = j,
              .first_start = first_start});
  return id;
}

void EngineCore::UndoStarts(int32_t j, std::span<const ContainerId> started,
                            int first_started_before) {
  JobRun& run = job_runs_[j];
  for (ContainerId id : started) {
    RemoveContainer(id, /*taken_back=*/true);
    --run.running;
    ++run.pending;
  }
  run.first_started = first_started_before;
  // The tasks never started in the world: their start actions, the last ones taken, are withdrawn.
  actions_.resize(actions_.size() - started.size());
}

ContainerId EngineCore::MoveUnstartedReplica(ContainerId id, NodeId to, std::string_view why) {
  Container c = state_.container(id);
  const NodeId from = c.node;
  std::vector<ContainerId>& running = service_runs_[c.owner].running;
  predicted_->RemoveContainer(c);
  const int32_t bind = bind_action_[id];
  if (bind < 0 || static_cast<size_t>(bind) >= actions_.size() || actions_[bind].container != id) {
    throw std::logic_error("only a replica placed in the current cycle may move before it starts");
  }
  state_.Remove(id);
  c.node = to;
  const ContainerId moved = state_.Add(c);
  Added(moved);
  predicted_->AddContainer(c);
  *std::find(running.begin(), running.end(), id) = moved;
  // The replica has not started: its bind, not yet carried out, now names the new node.
  bind_action_[moved] = bind;
  actions_[bind].container = moved;
  actions_[bind].node = to;
  if (id == explained_id) {
    explained_id = moved;
    options_.explain_out("refined: moved from " + state_.node(from).name + " to " +
                         state_.node(to).name + " before it started, " + std::string(why) +
                         " (docs/placement.md)\n");
  }
  return moved;
}

void EngineCore::RemoveContainer(ContainerId id, bool taken_back) {
  const Container& c = state_.container(id);
  const NodeId n = c.node;
  if (predicted_ && c.kind == OwnerKind::kService) predicted_->RemoveContainer(c);
  if (c.kind == OwnerKind::kTask) {
    batch_->CountTask(jobs_[c.owner], n, -1);
    if (!taken_back) batch_->TaskEnded(jobs_[c.owner], c);
  }
  if (health_ && n == round_node_) health_->Removed(id);
  state_.Remove(id);
  dirty = true;
  if (!node_freed[n]) {
    node_freed[n] = 1;
    freed_nodes.push_back(n);
  }
}

SlaKey EngineCore::SlaKeyOf(ContainerId id) const {
  const Container& c = state_.container(id);
  SlaKey key{.kind = c.kind, .priority = c.priority, .start_time = c.start_time};
  if (c.kind == OwnerKind::kService) {
    key.loss = ReplicaLoss(service_runs_[c.owner].desired);
  } else if (usage_round_[id] >= 0) {
    const auto [done, total] = work_[id];
    key.loss = TaskLoss(std::llround(done), total);
  } else {
    key.loss = TaskLoss(now_ - c.start_time, jobs_[c.owner].duration_estimate_s);
  }
  return key;
}

void EngineCore::End(ContainerId id, Ending ending, EvictReason reason, const SlaKey& sla) {
  const Container c = state_.container(id);
  const bool service = c.kind == OwnerKind::kService;
  if (ending != Ending::kLost) {
    Emit(Action{.kind = ending == Ending::kEvicted ? ActionKind::kEvict : ActionKind::kStop,
                .container = id,
                .node = c.node,
                .service = service ? c.owner : -1,
                .job = service ? -1 : c.owner,
                .reason = reason,
                .sla = sla});
  }
  RemoveContainer(id);
  if (service) {
    ServiceRun& run = service_runs_[c.owner];
    if (auto move = FindMove(id); move != moves_.end()) {
      // The replacement's end leaves the old replica serving in its slot; the old one's end
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
      pending_services.push_back(c.owner);
    }
    return;
  }
  JobRun& job = job_runs_[c.owner];
  --job.running;
  if (now_ < job.give_up_at) {
    ++job.pending;
    ++job.unplanned;
    Enqueue(c.owner);
  } else {
    ++job.failed;
  }
}

std::vector<Move>::iterator EngineCore::FindMove(ContainerId id) {
  return std::find_if(moves_.begin(), moves_.end(),
                      [id](const Move& m) { return m.old == id || m.replacement == id; });
}

ContainerId EngineCore::Migrate(ContainerId id, MigrationTrigger trigger) {
  const Container old = state_.container(id);
  const Usage usage = UsageOf(id);
  // A replica prone to bursts needs room for its bursts at the target, or the move carries them
  // onto a node that cannot absorb them.
  Usage room = usage;
  if (const SurgeMargin* margin = surge_margin()) {
    const std::array<float, 2>& burst = margin->burst_ratio(old.owner);
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
  std::optional<Migration> m = StartMigration(state_, services_placement_->scheduler(), Context(),
                                              id, ServicePod(old.owner), now_, no_room_);
  if (!m) return -1;
  Added(m->replacement);
  if (predicted_) predicted_->AddContainer(state_.container(m->replacement));
  for (int d = 0; d < kNumDims; ++d) node_service_usage_[m->target][d] += usage[d];
  Emit(Action{.kind = ActionKind::kMigrate,
              .container = m->replacement,
              .node = m->target,
              .replaced = id,
              .service = old.owner,
              .trigger = trigger});
  const Move move{
      .old = id, .replacement = m->replacement, .ready_at = now_ + services_[old.owner].startup_s};
  // A replacement that is ready at once takes over at once: the old replica does not linger.
  if (move.ready_at <= now_) {
    FinishMove(move);
  } else {
    moves_.push_back(move);
  }
  return m->replacement;
}

void EngineCore::FinishMove(const Move& m) {
  const Container old = state_.container(m.old);
  ServiceRun& run = service_runs_[old.owner];
  *std::find(run.running.begin(), run.running.end(), m.old) = m.replacement;
  Emit(Action{
      .kind = ActionKind::kStop, .container = m.old, .node = old.node, .service = old.owner});
  RemoveContainer(m.old);
  if (run.scaled_for == m.old) EndScaleOut(old.owner);
}

void EngineCore::FinishMigrations() {
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

// The warned replica of a health scale-out has ended: the service returns to its desired count.
void EngineCore::EndScaleOut(int32_t s) {
  ServiceRun& run = service_runs_[s];
  run.extra = 0;
  run.scaled_for = -1;
  SetDesired(s, run.desired);
}

void EngineCore::ScaleOut(int32_t s, ContainerId warned) {
  ServiceRun& run = service_runs_[s];
  run.extra = 1;
  run.scaled_for = warned;
  Emit(Action{.kind = ActionKind::kScaleOut, .service = s, .replicas = run.desired + 1});
  SetDesired(s, run.desired);
}

void EngineCore::SetDesired(int32_t s, int replicas) {
  ServiceRun& run = service_runs_[s];
  run.desired = replicas;
  if (replicas == 0) {
    run.extra = 0;
    run.scaled_for = -1;
  }
  while (static_cast<int>(run.running.size()) > replicas + run.extra) {
    const ContainerId id = run.running.back();
    // Scale-down of the newest replica: not an eviction; a move of it under way stops with it.
    if (auto move = FindMove(id); move != moves_.end()) End(move->replacement, Ending::kStopped);
    End(id, Ending::kStopped);
  }
  if (static_cast<int>(run.running.size()) < replicas + run.extra && !run.pending_listed) {
    run.pending_listed = true;
    pending_services.push_back(s);
  }
  dirty = true;
}

void EngineCore::Enqueue(int32_t j) {
  dirty = true;
  JobRun& run = job_runs_[j];
  if (run.queued) return;
  run.queued = true;
  job_queue_[jobs_[j].priority].push_back(j);
}

void EngineCore::ReportLate(int32_t j, int tasks, int64_t expected_start) {
  Emit(Action{
      .kind = ActionKind::kReportLate, .job = j, .tasks = tasks, .expected_start = expected_start});
}

void EngineCore::Throttle(NodeId n, const BatchLimits& limits) {
  if (limits_[n] == limits) return;
  limits_[n] = limits;
  Emit(Action{.kind = ActionKind::kThrottle, .node = n, .limits = limits});
}

const Usage& EngineCore::UsageOf(ContainerId id) const {
  return reads_fleet_usage_ && usage_round_[id] == round_ ? usage_[id] : kNoUsage;
}

const Usage& EngineCore::ServiceUsageNow(NodeId n) {
  if (node_service_usage_at_[n] == now_) return node_service_usage_[n];
  Usage usage{};
  for (ContainerId id : state_.containers_on(n)) {
    if (state_.container(id).kind != OwnerKind::kService) continue;
    const Usage& u = UsageOf(id);
    for (int d = 0; d < kNumDims; ++d) usage[d] += u[d];
  }
  SetServiceUsage(n, usage);
  return node_service_usage_[n];
}

void EngineCore::SetServiceUsage(NodeId n, const Usage& usage) {
  const Usage rise = PredictedRise(n, usage);
  for (int d = 0; d < kNumDims; ++d) node_service_usage_[n][d] = usage[d] + rise[d];
  node_service_usage_at_[n] = now_;
}

// A make-before-break move relieves its node only a start-up later, so it must start before the
// node is hot and cover what is still to come, and its target must have room for it.
Usage EngineCore::PredictedRise(NodeId n, const Usage& usage) const {
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
    for (int b = 1, i = bin; b <= horizon; ++b) {
      if (++i == bins) i = 0;
      peak = std::max(peak, curve[i]);
    }
    rise[d] = std::max(1.0F, usage[d] / curve[bin]) * (peak - curve[bin]);
  }
  return rise;
}

int EngineCore::ReadyReplicas(int32_t s) const {
  const int64_t startup = services_[s].startup_s;
  const std::vector<ContainerId>& running = service_runs_[s].running;
  return static_cast<int>(std::count_if(running.begin(), running.end(), [&](ContainerId id) {
    return now_ >= state_.container(id).start_time + startup;
  }));
}

// A hot node serves none of its replicas, so a replica waiting for its replacement on a node whose
// services are over the thresholds now serves nobody, and keeps its neighbours from serving:
// leaving replicas on `n` stop at once, the largest first, until the node is under, as far as
// their services' minimum availability allows.
void EngineCore::StopLeavingReplicas(NodeId n) {
  const Resources& capacity = state_.node(n).capacity;
  std::array<double, 2> over{
      -options_.cpu_hot_threshold * static_cast<double>(capacity.cpu()),
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
    if (ReadyReplicas(s) <= services_[s].sla.min_available) continue;
    const auto move = FindMove(id);
    const Move m = *move;
    moves_.erase(move);
    FinishMove(m);
    over[0] -= u[0];
    over[1] -= u[1];
  }
}

void EngineCore::ClearActions() { actions_.clear(); }

EngineStats EngineCore::stats() const {
  return EngineStats{.decision_p50_us = latency_.Percentile(0.5),
                     .decision_p99_us = latency_.Percentile(0.99),
                     .decisions = latency_.count(),
                     .plan_p50_us = plan_latency_.Percentile(0.5),
                     .plan_p99_us = plan_latency_.Percentile(0.99),
                     .plans = plan_latency_.count(),
                     .replan_p50_us = replan_latency_.Percentile(0.5),
                     .replan_p99_us = replan_latency_.Percentile(0.99),
                     .replans = replan_latency_.count()};
}

}  // namespace archimedes
