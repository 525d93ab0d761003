#include "server/control_plane.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "model/duration.h"
#include "model/quantity.h"
#include "sched/plugins/fragmentation.h"
#include "server/api_error.h"
#include "server/objects.h"
#include "trace/profile_file.h"

namespace archimedes {
namespace {

constexpr char kApiVersion[] = "archimedes.io/v1";
constexpr char kJobPrefix[] = "job-";
constexpr char kDriveTarget[] = "drive";  // a clock event of POST /v1/clock/drive

// The submitter's patience when the job states none, as the simulator's default: tolerance plus
// twice the tolerance, at least ten minutes.
int64_t DefaultGiveUpAfter(const BatchJob& job) {
  return job.delay_tolerance_s + std::max<int64_t>(2 * job.delay_tolerance_s, 600);
}

nlohmann::json Metadata(const std::string& name, int64_t version,
                        const std::map<std::string, std::string>& labels) {
  return {{"name", name}, {"labels", labels}, {"resourceVersion", std::to_string(version)}};
}

void CheckVersion(const std::optional<int64_t>& sent, int64_t current, const std::string& what) {
  if (sent && *sent != current) {
    throw Conflict(what + " has resourceVersion " + std::to_string(current) + ", not " +
                       std::to_string(*sent) + ": it changed since it was read; read it again",
                   "metadata.resourceVersion");
  }
}

// The engine refuses what it cannot do with std::invalid_argument naming the input.
// The places of job `job` in `plan` (sorted by job, as Engine::plan() gives it).
std::span<const PlannedTask> PlacesOf(std::span<const PlannedTask> plan, int32_t job) {
  const auto by_job = [](const PlannedTask& p, int32_t j) { return p.job < j; };
  const auto first = std::lower_bound(plan.begin(), plan.end(), job, by_job);
  auto last = first;
  while (last != plan.end() && last->job == job) ++last;
  return {first, last};
}

nlohmann::json BreachesJson(const std::vector<SlaBreach>& breaches) {
  nlohmann::json out = nlohmann::json::array();
  for (const SlaBreach& b : breaches) {
    out.push_back({{"start", b.start}, {"end", b.end}, {"reason", b.reason}});
  }
  return out;
}

nlohmann::json PriorsJson(const ProfileSet& profiles,
                          const std::vector<std::pair<Resources, double>>& task_shapes,
                          std::optional<int64_t> set_at, const char* source) {
  return {{"kind", "Priors"},
          {"setAt", set_at ? nlohmann::json(*set_at) : nlohmann::json(nullptr)},
          {"source", source != nullptr ? nlohmann::json(source) : nlohmann::json(nullptr)},
          {"profiles",
           {{"applications", profiles.apps.size()},
            {"classes", profiles.classes.size()},
            {"bins", profiles.bins}}},
          {"taskShapes", EncodeTaskShapes(task_shapes)}};
}

template <typename F>
void Engine422(F call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    throw Invalid(e.what());
  }
}

}  // namespace

ControlPlane::ControlPlane(const Policy& policy, PlaneOptions options)
    : engine_(policy, EngineOptions{.seed = options.seed}, {}, {}),
      options_(options),
      priors_(PriorsJson({}, {}, std::nullopt, nullptr)),
      next_adoption_(options.adopt_profiles_s),
      profiler_(ProfileOptions{.seed = options.seed}) {}

int64_t ControlPlane::Restore(Journal& journal) {
  int64_t replayed = 0;
  journal.ForEach(event_seq_, [&](int64_t seq, const Event& event) {
    try {
      Follow(seq, event);
    } catch (const JournalError& e) {
      throw JournalError(journal.path() + ": " + e.what());
    }
    ++replayed;
  });
  Lead(journal);
  return replayed;
}

void ControlPlane::Follow(int64_t seq, const Event& event) {
  if (seq != event_seq_ + 1) {
    throw JournalError("event " + std::to_string(seq) + " follows event " +
                       std::to_string(event_seq_) + ": the log has a gap");
  }
  if (event.time != engine_.now()) {
    throw JournalError("event " + std::to_string(seq) + " applied at " +
                       std::to_string(event.time) + " s, but the replayed clock is at " +
                       std::to_string(engine_.now()) + " s");
  }
  event_seq_ = seq;
  try {
    Dispatch(event);
  } catch (const ApiError&) {
    // It failed the same way when it was applied: the client was told, nothing changed.
  } catch (const std::invalid_argument&) {
    // Likewise for what the engine refused once the event was stored.
  }
}

void ControlPlane::Lead(Journal& journal) {
  journal_ = &journal;
  stored_seq_ = last_seq_;
}

Reply ControlPlane::Apply(Event event, int64_t* journal_seq) {
  stored_seq();  // forgets the marks of the events stored since
  event.time = engine_.now();
  const int64_t appended_before = event_seq_;
  // An event stored and then refused by the engine (which then changed nothing) is replayed the
  // same way; it is kept, and marked like any other.
  auto mark = [&] {
    *journal_seq = event_seq_ != appended_before ? event_seq_ : 0;
    if (*journal_seq > 0) pending_marks_.emplace_back(event_seq_, last_seq_);
  };
  try {
    Reply reply = Dispatch(event);
    mark();
    return reply;
  } catch (const std::invalid_argument& e) {
    mark();
    throw Invalid(e.what());
  }
}

int64_t ControlPlane::Commit(const Event& event) {
  if (journal_ != nullptr) event_seq_ = journal_->Append(event);
  ++events_applied_;
  return event_seq_;
}

int64_t ControlPlane::stored_seq() {
  if (journal_ == nullptr) return last_seq_;  // following: every event applied is stored
  while (!pending_marks_.empty() && pending_marks_.front().first <= journal_->committed()) {
    stored_seq_ = pending_marks_.front().second;
    pending_marks_.pop_front();
  }
  return stored_seq_;
}

