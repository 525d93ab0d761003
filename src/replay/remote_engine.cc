#include "replay/remote_engine.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "server/objects.h"

namespace archimedes {
namespace {

constexpr char kJobPrefix[] = "job-";

ActionKind KindNamed(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(ActionKind::kReject); ++k) {
    if (ActionKindName(static_cast<ActionKind>(k)) == name) return static_cast<ActionKind>(k);
  }
  throw ReplayError("the server sent an action of unknown kind \"" + name + "\"");
}

EvictReason ReasonNamed(const std::string& name) {
  for (int r = 0; r <= static_cast<int>(EvictReason::kNodeFailed); ++r) {
    if (EvictReasonName(static_cast<EvictReason>(r)) == name) return static_cast<EvictReason>(r);
  }
  throw ReplayError("the server sent an eviction of unknown reason \"" + name + "\"");
}

MigrationTrigger TriggerNamed(const std::string& name) {
  for (int t = 0; t <= static_cast<int>(MigrationTrigger::kPredictedBreach); ++t) {
    if (MigrationTriggerName(static_cast<MigrationTrigger>(t)) == name) {
      return static_cast<MigrationTrigger>(t);
    }
  }
  throw ReplayError("the server sent a migration of unknown trigger \"" + name + "\"");
}

int32_t JobId(const std::string& name) {
  if (!name.starts_with(kJobPrefix)) throw ReplayError("the server named a job \"" + name + "\"");
  return std::stoi(name.substr(sizeof(kJobPrefix) - 1));
}

}  // namespace

RemoteEngine::RemoteEngine(const std::string& url, const Policy& policy, const Scenario& scenario,
                           RemoteOptions options)
    : client_(std::make_unique<httplib::Client>(url)),
      url_(url),
      workload_(scenario.workload),
      state_({}, policy.traits.batch_accounting),
      pace_s_(options.pace_s) {
  if (!client_->is_valid()) throw ReplayError("--server \"" + url + "\" is not an http:// URL");
  client_->set_read_timeout(300, 0);
  client_->set_keep_alive(true);
  client_->set_tcp_nodelay(true);
  const nlohmann::json server = Call("GET", "/v1/server");
  auto mismatch = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    if (theirs != ours) {
      throw ReplayError("the server at " + url + " runs with " + what + " " + theirs +
                        ", the replay needs " + ours + " (start it with --" + what + " " + ours +
                        ")");
    }
  };
  mismatch("clock", server.at("clock").get<std::string>(), "virtual");
  mismatch("policy", server.at("policy").get<std::string>(), policy.name);
  mismatch("buffer", server.at("buffer").get<std::string>(),
           policy.keeps_buffer ? nlohmann::json(policy.buffer).dump() : "none");
  mismatch("seed", std::to_string(server.at("seed").get<uint64_t>()), std::to_string(options.seed));
  mismatch("cycle", server.at("cycle").get<std::string>(), std::to_string(options.cycle_s) + "s");
  const nlohmann::json clock = Call("GET", "/v1/clock");
  if (clock.at("time").get<int64_t>() != 0 || clock.at("lastSeq").get<int64_t>() != 0 ||
      !Call("GET", "/v1/nodes").at("items").empty()) {
    throw ReplayError("the server at " + url +
                      " is not fresh (its clock or its fleet moved): start it on an empty "
                      "--data folder");
  }
  if (options.priors != nullptr) {
    Call("PUT", "/v1/priors", EncodePriors(options.priors->profiles, options.priors->task_shapes));
  }
  for (const Node& node : scenario.nodes) AddNode(node);
  for (size_t s = 0; s < workload_.services.size(); ++s) {
    service_ids_[workload_.services[s].name] = static_cast<int32_t>(s);
    PutService(static_cast<int32_t>(s), 0);
  }
  FetchActions();
}

