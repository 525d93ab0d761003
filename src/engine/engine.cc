#include "engine/engine.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "engine/core.h"
#include "engine/service_queue.h"
#include "engine/sla_ledger.h"

namespace archimedes {

// --- Checks: a bad id is the driver's input, named in the error.

void EngineCore::CheckNode(NodeId n) const {
  if (n < 0 || n >= state_.num_nodes()) {
    throw std::invalid_argument("no node with id " + std::to_string(n) + " (the engine has " +
                                std::to_string(state_.num_nodes()) + ")");
  }
  if (removed_[n]) {
    throw std::invalid_argument("node \"" + state_.node(n).name + "\" was removed");
  }
}

void EngineCore::CheckService(int32_t s) const {
  if (s < 0 || s >= num_services()) {
    throw std::invalid_argument("no service with id " + std::to_string(s));
  }
  if (deleted_[s]) {
    throw std::invalid_argument("service \"" + services_[s].name + "\" was deleted");
  }
}

void EngineCore::CheckJob(int32_t j) const {
  if (j < 0 || j >= static_cast<int32_t>(jobs_.size())) {
    throw std::invalid_argument("no job with id " + std::to_string(j));
  }
}

void EngineCore::ThrowNoContainer(ContainerId id) {
  throw std::invalid_argument("no running container with id " + std::to_string(id));
}

// --- Time and cycles.

void EngineCore::AdvanceTo(int64_t now) {
  if (now < now_) {
    throw std::invalid_argument("time goes back from " + std::to_string(now_) + " s to " +
                                std::to_string(now) + " s");
  }
  now_ = now;
  if (!moves_.empty()) FinishMigrations();
}

void EngineCore::Schedule() {
  if (!dirty && !batch_->Due(*this)) return;
  dirty = false;
  PlaceServices(*this);
  batch_->Plan(*this);
  batch_queue_.Place(*this);
}

// --- Nodes.

NodeId EngineCore::AddNode(const Node& node) {
  const NodeId n = state_.AddNode(node);
  removed_.push_back(0);
  node_freed.push_back(0);
  node_service_usage_.emplace_back();
  node_service_usage_at_.push_back(-1);
  limits_.push_back(BatchLimits{.cpu = static_cast<double>(node.capacity.cpu())});
  batch_->NodeAdded(n);
  if (predicted_) predicted_->AddNode(node);
  dirty = true;
  unpark_all = true;
  batch_->FleetChanged();
  return n;
}

void EngineCore::FailNode(NodeId n) {
  CheckNode(n);
  batch_->FleetChanged();
  state_.SetCondition(n, NodeCondition::kNotReady);
  const std::vector<ContainerId> lost(state_.containers_on(n).begin(),
                                      state_.containers_on(n).end());
  for (ContainerId id : lost) End(id, Ending::kLost);
}

void EngineCore::RecoverNode(NodeId n) {
  CheckNode(n);
  batch_->FleetChanged();
  state_.SetCondition(n, NodeCondition::kReady);
  dirty = true;
  unpark_all = true;
}

void EngineCore::SuspectNode(NodeId n) {
  CheckNode(n);
  batch_->FleetChanged();
  state_.SetCondition(n, NodeCondition::kNotReady);
}

void EngineCore::RemoveNode(NodeId n) {
  CheckNode(n);
  batch_->FleetChanged();
  state_.SetCondition(n, NodeCondition::kNotReady);
  // Lowest priority first, as the kubelet drains.
  std::vector<ContainerId> residents(state_.containers_on(n).begin(),
                                     state_.containers_on(n).end());
  std::stable_sort(residents.begin(), residents.end(), [&](ContainerId a, ContainerId b) {
    return state_.container(a).priority < state_.container(b).priority;
  });
  for (ContainerId id : residents)
    End(id, Ending::kEvicted, EvictReason::kNodeRemoved, SlaKeyOf(id));
  removed_[n] = 1;
}

void EngineCore::SetNodeLabels(NodeId n, std::map<std::string, std::string> labels) {
  CheckNode(n);
  state_.SetLabels(n, std::move(labels));
  dirty = true;
  unpark_all = true;
}

// --- Services.

int32_t EngineCore::CreateService(const Service& service) {
  for (int32_t s = 0; s < num_services(); ++s) {
    if (!deleted_[s] && services_[s].name == service.name) {
      throw std::invalid_argument("service \"" + service.name + "\" exists already");
    }
  }
  const auto s = static_cast<int32_t>(services_.size());
  services_.push_back(service);
  service_runs_.emplace_back();
  deleted_.push_back(0);
  // The profile-driven parts know every service in advance (its application, curve and rules).
  SetUpProfiles();
  return s;
}

void EngineCore::SetPriors(ProfileSet profiles,
                           std::vector<std::pair<Resources, double>> task_shapes) {
  options_.profiles = std::move(profiles);
  options_.task_shapes = std::move(task_shapes);
  SetUpProfiles();
  dirty = true;
}

void EngineCore::ScaleService(int32_t s, int replicas) {
  CheckService(s);
  if (replicas < 0) {
    throw std::invalid_argument("service \"" + services_[s].name + "\": replicas " +
                                std::to_string(replicas) + " is negative");
  }
  SetDesired(s, replicas);
}

void EngineCore::DeleteService(int32_t s) {
  CheckService(s);
  SetDesired(s, 0);
  deleted_[s] = 1;
}

// --- Jobs.

int32_t EngineCore::SubmitJob(const BatchJob& job, int64_t give_up_at) {
  const auto j = static_cast<int32_t>(jobs_.size());
  jobs_.push_back(job);
  JobRun& run = job_runs_.emplace_back();
  if (std::string why = ValidateJobShape(job); !why.empty()) {
    run.rejected = true;
    Emit(Action{.kind = ActionKind::kReject,
                .job = j,
                .message = "job \"" + job.name + "\": " + std::move(why)});
    return j;
  }
  run.give_up_at = give_up_at;
  run.greedy = batch_->Greedy(job);
  run.pending = job.tasks;
  run.unplanned = job.tasks;
  Enqueue(j);
  return j;
}

void EngineCore::CancelJob(int32_t j) {
  CheckJob(j);
  JobRun& run = job_runs_[j];
  run.give_up_at = std::min(run.give_up_at, now_);
  ExpireJob(j);
  for (ContainerId id = 0; id < state_.id_limit(); ++id) {
    if (!state_.alive(id)) continue;
    const Container& c = state_.container(id);
    if (c.kind == OwnerKind::kTask && c.owner == j) End(id, Ending::kStopped);
  }
}

// --- Containers.

void EngineCore::ContainerStarted(ContainerId id) {
  CheckContainer(id);
  auto move = FindMove(id);
  if (move == moves_.end() || move->replacement != id) return;
  const Move m = *move;
  moves_.erase(move);
  FinishMove(m);
}

void EngineCore::ContainerFinished(ContainerId id) {
  CheckContainer(id);
  const Container& c = state_.container(id);
  if (c.kind != OwnerKind::kTask) {
    throw std::invalid_argument("container " + std::to_string(id) +
                                " is a service replica: replicas do not finish");
  }
  JobRun& run = job_runs_[c.owner];
  RemoveContainer(id);
  --run.running;
  ++run.finished;
}

void EngineCore::ContainerLost(ContainerId id) {
  CheckContainer(id);
  // Another node's news: the staged node's round is over.
  if (state_.container(id).node != round_node_) round_node_ = -1;
  End(id, Ending::kLost);
}

// --- Usage rounds.

void EngineCore::BeginUsageRound(std::span<const UsageSample> fleet) {
  ++round_;
  round_node_ = -1;
  if (reads_fleet_usage_) {
    for (const UsageSample& sample : fleet) {
      CheckContainer(sample.container);
      Record(sample, state_.container(sample.container).kind);
    }
  }
  unpark_all = true;
  dirty = true;
  if (pressure_) {
    budget_.resize(service_runs_.size());
    for (size_t s = 0; s < service_runs_.size(); ++s) {
      budget_[s] =
          DisruptionBudget(services_[s].sla, static_cast<int>(service_runs_[s].running.size()));
    }
  }
  batch_->BeginUsageRound(*this);
  for (NodeId n = 0; n < state_.num_nodes(); ++n) {
    if (!state_.ready(n)) batch_->ObserveServices(*this, n, Usage{});
  }
}

void EngineCore::ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples) {
  CheckNode(n);
  round_node_ = -1;
  if (!reads_usage_) {
    Throttle(n, batch_->Limits(*this, n));
    return;
  }
  node_containers_.clear();
  Usage service_usage{};
  for (const UsageSample& sample : samples) {
    const ContainerId id = sample.container;
    CheckContainer(id);
    const Container& c = state_.container(id);
    Record(sample, c.kind);
    node_containers_.push_back({id, sample.usage});
    if (c.node != n || c.kind != OwnerKind::kService) continue;
    for (int d = 0; d < kNumDims; ++d) service_usage[d] += sample.usage[d];
  }
  // Relief and finished moves end containers only through actions: without new ones the sum
  // taken above is still the node's.
  const size_t actions_before = actions_.size();
  const double io_throttle = pressure_ ? pressure_->Relieve(*this, n) : 1.0;
  if (!moves_.empty()) StopLeavingReplicas(n);
  if (actions_.size() != actions_before) {
    service_usage = Usage{};
    for (const auto& [id, u] : node_containers_) {
      if (!state_.alive(id)) continue;
      const Container& c = state_.container(id);
      if (c.node != n || c.kind != OwnerKind::kService) continue;
      for (int d = 0; d < kNumDims; ++d) service_usage[d] += u[d];
    }
  }
  SetServiceUsage(n, service_usage);
  batch_->ObserveServices(*this, n, service_usage);
  BatchLimits limits = batch_->Limits(*this, n);
  limits.io_throttle = io_throttle;
  Throttle(n, limits);
  if (health_) health_->Stage(*this, n);
  round_node_ = n;
}