Reply ControlPlane::Dispatch(const Event& event) {
  switch (event.kind) {
    case EventKind::kPutNode:
      return PutNode(event);
    case EventKind::kDeleteNode:
      return DeleteNode(event);
    case EventKind::kPutService:
      return PutService(event);
    case EventKind::kDeleteService:
      return DeleteService(event);
    case EventKind::kSubmitJob:
      return SubmitJob(event);
    case EventKind::kCancelJob:
      return CancelJob(event);
    case EventKind::kContainerStatus:
      return ContainerStatus(event);
    case EventKind::kUsage:
      return ReportUsage(event);
    case EventKind::kClock:
      return event.target == kDriveTarget ? Drive(event) : AdvanceClock(event);
    case EventKind::kNodeStatus:
      return NodeStatus(event);
    case EventKind::kPutPriors:
      return PutPriors(event);
  }
  throw std::logic_error("unknown event kind");
}

// --- Nodes.

Reply ControlPlane::PutNode(const Event& event) {
  NodeRequest request = DecodeNode(event.target, event.body);
  auto it = nodes_.find(event.target);
  if (it != nodes_.end() && !it->second.removed) {
    const NodeRecord& record = it->second;
    const std::string what = "node \"" + event.target + "\"";
    CheckVersion(request.meta.resource_version, record.version, what);
    const Node& current = engine_.cluster().node(record.id);
    if (request.node.capacity != current.capacity ||
        request.node.allocatable != current.allocatable || request.node.zone != current.zone ||
        request.node.pod != current.pod || request.node.taints != current.taints) {
      throw Invalid(
          what +
              ": only its labels, address and probe may change; delete and add it again to "
              "change its capacity, allocatable, zone, pod or taints",
          "spec");
    }
    if (request.node.labels == current.labels && request.address == record.address &&
        request.probe == record.probe) {
      return {200, NodeJson(event.target, record)};
    }
    const int64_t version = Commit(event);
    if (request.node.labels != current.labels) {
      engine_.SetNodeLabels(record.id, request.node.labels);
      Drain();
    }
    it->second.version = version;
    it->second.address = request.address;
    it->second.probe = request.probe;
    return {200, NodeJson(event.target, it->second)};
  }
  if (request.meta.resource_version) {
    throw Conflict("node \"" + event.target +
                       "\" does not exist: a new object has no "
                       "resourceVersion",
                   "metadata.resourceVersion");
  }
  const int64_t version = Commit(event);
  const NodeId id = engine_.AddNode(request.node);
  Drain();
  NodeRecord& record = nodes_[event.target];
  record = {.id = id,
            .version = version,
            .removed = false,
            .address = request.address,
            .probe = request.probe};
  if (node_names_.size() <= static_cast<size_t>(id)) {
    node_names_.resize(id + 1);
    node_actions_.resize(id + 1);
  }
  node_names_[id] = event.target;
  ProfileNode(request.node);
  return {201, NodeJson(event.target, record)};
}

NodeId ControlPlane::NodeIdOf(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() || it->second.removed ? -1 : it->second.id;
}

Reply ControlPlane::DeleteNode(const Event& event) {
  const NodeRecord& record = FindNode(event.target);
  const int64_t version = Commit(event);
  engine_.RemoveNode(record.id);
  Drain();
  NodeRecord& changed = nodes_[event.target];
  changed.removed = true;
  changed.version = version;
  return {200, NodeJson(event.target, changed)};
}

Reply ControlPlane::NodeStatus(const Event& event) {
  const NodeStatusRequest request = DecodeNodeStatus(event.target, event.body);
  const NodeRecord& record = FindNode(event.target);
  CheckVersion(request.meta.resource_version, record.version, "node \"" + event.target + "\"");
  const NodeState was = StateOf(record);
  if (was == request.state && record.reason == request.reason) {
    return {200, NodeJson(event.target, record)};
  }
  if (was == NodeState::kNotReady && request.state == NodeState::kSuspect) {
    throw Conflict("node \"" + event.target +
                       "\" is NotReady: what ran there was placed again; it is Ready again "
                       "before it can be Suspect",
                   "status.condition");
  }
  const int64_t version = Commit(event);
  if (was != request.state) {
    switch (request.state) {
      case NodeState::kReady:
        engine_.RecoverNode(record.id);
        break;
      case NodeState::kSuspect:
        engine_.SuspectNode(record.id);
        break;
      case NodeState::kNotReady:
        RecordLost(record.id);
        engine_.FailNode(record.id);
        break;
    }
    Drain();
  }
  NodeRecord& changed = nodes_[event.target];
  changed.version = version;
  changed.suspect = request.state == NodeState::kSuspect;
  changed.reason = request.reason;
  return {200, NodeJson(event.target, changed)};
}

NodeState ControlPlane::StateOf(const NodeRecord& r) const {
  if (engine_.cluster().ready(r.id)) return NodeState::kReady;
  return r.suspect ? NodeState::kSuspect : NodeState::kNotReady;
}

std::array<int64_t, 3> ControlPlane::NodesByState() const {
  std::array<int64_t, 3> counts{};
  for (const auto& [name, record] : nodes_) {
    if (!record.removed) ++counts[static_cast<size_t>(StateOf(record))];
  }
  return counts;
}

std::optional<NodeState> ControlPlane::NodeStateOf(const std::string& name) const {
  const auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.removed) return std::nullopt;
  return StateOf(it->second);
}

void ControlPlane::RecordLost(NodeId node) {
  for (const ContainerId id : engine_.cluster().containers_on(node)) {
    const Container& c = engine_.cluster().container(id);
    Action lost{.kind = ActionKind::kEvict, .container = id, .node = node};
    lost.reason = EvictReason::kNodeFailed;
    (c.kind == OwnerKind::kService ? lost.service : lost.job) = c.owner;
    Publish(lost, ++last_seq_);
  }
}

// --- Services.