httplib::Result RemoteEngine::Send(const std::string& method, const std::string& path,
                                   const std::string& text) const {
  ++requests_;
  httplib::Result result = method == "GET"   ? client_->Get(path)
                           : method == "PUT" ? client_->Put(path, text, "application/json")
                                             : client_->Post(path, text, "application/json");
  if (!result) {
    throw ReplayError(method + " " + url_ + path + ": " + httplib::to_string(result.error()));
  }
  if (result->status / 100 != 2) {
    throw ReplayError(method + " " + path + " answered " + std::to_string(result->status) + ": " +
                      result->body);
  }
  return result;
}

nlohmann::json RemoteEngine::Call(const std::string& method, const std::string& path,
                                  const nlohmann::json& body) const {
  return nlohmann::json::parse(Send(method, path, body.is_null() ? "" : body.dump())->body);
}

EngineStats RemoteEngine::stats() const {
  const std::string text = Send("GET", "/metrics", "")->body;
  auto value = [&](const std::string& sample) {
    const size_t at = text.find("\n" + sample + " ");
    if (at == std::string::npos) throw ReplayError("/metrics has no " + sample);
    return std::stod(text.substr(at + sample.size() + 2));
  };
  auto micros = [&](const std::string& name, const char* quantile) {
    return value(name + "{quantile=\"" + quantile + "\"}") * 1e6;
  };
  const std::string decision = "archimedes_decision_latency_seconds";
  const std::string plan = "archimedes_planner_latency_seconds";
  const std::string replan = "archimedes_replan_latency_seconds";
  return {.decision_p50_us = micros(decision, "0.5"),
          .decision_p99_us = micros(decision, "0.99"),
          .decisions = static_cast<int64_t>(value(decision + "_count")),
          .plan_p50_us = micros(plan, "0.5"),
          .plan_p99_us = micros(plan, "0.99"),
          .plans = static_cast<int64_t>(value(plan + "_count")),
          .replan_p50_us = micros(replan, "0.5"),
          .replan_p99_us = micros(replan, "0.99"),
          .replans = static_cast<int64_t>(value(replan + "_count"))};
}

nlohmann::json RemoteEngine::Drive(const nlohmann::json& body) {
  nlohmann::json reply = Call("POST", "/v1/clock/drive", body);
  for (const nlohmann::json& action : reply.at("actions")) Take(action);
  now_ = reply.at("time").get<int64_t>();
  Changed();
  return reply;
}

void RemoteEngine::FetchActions() {
  while (true) {
    const nlohmann::json page = Call("GET", "/v1/actions?after=" + std::to_string(last_seq_));
    if (page.at("items").empty()) return;
    for (const nlohmann::json& action : page.at("items")) Take(action);
  }
}