void EngineCore::EndUsageRound() {
  round_node_ = -1;
  if (health_) health_->Act(*this);
  batch_->EndUsageRound();
}

// --- Views.

ServiceStatus EngineCore::service_status(int32_t s) const {
  if (s < 0 || s >= num_services()) {
    throw std::invalid_argument("no service with id " + std::to_string(s));
  }
  const ServiceRun& run = service_runs_[s];
  return ServiceStatus{.desired = run.desired, .extra = run.extra, .replicas = run.running};
}

JobStatus EngineCore::job_status(int32_t j) const {
  CheckJob(j);
  const JobRun& run = job_runs_[j];
  return JobStatus{.pending = run.pending,
                   .running = run.running,
                   .finished = run.finished,
                   .failed = run.failed,
                   .first_started = run.first_started,
                   .rejected = run.rejected};
}

// --- Engine: the public face.

Engine::Engine(const Policy& policy, EngineOptions options, std::vector<Node> nodes,
               std::vector<Service> services)
    : core_(std::make_unique<EngineCore>(policy, std::move(options), std::move(nodes),
                                         std::move(services))),
      sla_(core_->options().sla_ledger ? std::make_unique<SlaLedger>() : nullptr) {
  if (!sla_) return;
  for (int32_t s = 0; s < core_->num_services(); ++s) sla_->ServiceAdded(*core_, s);
}