Reply ControlPlane::PutService(const Event& event) {
  ServiceRequest request = DecodeService(event.target, event.body);
  const Service& wanted = request.service;
  auto it = services_.find(event.target);
  if (it != services_.end()) {
    ServiceRecord& record = it->second;
    const std::string what = "service \"" + event.target + "\"";
    CheckVersion(request.meta.resource_version, record.version, what);
    const Service& current = record.spec;
    const bool same_shape =
        wanted.requests == current.requests && wanted.limits == current.limits &&
        wanted.priority == current.priority && wanted.qos == current.qos &&
        AppName(wanted) == AppName(current) && wanted.max_per_node == current.max_per_node &&
        wanted.node_selector == current.node_selector && wanted.startup_s == current.startup_s &&
        wanted.sla.availability == current.sla.availability &&
        wanted.tolerations == current.tolerations &&
        wanted.node_affinity == current.node_affinity && request.command == record.command;
    if (!same_shape) {
      throw Invalid(what +
                        ": only replicas and labels may change; delete and create it again to "
                        "change anything else",
                    "spec");
    }
    if (wanted.replicas == current.replicas && request.meta.labels == record.labels) {
      return {200, ServiceJson(event.target, record)};
    }
    const int64_t version = Commit(event);
    if (wanted.replicas != current.replicas) {
      engine_.ScaleService(record.id, wanted.replicas);
      Drain();
    }
    record.spec.replicas = wanted.replicas;
    record.labels = request.meta.labels;
    record.version = version;
    ProfileService(record.spec, event.target);
    return {200, ServiceJson(event.target, record)};
  }
  if (request.meta.resource_version) {
    throw Conflict("service \"" + event.target +
                       "\" does not exist: a new object has no "
                       "resourceVersion",
                   "metadata.resourceVersion");
  }
  const int64_t version = Commit(event);
  Service declared = wanted;
  declared.replicas = 0;  // the engine runs it once scaled
  const int32_t id = engine_.CreateService(declared);
  engine_.ScaleService(id, wanted.replicas);
  Drain();
  ServiceRecord& record = services_[event.target];
  record = {.id = id,
            .version = version,
            .labels = request.meta.labels,
            .spec = wanted,
            .command = request.command};
  if (service_names_.size() <= static_cast<size_t>(id)) service_names_.resize(id + 1);
  service_names_[id] = event.target;
  ProfileService(wanted, event.target);
  return {201, ServiceJson(event.target, record)};
}

Reply ControlPlane::DeleteService(const Event& event) {
  const ServiceRecord record = FindService(event.target);
  Commit(event);
  engine_.DeleteService(record.id);
  Drain();
  nlohmann::json gone = ServiceJson(event.target, record);
  services_.erase(event.target);
  return {200, gone};
}

// --- Jobs.

Reply ControlPlane::SubmitJob(const Event& event) {
  const auto id = static_cast<int32_t>(jobs_.size());
  JobRequest request = DecodeJob(kJobPrefix + std::to_string(id), event.body);
  const std::string canonical = nlohmann::json::parse(event.body).dump();
  if (!event.idempotency_key.empty()) {
    if (auto it = jobs_by_key_.find(event.idempotency_key); it != jobs_by_key_.end()) {
      if (jobs_[it->second].canonical_body != canonical) {
        throw Conflict("Idempotency-Key \"" + event.idempotency_key + "\" was used for " +
                           kJobPrefix + std::to_string(it->second) +
                           " with a different body: use a new key for a new job",
                       "Idempotency-Key");
      }
      return {200, JobJson(it->second)};
    }
  }
  if (request.meta.resource_version) {
    throw Conflict("a new job has no resourceVersion", "metadata.resourceVersion");
  }
  const Resources& task = request.job.task_requests;
  bool fits_somewhere = false;
  for (const auto& [name, record] : nodes_) {
    fits_somewhere |= !record.removed && task.FitsIn(engine_.cluster().node(record.id).capacity);
  }
  if (!fits_somewhere) {
    throw Invalid("job: no node of the " + std::to_string(engine_.cluster().num_nodes()) +
                      " added can hold a task of " + ToString(task) +
                      ": it could never start (add a larger node first)",
                  "spec.requests");
  }
  const int64_t version = Commit(event);
  request.job.submit_time = engine_.now();
  const int64_t give_up_at =
      engine_.now() + request.give_up_after_s.value_or(DefaultGiveUpAfter(request.job));
  jobs_.push_back({.job = request.job,
                   .labels = request.meta.labels,
                   .give_up_after_s = request.give_up_after_s,
                   .limits = request.limits,
                   .version = version,
                   .submitted = engine_.now(),
                   .give_up_at = give_up_at,
                   .idempotency_key = event.idempotency_key,
                   .canonical_body = canonical});
  if (!event.idempotency_key.empty()) jobs_by_key_[event.idempotency_key] = id;
  engine_.SubmitJob(request.job, give_up_at);
  Drain();
  return {201, JobJson(id)};
}

Reply ControlPlane::CancelJob(const Event& event) {
  const int32_t id = FindJob(event.target);
  const std::string phase = JobPhase(id);
  if (phase == "Succeeded" || phase == "Failed") return {200, JobJson(id)};
  const int64_t version = Commit(event);
  engine_.CancelJob(id);
  Drain();
  jobs_[id].cancelled = true;
  jobs_[id].version = version;
  return {200, JobJson(id)};
}

// --- Node agents.

Reply ControlPlane::ContainerStatus(const Event& event) {
  const ContainerStatusRequest request = DecodeContainerStatus(event.body);
  const ContainerId id = FindContainer(event.target);
  const Container& c = engine_.cluster().container(id);
  if (request.phase == ContainerPhase::kSucceeded && c.kind == OwnerKind::kService) {
    throw Invalid("container \"" + event.target +
                      "\" is a service replica: it does not succeed; "
                      "report Failed when it exits",
                  "phase");
  }
  if (request.phase == ContainerPhase::kRunning && containers_[id].running) {
    return {200, {{"container", event.target}, {"phase", "Running"}}};
  }
  Commit(event);
  static constexpr const char* kPhases[] = {"Running", "Succeeded", "Failed", "OOMKilled"};
  if (request.phase == ContainerPhase::kFailed || request.phase == ContainerPhase::kOomKilled) {
    const auto service =
        c.kind == OwnerKind::kService ? services_.find(service_names_[c.owner]) : services_.end();
    // A replica of a service deleted meanwhile has no record to note it on.
    Termination ignored;
    Termination& t = c.kind == OwnerKind::kTask   ? jobs_[c.owner].terminated
                     : service != services_.end() ? service->second.terminated
                                                  : ignored;
    t = {.count = t.count + 1,
         .container = event.target,
         .reason = kPhases[static_cast<int>(request.phase)],
         .exit_code = request.exit_code,
         .time = engine_.now()};
  }
  switch (request.phase) {
    case ContainerPhase::kRunning:
      containers_[id].running = true;
      engine_.ContainerStarted(id);
      break;
    case ContainerPhase::kSucceeded:
      engine_.ContainerFinished(id);
      break;
    case ContainerPhase::kFailed:
      engine_.ContainerFailed(id);
      break;
    case ContainerPhase::kOomKilled:
      engine_.ContainerOomKilled(id);
      break;
  }
  if (request.phase != ContainerPhase::kRunning) {
    container_ids_.erase(event.target);
    containers_[id] = {};
  }
  Drain();
  return {200,
          {{"container", event.target},
           {"phase", kPhases[static_cast<int>(request.phase)]},
           {"exitCode", request.exit_code}}};
}