void RemoteEngine::Take(const nlohmann::json& in) {
  const int64_t seq = in.at("seq").get<int64_t>();
  if (seq <= last_seq_) return;  // already taken
  last_seq_ = seq;
  Action a{.kind = KindNamed(in.at("kind").get<std::string>())};
  const nlohmann::json engine = in.value("engine", nlohmann::json::object());
  if (in.contains("node")) a.node = node_ids_.at(in.at("node").get<std::string>());
  if (in.contains("service")) a.service = service_ids_.at(in.at("service").get<std::string>());
  if (in.contains("job")) a.job = JobId(in.at("job").get<std::string>());
  if (engine.contains("containerId")) a.container = engine.at("containerId").get<ContainerId>();
  switch (a.kind) {
    case ActionKind::kBind:
    case ActionKind::kStartTask:
    case ActionKind::kMigrate: {
      const bool task = a.kind == ActionKind::kStartTask;
      Container c{.kind = task ? OwnerKind::kTask : OwnerKind::kService,
                  .owner = task ? a.job : a.service,
                  .index = engine.at("replica").get<int32_t>(),
                  .node = a.node,
                  .priority = engine.at("priority").get<int>(),
                  .start_time = engine.at("startTime").get<int64_t>()};
      c.requests.amount = engine.at("requests").get<std::array<int64_t, kNumDims>>();
      state_.AddWithId(a.container, c);
      if (container_names_.size() <= static_cast<size_t>(a.container)) {
        container_names_.resize(a.container + 1);
      }
      container_names_[a.container] = in.at("container").get<std::string>();
      container_ids_[container_names_[a.container]] = a.container;
      if (task) a.first_start = engine.at("firstStart").get<bool>();
      if (a.kind == ActionKind::kMigrate) {
        a.replaced = engine.at("replacesId").get<ContainerId>();
        a.trigger = TriggerNamed(in.at("trigger").get<std::string>());
      }
      break;
    }
    case ActionKind::kEvict:
    case ActionKind::kStop:
      if (a.kind == ActionKind::kEvict) a.reason = ReasonNamed(in.at("reason").get<std::string>());
      state_.Remove(a.container);
      container_ids_.erase(container_names_[a.container]);
      // What a failed node lost is the server's word to that node's agent; the engine ends those
      // containers without an action, and the world has already lost them.
      if (a.kind == ActionKind::kEvict && a.reason == EvictReason::kNodeFailed) return;
      break;
    case ActionKind::kThrottle:
      a.limits = {.cpu = engine.at("cpu").get<double>(),
                  .serverless_first = in.at("limits").at("serverlessFirst").get<bool>(),
                  .io_throttle = in.at("limits").at("ioThrottle").get<double>()};
      break;
    case ActionKind::kScaleOut:
      a.replicas = in.at("replicas").get<int>();
      break;
    case ActionKind::kReportLate:
      a.tasks = in.at("tasks").get<int>();
      a.expected_start = in.at("expectedStart").get<int64_t>();
      break;
    case ActionKind::kReject:
      a.message = in.at("message").get<std::string>();
      break;
  }
  actions_.push_back(std::move(a));
}

void RemoteEngine::Pace(int64_t now) {
  if (pace_s_ <= 0) return;
  if (paced_from_ < 0) {
    paced_from_ = now;
    paced_wall_ = std::chrono::steady_clock::now();
    return;
  }
  const double wall_s = static_cast<double>(now - paced_from_) / static_cast<double>(pace_s_);
  std::this_thread::sleep_until(paced_wall_ + std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                  std::chrono::duration<double>(wall_s)));
}

void RemoteEngine::AdvanceTo(int64_t now) {
  Pace(now);
  Drive({{"advanceTo", now}});
}

void RemoteEngine::Schedule() { Drive({{"runThrough", now_}}); }

int64_t RemoteEngine::RunQuiet(int64_t from, int64_t to, int64_t /*cycle_s: the server's*/) {
  if (from >= to) return to - 1;
  const auto time =
      Drive({{"runThrough", to - 1}, {"stopAtAction", true}}).at("time").get<int64_t>();
  Pace(time);
  return time;
}

NodeId RemoteEngine::AddNode(const Node& node) {
  Call("PUT", "/v1/nodes/" + node.name,
       {{"metadata", {{"labels", node.labels}}}, {"spec", EncodeNodeSpec(node)}});
  const NodeId id = state_.AddNode(node);
  node_ids_[node.name] = id;
  Changed();
  FetchActions();
  return id;
}

void RemoteEngine::FailNode(NodeId n) { SetCondition(n, NodeCondition::kNotReady); }

void RemoteEngine::RecoverNode(NodeId n) { SetCondition(n, NodeCondition::kReady); }

void RemoteEngine::SetCondition(NodeId n, NodeCondition condition) {
  const bool ready = condition == NodeCondition::kReady;
  Call("PUT", "/v1/nodes/" + state_.node(n).name + "/status",
       {{"status", {{"condition", ready ? "Ready" : "NotReady"}}}});
  FetchActions();  // first the node's losses, which empty it in this copy
  state_.SetCondition(n, condition);
  Changed();
}

void RemoteEngine::PutService(int32_t service, int replicas) {
  Service spec = workload_.services[service];
  spec.replicas = replicas;
  Call("PUT", "/v1/services/" + spec.name,
       {{"metadata", {{"labels", nlohmann::json::object()}}}, {"spec", EncodeServiceSpec(spec)}});
  Changed();
}