Engine::~Engine() = default;

void Engine::AdvanceTo(int64_t now) {
  core_->AdvanceTo(now);
  NoteActions();
}
void Engine::Schedule() {
  core_->Schedule();
  NoteActions();
}
NodeId Engine::AddNode(const Node& node) { return core_->AddNode(node); }
void Engine::FailNode(NodeId n) {
  if (sla_ && n >= 0 && n < core_->state().num_nodes()) {
    for (ContainerId id : core_->state().containers_on(n)) sla_->Lost(*core_, id, "node failed");
  }
  core_->FailNode(n);
  NoteActions();
}
void Engine::RecoverNode(NodeId n) { core_->RecoverNode(n); }
void Engine::SuspectNode(NodeId n) {
  core_->SuspectNode(n);
  NoteActions();
}
void Engine::RemoveNode(NodeId n) {
  core_->RemoveNode(n);
  NoteActions();
}
void Engine::SetNodeLabels(NodeId n, std::map<std::string, std::string> labels) {
  core_->SetNodeLabels(n, std::move(labels));
}
int32_t Engine::CreateService(const Service& service) {
  const int32_t s = core_->CreateService(service);
  if (sla_) sla_->ServiceAdded(*core_, s);
  return s;
}
void Engine::SetPriors(ProfileSet profiles, std::vector<std::pair<Resources, double>> task_shapes) {
  core_->SetPriors(std::move(profiles), std::move(task_shapes));
}
void Engine::ScaleService(int32_t service, int replicas) {
  core_->ScaleService(service, replicas);
  if (sla_) sla_->Scaled(service, replicas, core_->now());
  NoteActions();
}
void Engine::DeleteService(int32_t service) {
  core_->DeleteService(service);
  if (sla_) sla_->Deleted(service, core_->now());
  NoteActions();
}
int32_t Engine::SubmitJob(const BatchJob& job, int64_t give_up_at) {
  const int32_t j = core_->SubmitJob(job, give_up_at);
  if (sla_) sla_->JobSubmitted(*core_, j);
  NoteActions();
  return j;
}
void Engine::CancelJob(int32_t job) {
  core_->CancelJob(job);
  if (sla_) sla_->Cancelled(job);
  NoteActions();
}
void Engine::ContainerStarted(ContainerId id) {
  core_->ContainerStarted(id);
  NoteActions();
}
void Engine::ContainerFinished(ContainerId id) {
  core_->ContainerFinished(id);
  NoteActions();
}
void Engine::ContainerFailed(ContainerId id) {
  if (sla_ && core_->state().alive(id)) sla_->Lost(*core_, id, "failed");
  core_->ContainerLost(id);
  NoteActions();
}
void Engine::ContainerOomKilled(ContainerId id) {
  if (sla_ && core_->state().alive(id)) sla_->Lost(*core_, id, "OOM-killed");
  core_->ContainerLost(id);
  NoteActions();
}
void Engine::BeginUsageRound(std::span<const UsageSample> fleet) {
  core_->BeginUsageRound(fleet);
  NoteActions();
}
void Engine::ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples) {
  core_->ObserveNodeUsage(n, samples);
  NoteActions();
}
void Engine::EndUsageRound() {
  core_->EndUsageRound();
  NoteActions();
}
std::span<const Action> Engine::actions() const { return core_->actions(); }
void Engine::ClearActions() {
  NoteActions();
  core_->ClearActions();
  noted_ = 0;
}
const ClusterState& Engine::cluster() const { return core_->state(); }
int64_t Engine::now() const { return core_->now(); }
ServiceStatus Engine::service_status(int32_t service) const {
  return core_->service_status(service);
}
JobStatus Engine::job_status(int32_t job) const { return core_->job_status(job); }
EngineStats Engine::stats() const { return core_->stats(); }
const Policy& Engine::policy() const { return core_->policy(); }
bool Engine::reads_usage() const { return core_->reads_usage(); }
bool Engine::reads_fleet_usage() const { return core_->reads_fleet_usage(); }