Reply ControlPlane::ReportUsage(const Event& event) {
  const std::vector<UsageReport> reports = DecodeUsage(event.body);
  std::vector<ContainerId> ids;
  ids.reserve(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    try {
      ids.push_back(FindContainer(reports[i].container));
    } catch (const ApiError& e) {
      throw ApiError(e.code(), e.reason(), e.what(),
                     "samples[" + std::to_string(i) + "].container");
    }
  }
  Commit(event);
  for (size_t i = 0; i < reports.size(); ++i) {
    const Container& c = engine_.cluster().container(ids[i]);
    ContainerRecord& record = containers_[ids[i]];
    record.has_usage = true;
    record.usage = {.container = ids[i], .usage = reports[i].usage};
    ProfileUsage(ids[i], reports[i].usage);
    if (c.kind == OwnerKind::kTask) {
      record.usage.work_done_s = reports[i].work_done_s;
      record.usage.work_total_s = jobs_[c.owner].job.duration_estimate_s;
    }
  }
  return {200, {{"accepted", reports.size()}}};
}

Reply ControlPlane::AdvanceClock(const Event& event) {
  const int64_t to = DecodeClock(event.body, engine_.now());
  if (round_open_) throw Conflict("a driven usage round is open: end it before the clock moves");
  Commit(event);
  for (int64_t s = std::max(next_tick_, to - kMaxCatchUpSeconds); s < to; ++s) {
    engine_.AdvanceTo(s);
    Drain();
    if (s % options_.cycle_s == 0) {
      engine_.Schedule();
      Drain();
    }
    if (s % options_.usage_round_s == 0) RunUsageRound();
  }
  next_tick_ = std::max(next_tick_, to);
  engine_.AdvanceTo(to);
  Drain();
  return {200, {{"time", to}}};
}

Reply ControlPlane::Drive(const Event& event) {
  using Op = DriveRequest::Op;
  const DriveRequest request = DecodeDrive(event.body, engine_.now());
  const bool in_round = request.op == Op::kRoundNode || request.op == Op::kRoundEnd;
  if (in_round && !round_open_) {
    throw Conflict("no usage round is open: begin one first", "usageRound");
  }
  if (!in_round && round_open_) {
    throw Conflict("a usage round is open: end it first", "usageRound");
  }
  NodeId node = -1;
  if (request.op == Op::kRoundNode) {
    node = FindNode(request.node).id;
    if (!engine_.cluster().ready(node)) {
      throw Invalid("node \"" + request.node + "\" is not ready: it has no usage", "node");
    }
  }
  std::vector<UsageSample> samples;
  for (size_t i = 0; i < request.samples.size(); ++i) {
    const DriveSample& in = request.samples[i];
    ContainerId id = -1;
    try {
      id = FindContainer(in.container);
    } catch (const ApiError& e) {
      throw ApiError(e.code(), e.reason(), e.what(),
                     "samples[" + std::to_string(i) + "].container");
    }
    if (node >= 0 && engine_.cluster().container(id).node != node) {
      throw Invalid("container \"" + in.container + "\" is not on node \"" + request.node + "\"",
                    "samples[" + std::to_string(i) + "].container");
    }
    samples.push_back({.container = id,
                       .usage = in.usage,
                       .work_done_s = in.work_done_s,
                       .work_total_s = in.work_total_s});
  }
  const int64_t first_seq = last_seq_;
  Commit(event);
  for (const UsageSample& sample : samples) {
    containers_[sample.container].has_usage = true;
    containers_[sample.container].usage = sample;
    ProfileUsage(sample.container, sample.usage);
  }
  switch (request.op) {
    case Op::kAdvanceTo:
      engine_.AdvanceTo(request.time);
      next_tick_ = std::max(next_tick_, request.time);
      Drain();
      break;
    case Op::kRunThrough:
      for (int64_t s = std::max(next_tick_, engine_.now()); s <= request.time; ++s) {
        engine_.AdvanceTo(s);
        if (s % options_.cycle_s == 0) engine_.Schedule();
        next_tick_ = s + 1;
        const bool acted = !engine_.actions().empty();
        Drain();
        if (acted && request.stop_at_action) break;
      }
      break;
    case Op::kRoundBegin:
      engine_.BeginUsageRound(samples);
      round_open_ = true;
      Drain();
      break;
    case Op::kRoundNode:
      engine_.ObserveNodeUsage(node, samples);
      Drain();
      break;
    case Op::kRoundEnd:
      engine_.EndUsageRound();
      round_open_ = false;
      Drain();
      break;
  }
  nlohmann::json actions = nlohmann::json::array();
  auto first = std::upper_bound(actions_.begin(), actions_.end(), first_seq,
                                [](int64_t seq, const ActionRecord& r) { return seq < r.seq; });
  for (; first != actions_.end(); ++first) actions.push_back(first->body);
  return {200, {{"time", engine_.now()}, {"lastSeq", last_seq_}, {"actions", std::move(actions)}}};
}

// --- Profiles.