void RemoteEngine::ScaleService(int32_t service, int replicas) {
  PutService(service, replicas);
  FetchActions();
}

int32_t RemoteEngine::SubmitJob(const BatchJob& job, int64_t give_up_at) {
  const nlohmann::json reply = Call("POST", "/v1/jobs",
                                    {{"metadata", {{"labels", nlohmann::json::object()}}},
                                     {"spec", EncodeJobSpec(job, give_up_at - now_)}});
  const int32_t id = JobId(reply.at("metadata").at("name").get<std::string>());
  if (id != jobs_) {
    throw ReplayError("the server numbered job " + job.name + " " + std::to_string(id) + ", not " +
                      std::to_string(jobs_) + ": it has jobs the replay did not submit");
  }
  ++jobs_;
  Changed();
  FetchActions();
  return id;
}

void RemoteEngine::SetContainerPhase(ContainerId id, const std::string& phase) {
  const std::string name = container_names_.at(id);
  Call("POST", "/v1/containers/" + name + "/status", {{"phase", phase}});
  state_.Remove(id);
  container_ids_.erase(name);
  Changed();
  FetchActions();
}

void RemoteEngine::ContainerFinished(ContainerId id) { SetContainerPhase(id, "Succeeded"); }

void RemoteEngine::ContainerOomKilled(ContainerId id) { SetContainerPhase(id, "OOMKilled"); }

nlohmann::json RemoteEngine::Samples(std::span<const UsageSample> samples) const {
  nlohmann::json out = nlohmann::json::array();
  for (const UsageSample& s : samples) {
    out.push_back({{"container", container_names_.at(s.container)},
                   {"usage", s.usage},
                   {"workDone", s.work_done_s},
                   {"workTotal", s.work_total_s}});
  }
  return out;
}

void RemoteEngine::BeginUsageRound(std::span<const UsageSample> fleet) {
  Drive({{"usageRound", "begin"}, {"samples", Samples(fleet)}});
}

void RemoteEngine::ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples) {
  Drive({{"usageRound", "node"}, {"node", state_.node(n).name}, {"samples", Samples(samples)}});
}

void RemoteEngine::EndUsageRound() { Drive({{"usageRound", "end"}}); }

ServiceStatus RemoteEngine::service_status(int32_t service) const {
  if (!services_fresh_) {
    services_.assign(workload_.services.size(), {});
    const nlohmann::json list = Call("GET", "/v1/services");
    for (const nlohmann::json& item : list.at("items")) {
      ServiceView& view =
          services_.at(service_ids_.at(item.at("metadata").at("name").get<std::string>()));
      const nlohmann::json& status = item.at("status");
      view.extra = status.at("healthExtra").get<int>();
      view.desired = status.at("desired").get<int>() - view.extra;
      for (const nlohmann::json& replica : status.at("replicas")) {
        view.replicas.push_back(container_ids_.at(replica.at("name").get<std::string>()));
      }
    }
    services_fresh_ = true;
  }
  const ServiceView& view = services_.at(service);
  return {.desired = view.desired, .extra = view.extra, .replicas = view.replicas};
}

JobStatus RemoteEngine::job_status(int32_t job) const {
  if (!jobs_fresh_) {
    job_status_.assign(jobs_, {});
    const nlohmann::json list = Call("GET", "/v1/jobs");
    for (const nlohmann::json& item : list.at("items")) {
      const nlohmann::json& status = item.at("status");
      const nlohmann::json& tasks = status.at("tasks");
      job_status_.at(JobId(item.at("metadata").at("name").get<std::string>())) = {
          .pending = tasks.at("pending").get<int>(),
          .running = tasks.at("running").get<int>(),
          .finished = tasks.at("succeeded").get<int>(),
          .failed = tasks.at("failed").get<int>(),
          .first_started = tasks.at("everStarted").get<int>(),
          .rejected = status.value("reason", "") == "Rejected"};
    }
    jobs_fresh_ = true;
  }
  return job_status_.at(job);
}

}  // namespace archimedes