std::vector<NodeExplanation> Engine::ExplainReplica(const Service& pod, int32_t service) const {
  // An id past the catalogue reads as "no profile, no replicas" to every plugin.
  const int32_t owner = service >= 0 ? service : std::numeric_limits<int32_t>::max();
  return core_->service_placement().scheduler().Explain(core_->Context(),
                                                        ServicePodRequest(pod, owner));
}

SlaRecord Engine::service_sla(int32_t service) const {
  if (service < 0 || service >= core_->num_services()) {
    throw std::invalid_argument("no service with id " + std::to_string(service));
  }
  CheckLedger();
  return sla_->OfService(service, core_->now());
}

SlaRecord Engine::job_sla(int32_t job) const {
  core_->job_status(job);  // checks the id
  CheckLedger();
  return sla_->OfJob(*core_, job);
}

void Engine::CheckLedger() const {
  if (!sla_) throw std::logic_error("this engine keeps no SLA ledger (EngineOptions::sla_ledger)");
}

void Engine::NoteActions() {
  if (!sla_) return;
  const std::span<const Action> actions = core_->actions();
  sla_->Saw(*core_, actions.subspan(noted_));
  noted_ = actions.size();
  sla_->Settle(*core_);
}

namespace {

// Keeps, of `plan` (sorted by job, start, node), at most as many places per job as it has tasks
// pending: tasks that started outside the plan since (freed capacity), or were given up, hold none.
void KeepPending(const EngineCore& core, std::vector<PlannedTask>& plan) {
  std::sort(plan.begin(), plan.end(), [](const PlannedTask& a, const PlannedTask& b) {
    return std::tie(a.job, a.start, a.node) < std::tie(b.job, b.start, b.node);
  });
  size_t kept = 0;
  for (size_t i = 0; i < plan.size();) {
    const int32_t j = plan[i].job;
    const int pending = core.job_run(j).pending;
    for (int taken = 0; i < plan.size() && plan[i].job == j; ++i, ++taken) {
      if (taken < pending) plan[kept++] = plan[i];
    }
  }
  plan.resize(kept);
}

}  // namespace

std::vector<PlannedTask> Engine::plan() const {
  const std::span<const PlannedTask> held = core_->batch_placement().plan();
  std::vector<PlannedTask> plan(held.begin(), held.end());
  KeepPending(*core_, plan);
  return plan;
}

std::vector<PlannedTask> Engine::plan_of(int32_t job) const {
  core_->job_status(job);  // checks the id
  std::vector<PlannedTask> plan;
  for (const PlannedTask& p : core_->batch_placement().plan()) {
    if (p.job == job) plan.push_back(p);
  }
  KeepPending(*core_, plan);
  return plan;
}

}  // namespace archimedes