Reply ControlPlane::PutPriors(const Event& event) {
  PriorsRequest request = DecodePriors(event.body);
  Commit(event);
  priors_ = PriorsJson(request.profiles, request.task_shapes, engine_.now(), "request");
  task_shapes_ = request.task_shapes;
  engine_.SetPriors(std::move(request.profiles), std::move(request.task_shapes));
  Drain();
  return {200, priors_};
}

void ControlPlane::AdoptLearnedProfiles() {
  if (options_.adopt_profiles_s <= 0 || engine_.now() < next_adoption_) return;
  next_adoption_ = (engine_.now() / options_.adopt_profiles_s + 1) * options_.adopt_profiles_s;
  if (profiler_.samples() == 0) return;
  // The shapes asked for so far: the live services' replicas and every job's tasks.
  ShapeCounts counts;
  for (const auto& [name, service] : services_) {
    counts[service.spec.requests.amount] += service.spec.replicas;
  }
  for (const JobRecord& record : jobs_) {
    if (record.rejected.empty()) counts[record.job.task_requests.amount] += record.job.tasks;
  }
  task_shapes_ = MostFrequentShapes(counts);
  ProfileSet learned = profiler_.Finish();
  priors_ = PriorsJson(learned, task_shapes_, engine_.now(), "learned");
  engine_.SetPriors(std::move(learned), task_shapes_);
  Drain();
}

namespace {

std::array<double, kNumDims> Amounts(const Resources& r) {
  std::array<double, kNumDims> out{};
  for (int d = 0; d < kNumDims; ++d) out[d] = static_cast<double>(r.amount[d]);
  return out;
}

const std::string& AppOf(const Service& spec, const std::string& name) {
  return spec.app.empty() ? name : spec.app;
}

}  // namespace

void ControlPlane::ProfileService(const Service& spec, const std::string& name) {
  profiler_.SetRequest(AppOf(spec, name), Amounts(spec.requests), spec.replicas);
  profiler_.SetLimit(AppOf(spec, name), Amounts(spec.limits));
}

void ControlPlane::ProfileNode(const Node& node) {
  for (int d = 0; d < kNumDims; ++d) {
    largest_node_[d] = std::max(largest_node_[d], static_cast<double>(node.capacity.amount[d]));
  }
  profiler_.SetLargestNode(largest_node_);
}

void ControlPlane::ProfileUsage(ContainerId id, const Usage& usage) {
  const Container& c = engine_.cluster().container(id);
  if (c.kind != OwnerKind::kService) return;
  const std::string& name = service_names_[c.owner];
  const auto service = services_.find(name);
  if (service == services_.end()) return;
  profiler_.Add(engine_.now(), AppOf(service->second.spec, name), containers_[id].name, usage);
}

const nlohmann::json& ControlPlane::BuiltProfiles() const {
  const bool fresh = profiles_samples_ == profiler_.samples();
  const bool due = profiles_samples_ < 0 ||
                   (!fresh && engine_.now() >= profiles_built_at_ + options_.usage_round_s);
  if (due) {
    profiles_ = ProfilesJson(profiler_.Finish());
    profiles_built_at_ = engine_.now();
    profiles_samples_ = profiler_.samples();
  }
  return profiles_;
}

nlohmann::json ControlPlane::Profiles() const {
  nlohmann::json out = BuiltProfiles();
  out["kind"] = "ProfileList";
  out["builtAt"] = profiles_built_at_;
  out["samples"] = profiles_samples_;
  return out;
}

nlohmann::json ControlPlane::Profile(const std::string& app) const {
  const nlohmann::json& built = BuiltProfiles();
  for (const nlohmann::json& a : built["applications"]) {
    if (a["app"] != app) continue;
    nlohmann::json warnings = nlohmann::json::array();
    for (const nlohmann::json& w : built["warnings"]) {
      if (w["app"] == app) warnings.push_back(w);
    }
    nlohmann::json klass;
    for (const nlohmann::json& c : built["classes"]) {
      if (c["id"] == a["class"]) klass = c;
    }
    return {{"kind", "Profile"},
            {"builtAt", profiles_built_at_},
            {"application", a},
            {"class", std::move(klass)},
            {"warnings", std::move(warnings)}};
  }
  throw NotFound("no profile of application \"" + app +
                 "\": no usage of its replicas was reported before the last build, at " +
                 std::to_string(profiles_built_at_) + " s (one at most per usage round)");
}

void ControlPlane::RunUsageRound() {
  const ClusterState& state = engine_.cluster();
  fleet_samples_.clear();
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    if (!state.ready(n)) continue;
    for (ContainerId id : state.containers_on(n)) {
      if (state.container(id).kind == OwnerKind::kService && containers_[id].has_usage) {
        fleet_samples_.push_back(containers_[id].usage);
      }
    }
  }
  engine_.BeginUsageRound(fleet_samples_);
  Drain();
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    if (!state.ready(n)) continue;
    node_samples_.clear();
    for (ContainerId id : state.containers_on(n)) {
      if (containers_[id].has_usage) node_samples_.push_back(containers_[id].usage);
    }
    engine_.ObserveNodeUsage(n, node_samples_);
    Drain();
  }
  engine_.EndUsageRound();
  Drain();
  AdoptLearnedProfiles();
}

// --- Actions.

void ControlPlane::Drain() {
  for (const Action& a : engine_.actions()) {
    const int64_t seq = ++last_seq_;
    ++counts_.by_kind[static_cast<size_t>(a.kind)];
    switch (a.kind) {
      case ActionKind::kBind:
      case ActionKind::kStartTask:
      case ActionKind::kMigrate: {
        if (containers_.size() <= static_cast<size_t>(a.container)) {
          containers_.resize(a.container + 1);
        }
        // An engine id is reused once its container ended, maybe without an action (a failure).
        if (!containers_[a.container].name.empty()) {
          container_ids_.erase(containers_[a.container].name);
        }
        const std::string owner =
            a.kind == ActionKind::kStartTask ? jobs_[a.job].job.name : service_names_[a.service];
        containers_[a.container] = {.name = owner + "-" + std::to_string(seq)};
        container_ids_[containers_[a.container].name] = a.container;
        break;
      }
      case ActionKind::kReportLate:
        jobs_[a.job].late_tasks = a.tasks;
        jobs_[a.job].expected_start = a.expected_start;
        break;
      case ActionKind::kReject:
        jobs_[a.job].rejected = a.message;
        break;
      case ActionKind::kEvict:
      case ActionKind::kStop:
      case ActionKind::kThrottle:
      case ActionKind::kScaleOut:
        break;
    }
    Publish(a, seq);
  }
  engine_.ClearActions();
}

void ControlPlane::Publish(const Action& a, int64_t seq) {
  nlohmann::json body = ActionJson(a, seq);
  if (a.node >= 0 && a.kind != ActionKind::kReportLate && a.kind != ActionKind::kReject &&
      a.kind != ActionKind::kScaleOut) {
    node_actions_[a.node].push_back({seq, body});
  }
  actions_.push_back({seq, std::move(body)});
  if (a.kind == ActionKind::kEvict || a.kind == ActionKind::kStop) {
    container_ids_.erase(containers_[a.container].name);
    containers_[a.container] = {};
  }
}

nlohmann::json ControlPlane::ActionJson(const Action& a, int64_t seq) const {
  nlohmann::json out = {{"seq", seq}, {"kind", ActionKindName(a.kind)}, {"time", engine_.now()}};
  // The engine's own numbers, exact, for a driver that mirrors its view (archimedes replay).
  nlohmann::json engine = nlohmann::json::object();
  if (a.node >= 0) out["node"] = node_names_[a.node];
  if (a.container >= 0) {
    out["container"] = containers_[a.container].name;
    engine["containerId"] = a.container;
  }
  if (a.service >= 0) out["service"] = service_names_[a.service];
  if (a.job >= 0) out["job"] = jobs_[a.job].job.name;
  switch (a.kind) {
    case ActionKind::kBind:
    case ActionKind::kMigrate:
    case ActionKind::kStartTask: {
      const Container& c = engine_.cluster().container(a.container);
      out["requests"] = EncodeResources(c.requests);
      engine["replica"] = c.index;
      engine["priority"] = c.priority;
      engine["startTime"] = c.start_time;
      engine["requests"] = c.requests.amount;
      if (a.kind == ActionKind::kStartTask) {
        const JobRecord& job = jobs_[a.job];
        out["function"] = job.job.function;
        out["limits"] = EncodeResources(TaskLimits(job.job.task_requests, job.limits));
        engine["firstStart"] = a.first_start;
        break;
      }
      const ServiceRecord& service = services_.at(service_names_[a.service]);
      out["limits"] = EncodeResources(service.spec.limits);
      if (!service.command.empty()) out["command"] = service.command;
      if (a.kind == ActionKind::kMigrate) {
        out["replaces"] = containers_[a.replaced].name;
        out["trigger"] = MigrationTriggerName(a.trigger);
        engine["replacesId"] = a.replaced;
      }
      break;
    }
    case ActionKind::kEvict:
      out["reason"] = EvictReasonName(a.reason);
      // The victim's key in the SLA order (sched/sla_contract.h) as the engine chose it: an agent
      // or operator can tell why this container went before the others on the node. Nothing
      // chose among the containers of a failed node.
      if (a.reason == EvictReason::kNodeFailed) break;
      out["sla"] = {{"kind", a.sla.kind == OwnerKind::kService ? "Service" : "Task"},
                    {"priority", a.sla.priority},
                    {"loss", a.sla.loss},
                    {"startTime", a.sla.start_time}};
      break;
    case ActionKind::kThrottle:
      out["limits"] = {{"cpu", FormatMilli(static_cast<int64_t>(a.limits.cpu))},
                       {"serverlessFirst", a.limits.serverless_first},
                       {"ioThrottle", a.limits.io_throttle}};
      engine["cpu"] = a.limits.cpu;
      break;
    case ActionKind::kScaleOut:
      out["replicas"] = a.replicas;
      break;
    case ActionKind::kReportLate:
      out["tasks"] = a.tasks;
      out["expectedStart"] = a.expected_start;
      break;
    case ActionKind::kReject:
      out["message"] = a.message;
      break;
    case ActionKind::kStop:
      break;
  }
  if (!engine.empty()) out["engine"] = std::move(engine);
  return out;
}

nlohmann::json ControlPlane::NodeActions(const std::string& name, int64_t after, int limit) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) throw NotFound("node \"" + name + "\" was never added");
  const std::deque<ActionRecord>& log = node_actions_[it->second.id];
  auto first = std::upper_bound(log.begin(), log.end(), after,
                                [](int64_t seq, const ActionRecord& r) { return seq < r.seq; });
  const int64_t stored = stored_seq();
  nlohmann::json items = nlohmann::json::array();
  for (; first != log.end() && first->seq <= stored && static_cast<int>(items.size()) < limit;
       ++first) {
    items.push_back(first->body);
  }
  return {{"items", std::move(items)}, {"lastSeq", stored}};
}

nlohmann::json ControlPlane::FleetActions(int64_t after, int limit) {
  auto first = std::upper_bound(actions_.begin(), actions_.end(), after,
                                [](int64_t seq, const ActionRecord& r) { return seq < r.seq; });
  const int64_t stored = stored_seq();
  nlohmann::json items = nlohmann::json::array();
  for (; first != actions_.end() && first->seq <= stored && static_cast<int>(items.size()) < limit;
       ++first) {
    items.push_back(first->body);
  }
  return {{"items", std::move(items)}, {"lastSeq", stored}};
}

// --- Reads.

const ControlPlane::NodeRecord& ControlPlane::FindNode(const std::string& name) const {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.removed) throw NotFound("no node \"" + name + "\"");
  return it->second;
}

const ControlPlane::ServiceRecord& ControlPlane::FindService(const std::string& name) const {
  auto it = services_.find(name);
  if (it == services_.end()) throw NotFound("no service \"" + name + "\"");
  return it->second;
}

int32_t ControlPlane::FindJob(const std::string& name) const {
  const std::string_view prefix = kJobPrefix;
  int64_t id = -1;
  if (name.starts_with(prefix) && name.size() > prefix.size() && name.size() < prefix.size() + 10 &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    id = std::stoll(name.substr(prefix.size()));
  }
  if (id < 0 || id >= static_cast<int64_t>(jobs_.size())) {
    throw NotFound("no job \"" + name + "\"");
  }
  return static_cast<int32_t>(id);
}

ContainerId ControlPlane::FindContainer(const std::string& name) const {
  auto it = container_ids_.find(name);
  if (it == container_ids_.end() || !engine_.cluster().alive(it->second) ||
      containers_[it->second].name != name) {
    throw NotFound("no running container \"" + name + "\" (it may have ended)");
  }
  return it->second;
}

nlohmann::json ControlPlane::NodeJson(const std::string& name, const NodeRecord& r) const {
  const ClusterState& state = engine_.cluster();
  const Node& node = state.node(r.id);
  const std::string condition = r.removed ? "Removed" : NodeStateName(StateOf(r));
  // What its containers use: the sum of the usage last reported for each (rounded to the units).
  Resources usage;
  for (ContainerId id : state.containers_on(r.id)) {
    if (!containers_[id].has_usage) continue;
    for (int d = 0; d < kNumDims; ++d) {
      usage.amount[d] += std::llround(containers_[id].usage.usage[d]);
    }
  }
  nlohmann::json spec = EncodeNodeSpec(node);
  if (!r.address.empty()) {
    spec["address"] = r.address;
    spec["probe"] = r.probe;
  }
  // Keys DecodeNodeStatus reads back unchanged: a node read and sent to its status.
  nlohmann::json status = {{"condition", condition},
                           {"requested", EncodeResources(state.requested(r.id))},
                           {"taskRequested", EncodeResources(state.task_requested(r.id))},
                           {"usage", EncodeResources(usage)},
                           {"containers", state.containers_on(r.id).size()}};
  if (!r.reason.empty()) status["reason"] = r.reason;
  return {{"apiVersion", kApiVersion},
          {"kind", "Node"},
          {"metadata", Metadata(name, r.version, node.labels)},
          {"spec", spec},
          {"status", status}};
}

// `status.lastTermination` and `status.terminations`, once a container of the owner ended badly.
void ControlPlane::AddTermination(const Termination& t, nlohmann::json& status) {
  if (t.count == 0) return;
  status["terminations"] = t.count;
  status["lastTermination"] = {{"container", t.container},
                               {"reason", t.reason},
                               {"exitCode", t.exit_code},
                               {"time", t.time}};
}

nlohmann::json ControlPlane::ServiceJson(const std::string& name, const ServiceRecord& r) const {
  const ServiceStatus status = engine_.service_status(r.id);
  nlohmann::json replicas = nlohmann::json::array();
  int running = 0;
  for (ContainerId id : status.replicas) {
    const bool up = containers_[id].running;
    running += up;
    replicas.push_back({{"name", containers_[id].name},
                        {"node", node_names_[engine_.cluster().container(id).node]},
                        {"state", up ? "Running" : "Starting"}});
  }
  nlohmann::json out = {{"apiVersion", kApiVersion},
                        {"kind", "Service"},
                        {"metadata", Metadata(name, r.version, r.labels)},
                        {"spec", EncodeServiceSpec(r.spec, r.command)},
                        {"status",
                         {{"desired", status.desired + status.extra},
                          {"healthExtra", status.extra},
                          {"placed", status.replicas.size()},
                          {"running", running},
                          {"replicas", std::move(replicas)}}}};
  AddTermination(r.terminated, out["status"]);
  return out;
}

std::string ControlPlane::JobPhase(int32_t id) const { return JobPhase(id, engine_.plan_of(id)); }

std::string ControlPlane::JobPhase(int32_t id, std::span<const PlannedTask> places) const {
  const JobRecord& r = jobs_[id];
  const JobStatus s = engine_.job_status(id);
  if (!r.rejected.empty()) return "Failed";
  if (s.finished == r.job.tasks) return "Succeeded";
  if (s.running > 0) return "Running";
  if (s.pending > 0) {
    if (r.late_tasks > 0) return "Late";
    return places.empty() ? "Queued" : "Planned";
  }
  return "Failed";
}

nlohmann::json ControlPlane::JobJson(int32_t id) const { return JobJson(id, engine_.plan_of(id)); }

nlohmann::json ControlPlane::JobJson(int32_t id, std::span<const PlannedTask> places) const {
  const JobRecord& r = jobs_[id];
  const JobStatus s = engine_.job_status(id);
  const std::string phase = JobPhase(id, places);
  nlohmann::json status = {{"phase", phase},
                           {"tasks",
                            {{"pending", s.pending},
                             {"running", s.running},
                             {"succeeded", s.finished},
                             {"failed", s.failed},
                             {"everStarted", s.first_started}}},
                           {"submitTime", r.submitted},
                           {"giveUpTime", r.give_up_at}};
  AddTermination(r.terminated, status);
  if (!r.rejected.empty()) {
    status["reason"] = "Rejected";
    status["message"] = r.rejected;
  } else if (phase == "Failed") {
    status["reason"] = r.cancelled ? "Cancelled" : "GaveUp";
    status["message"] =
        !r.cancelled ? std::to_string(s.failed) + " task(s) could not start before the give-up time"
        : r.labels.count("archimedes.io/pod-uid") > 0
            ? "cancelled: its Kubernetes pod ended or was deleted"
            : "cancelled by a DELETE";
  } else if (phase == "Late") {
    status["reason"] = "ToleranceExceeded";
    status["message"] = std::to_string(r.late_tasks) +
                        " task(s) cannot start within the delay "
                        "tolerance of " +
                        FormatDuration(r.job.delay_tolerance_s);
    if (r.expected_start >= 0) status["expectedStart"] = r.expected_start;
  }
  if (!places.empty()) {
    nlohmann::json planned = nlohmann::json::array();
    for (const PlannedTask& p : places) {
      planned.push_back({{"node", node_names_[p.node]}, {"start", p.start}, {"end", p.end}});
    }
    status["plannedStart"] = places.front().start;
    status["planned"] = std::move(planned);
  }
  return {{"apiVersion", kApiVersion},
          {"kind", "Job"},
          {"metadata", Metadata(r.job.name, r.version, r.labels)},
          {"spec", EncodeJobSpec(r.job, r.give_up_after_s, r.limits)},
          {"status", std::move(status)}};
}

nlohmann::json ControlPlane::ListNodes() const {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& [name, record] : nodes_) {
    if (!record.removed) items.push_back(NodeJson(name, record));
  }
  return {{"kind", "NodeList"}, {"items", std::move(items)}};
}

nlohmann::json ControlPlane::GetNode(const std::string& name) const {
  return NodeJson(name, FindNode(name));
}

nlohmann::json ControlPlane::ListServices() const {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& [name, record] : services_) items.push_back(ServiceJson(name, record));
  return {{"kind", "ServiceList"}, {"items", std::move(items)}};
}

nlohmann::json ControlPlane::GetService(const std::string& name) const {
  return ServiceJson(name, FindService(name));
}

nlohmann::json ControlPlane::ListJobs(const std::string& phase) const {
  static const std::vector<std::string> kPhases = {"Queued", "Planned",   "Running",
                                                   "Late",   "Succeeded", "Failed"};
  if (!phase.empty() && std::find(kPhases.begin(), kPhases.end(), phase) == kPhases.end()) {
    throw BadRequest("phase \"" + phase +
                         "\" is not one of Queued, Planned, Running, Late, Succeeded, "
                         "Failed",
                     "phase");
  }
  const std::vector<PlannedTask> plan = engine_.plan();
  nlohmann::json items = nlohmann::json::array();
  for (int32_t id = 0; id < static_cast<int32_t>(jobs_.size()); ++id) {
    const std::span<const PlannedTask> places = PlacesOf(plan, id);
    if (phase.empty() || JobPhase(id, places) == phase) items.push_back(JobJson(id, places));
  }
  return {{"kind", "JobList"}, {"items", std::move(items)}};
}

nlohmann::json ControlPlane::Plan(const std::string& node) const {
  const NodeId only = node.empty() ? -1 : FindNode(node).id;
  std::vector<PlannedTask> plan = engine_.plan();
  std::stable_sort(plan.begin(), plan.end(),
                   [](const PlannedTask& a, const PlannedTask& b) { return a.start < b.start; });
  nlohmann::json items = nlohmann::json::array();
  for (const PlannedTask& p : plan) {
    if (only >= 0 && p.node != only) continue;
    items.push_back({{"job", jobs_[p.job].job.name},
                     {"node", node_names_[p.node]},
                     {"start", p.start},
                     {"end", p.end},
                     {"late", p.late}});
  }
  return {{"kind", "Plan"}, {"time", engine_.now()}, {"items", std::move(items)}};
}

nlohmann::json ControlPlane::GetJob(const std::string& name) const {
  return JobJson(FindJob(name));
}

nlohmann::json ControlPlane::Sla(const std::string& kind) const {
  if (!kind.empty() && kind != "service" && kind != "job") {
    throw BadRequest("kind \"" + kind + "\" is not one of service, job", "kind");
  }
  nlohmann::json items = nlohmann::json::array();
  if (kind != "job") {
    for (const auto& [name, record] : services_) {
      const SlaRecord sla = engine_.service_sla(record.id);
      items.push_back(
          {{"kind", "Service"},
           {"name", name},
           {"target",
            {{"availability", sla.target}, {"minAvailable", record.spec.sla.min_available}}},
           {"achieved", {{"availability", sla.achieved}}},
           {"honoured", sla.honoured},
           {"breaches", BreachesJson(sla.breaches)}});
    }
  }
  if (kind != "service") {
    for (int32_t id = 0; id < static_cast<int32_t>(jobs_.size()); ++id) {
      const SlaRecord sla = engine_.job_sla(id);
      items.push_back(
          {{"kind", "Job"},
           {"name", jobs_[id].job.name},
           {"target", {{"delayTolerance", FormatDuration(static_cast<int64_t>(sla.target))}}},
           {"achieved", {{"longestWait", FormatDuration(static_cast<int64_t>(sla.achieved))}}},
           {"honoured", sla.honoured},
           {"breaches", BreachesJson(sla.breaches)}});
    }
  }
  return {{"kind", "SlaReport"}, {"time", engine_.now()}, {"items", std::move(items)}};
}

std::array<std::array<int64_t, 2>, 2> ControlPlane::SlaCounts() const {
  std::array<std::array<int64_t, 2>, 2> counts{};
  for (const auto& [name, record] : services_) {
    ++counts[0][engine_.service_sla(record.id).honoured ? 0 : 1];
  }
  for (int32_t id = 0; id < static_cast<int32_t>(jobs_.size()); ++id) {
    ++counts[1][engine_.job_sla(id).honoured ? 0 : 1];
  }
  return counts;
}

std::array<int64_t, 2> ControlPlane::PendingTasksByKind() const {
  std::array<int64_t, 2> pending{};
  for (int32_t id = 0; id < static_cast<int32_t>(jobs_.size()); ++id) {
    pending[jobs_[id].job.type == JobType::kServerless ? 0 : 1] += engine_.job_status(id).pending;
  }
  return pending;
}

std::array<double, kNumDims> ControlPlane::ReportedUsage() const {
  std::array<double, kNumDims> total{};
  for (ContainerId id = 0; id < static_cast<ContainerId>(containers_.size()); ++id) {
    if (!containers_[id].has_usage || !engine_.cluster().alive(id)) continue;
    for (int d = 0; d < kNumDims; ++d) total[d] += containers_[id].usage.usage[d];
  }
  return total;
}

std::map<std::string, int64_t> ControlPlane::JobsByPhase() const {
  std::map<std::string, int64_t> phases = {{"Queued", 0}, {"Planned", 0},   {"Running", 0},
                                           {"Late", 0},   {"Succeeded", 0}, {"Failed", 0}};
  const std::vector<PlannedTask> plan = engine_.plan();
  for (int32_t id = 0; id < static_cast<int32_t>(jobs_.size()); ++id) {
    ++phases[JobPhase(id, PlacesOf(plan, id))];
  }
  return phases;
}

}  // namespace archimedes
