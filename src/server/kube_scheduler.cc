#include "server/kube_scheduler.h"

#include <iostream>

#include "kube/fields.h"
#include "kube/kube_error.h"
#include "server/api_error.h"
#include "server/extender.h"
#include "server/kube_nodes.h"
#include "server/objects.h"

namespace archimedes {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kResyncPeriod{30};
constexpr std::chrono::seconds kMaxCallBackoff{60};
constexpr std::chrono::milliseconds kWorkPeriod{200};
constexpr int kActionsPerPage = 1000;
constexpr const char* kPodUidLabel = "archimedes.io/pod-uid";

void Log(const std::string& what) { std::cerr << "archimedes serve: kube: " << what << std::endl; }

// metadata.KEY of an object when it is a string, else "".
std::string MetadataString(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return "";
  const auto value = metadata->find(key);
  return value != metadata->end() && value->is_string() ? value->get<std::string>() : "";
}

std::string UidOf(const nlohmann::json& object) { return MetadataString(object, "uid"); }

// Namespaces and pod names are DNS subdomains: nothing in them needs escaping in a path.
std::string PodPath(const KubePod& pod, const std::string& subresource) {
  return "/api/v1/namespaces/" + pod.namespace_name + "/pods/" + pod.name + "/" + subresource;
}

}  // namespace

KubeScheduler::KubeScheduler(ApiContext& context, KubeApiLocation location)
    : context_(context),
      config_(context.config),
      client_(std::move(location), std::chrono::seconds(10)) {}

KubeScheduler::~KubeScheduler() { Stop(); }

void KubeScheduler::Start() {
  using Replace = void (KubeScheduler::*)(const std::vector<nlohmann::json>&);
  using Apply = void (KubeScheduler::*)(KubeWatchEvent::Type, const nlohmann::json&);
  const auto informer = [this](const char* resource, Replace replace, Apply apply) {
    return std::make_unique<KubeInformer>(
        client_, resource,
        KubeInformer::Handlers{
            .replace = [this, replace](
                           const std::vector<nlohmann::json>& items) { (this->*replace)(items); },
            .apply = [this, apply](KubeWatchEvent::Type type,
                                   const nlohmann::json& object) { (this->*apply)(type, object); },
            .observe = [this](const std::string& call,
                              int status) { context_.metrics.CountKubeRequest(call, status); }});
  };
  nodes_ = informer("/api/v1/nodes", &KubeScheduler::ReplaceNodes, &KubeScheduler::ApplyNode);
  pods_ = informer("/api/v1/pods", &KubeScheduler::ReplacePods, &KubeScheduler::ApplyPod);
  if (ApiContext::DecidedByQuorum(config_)) {
    leases_ = informer("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                       &KubeScheduler::ReplaceLeases, &KubeScheduler::ApplyLease);
    leases_->Start();
  }
  nodes_->Start();
  pods_->Start();
  worker_ = std::thread([this] { Work(); });
  Log("scheduling the pods of schedulerName " + config_.kube_scheduler_name + " on " +
      client_.url());
}

void KubeScheduler::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !worker_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  client_.Cancel();
  if (nodes_) nodes_->Stop();
  if (pods_) pods_->Stop();
  if (leases_) leases_->Stop();
  if (worker_.joinable()) worker_.join();
}

Reply KubeScheduler::Mutate(Event event, const std::set<int>& quiet) {
  const std::string what = event.target;
  try {
    return context_.Mutate(std::move(event));
  } catch (const ApiError& e) {
    // 503: not leading, or not restored yet; the resync makes it again.
    if (e.code() != 503 && quiet.count(e.code()) == 0) Log(what + ": " + e.what());
    return {e.code(), e.ToJson()};
  }
}

// --- Nodes.

void KubeScheduler::ReplaceNodes(const std::vector<nlohmann::json>& items) {
  std::map<std::string, nlohmann::json> listed;
  for (const nlohmann::json& item : items) {
    const std::string name = MetadataString(item, "name");
    if (!name.empty()) listed[name] = item;
  }
  {
    std::lock_guard lock(mu_);
    cluster_nodes_ = listed;
  }
  // Pods wait for the first list of nodes (below): a pod is judged against the fleet.
  const auto listed_now = [this] {
    {
      std::lock_guard lock(mu_);
      nodes_listed_ = true;
    }
    wake_.notify_all();
  };
  if (!Leading()) {
    listed_now();
    return;
  }
  for (const auto& [name, item] : listed) ApplyNode(KubeWatchEvent::Type::kModified, item);
  // The cluster's Nodes are the fleet: one it no longer has leaves it (drained).
  nlohmann::json fleet;
  try {
    fleet = context_.Read([](const ControlPlane& p) { return p.ListNodes(); });
  } catch (const ApiError&) {
    listed_now();
    return;
  }
  for (const nlohmann::json& node : fleet["items"]) {
    const std::string name = node["metadata"]["name"];
    if (listed.count(name) == 0) {
      Log("node " + name + " is not in the cluster: removed from the fleet");
      Mutate({.kind = EventKind::kDeleteNode, .target = name}, {404});
    }
  }
  listed_now();
}

void KubeScheduler::ApplyNode(KubeWatchEvent::Type type, const nlohmann::json& object) {
  const std::string name = MetadataString(object, "name");
  if (name.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (type == KubeWatchEvent::Type::kDeleted) {
      cluster_nodes_.erase(name);
    } else {
      cluster_nodes_[name] = object;
    }
  }
  if (!Leading()) return;
  if (type == KubeWatchEvent::Type::kDeleted) {
    Mutate({.kind = EventKind::kDeleteNode, .target = name}, {404});
    return;
  }
  try {
    RegisterKubeNode(context_, object);
  } catch (const KubeError& e) {
    Log("node " + name + " is not registered: " + e.what());
  } catch (const ApiError& e) {
    if (e.code() != 503) Log("node " + name + " is not registered: " + e.what());
  }
}

// --- Leases.

void KubeScheduler::ReplaceLeases(const std::vector<nlohmann::json>& items) {
  std::map<std::string, int64_t> renewed;
  for (const nlohmann::json& item : items) {
    try {
      const KubeLease lease = DecodeLease(item, "Lease");
      if (lease.renew_s >= 0) renewed[lease.node] = lease.renew_s;
    } catch (const KubeError& e) {
      Log(std::string("a node Lease is ignored: ") + e.what());
    }
  }
  std::lock_guard lock(context_.mu);
  context_.node_leases = std::move(renewed);
}

void KubeScheduler::ApplyLease(KubeWatchEvent::Type type, const nlohmann::json& object) {
  KubeLease lease;
  try {
    lease = DecodeLease(object, "Lease");
  } catch (const KubeError& e) {
    Log(std::string("a node Lease is ignored: ") + e.what());
    return;
  }
  std::lock_guard lock(context_.mu);
  if (type == KubeWatchEvent::Type::kDeleted || lease.renew_s < 0) {
    context_.node_leases.erase(lease.node);
  } else {
    context_.node_leases[lease.node] = lease.renew_s;
  }
}

// --- Pods.

bool KubeScheduler::Remember(const nlohmann::json& object) {
  KubePod pod;
  PodEntry seen;
  try {
    pod = DecodePod(object);
    const Field root(&object, "Pod");
    seen.phase = root.Get("status").Get("phase").String();
    seen.terminating = root.Get("metadata").Get("deletionTimestamp").present();
    for (const Field& status : root.Get("status").Get("containerStatuses").Items()) {
      const Field terminated = status.Get("state").Get("terminated");
      if (terminated.Get("reason").String() == "OOMKilled") seen.oom_killed = true;
      if (seen.exit_code == 0) seen.exit_code = terminated.Get("exitCode").Int();
    }
  } catch (const KubeError& e) {
    const std::string name = MetadataString(object, "name");
    Log("pod " +
        (name.empty() ? "without a name" : MetadataString(object, "namespace") + "/" + name) +
        " is ignored: " + e.what());
    return false;
  }
  if (pod.uid.empty()) return false;
  std::lock_guard lock(mu_);
  PodEntry& entry = entries_[pod.uid];
  entry.phase = seen.phase;
  entry.terminating = seen.terminating;
  entry.oom_killed = seen.oom_killed;
  entry.exit_code = seen.exit_code;
  entry.pod = std::move(pod);
  return true;
}

void KubeScheduler::ReplacePods(const std::vector<nlohmann::json>& items) {
  {
    std::unique_lock lock(mu_);
    wake_.wait(lock, [this] { return nodes_listed_ || stopping_; });
  }
  std::set<std::string> listed;
  for (const nlohmann::json& item : items) {
    if (Remember(item)) listed.insert(UidOf(item));
  }
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mu_);
    for (const auto& [uid, entry] : entries_) {
      if (listed.count(uid) == 0) gone.push_back(uid);
    }
  }
  for (const std::string& uid : gone) Gone(uid);
  for (const std::string& uid : listed) Sync(uid);
  {
    std::lock_guard lock(mu_);
    pods_listed_ = true;
  }
  wake_.notify_all();
}

void KubeScheduler::ApplyPod(KubeWatchEvent::Type type, const nlohmann::json& object) {
  if (type == KubeWatchEvent::Type::kDeleted) {
    Gone(UidOf(object));
  } else if (Remember(object)) {
    Sync(UidOf(object));
  }
}

void KubeScheduler::Sync(const std::string& uid) {
  PodEntry entry;
  {
    std::lock_guard lock(mu_);
    const auto it = entries_.find(uid);
    if (it == entries_.end()) return;
    entry = it->second;
  }
  if (!Leading() || entry.finished) return;
  if (entry.phase == "Succeeded" || entry.phase == "Failed") {
    Finish(entry, /*deleted=*/false);
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(uid); it != entries_.end()) it->second.finished = true;
    return;
  }
  const KubePod& pod = entry.pod;
  const bool ours = pod.scheduler_name == config_.kube_scheduler_name;
  if (entry.target.empty()) {
    std::string target;
    std::string refusal;
    bool batch = false;
    // Jobs carry no node constraints: a batch pod that has some is placed as a service, by
    // the filters that read them, rather than bound where they forbid.
    const bool constrained =
        !pod.service.node_selector.empty() || !pod.service.node_affinity.empty();
    if (ours && IsBatchPod(pod) && !constrained) {
      const auto [body, key] = BatchPodJob(pod);
      const Reply reply =
          Mutate({.kind = EventKind::kSubmitJob, .body = body, .idempotency_key = key}, {422});
      if (reply.status < 300) {
        target = reply.body["metadata"]["name"];
        batch = true;
      } else if (reply.status == 422) {
        refusal = reply.body.value("message", std::string("refused"));
      }
    } else if (ours || !pod.node_name.empty()) {
      // A pod another scheduler bound, or ours bound before a restart, holds its node; a pending
      // one of ours is the engine's to place.
      const auto [name, body] = PodService(pod, ours && pod.node_name.empty() ? "" : pod.node_name);
      const Reply reply =
          Mutate({.kind = EventKind::kPutService, .target = name, .body = body}, {422});
      if (reply.status < 300 || (reply.status == 422 && ServiceExists(name))) {
        // 422 for one that exists: ours under another shape, placed before the pod showed its
        // node.
        target = name;
      } else if (reply.status == 422) {
        refusal = reply.body.value("message", std::string("refused"));
      }
    }
    if (target.empty()) {
      std::lock_guard lock(mu_);
      const auto it = entries_.find(uid);
      if (it != entries_.end() && !refusal.empty() && it->second.refusal != refusal) {
        Log("pod " + PodKey(pod) + " cannot be scheduled: " + refusal);
        it->second.refusal = refusal;
      }
      return;
    }
    std::lock_guard lock(mu_);
    const auto it = entries_.find(uid);
    if (it == entries_.end()) return;
    it->second.target = entry.target = target;
    it->second.batch = entry.batch = batch;
    by_target_[target] = uid;
  }
  if (entry.phase != "Running" || entry.running_reported) return;
  std::string container;
  {
    std::lock_guard lock(mu_);
    const auto c = owner_container_.find(entry.target);
    if (c != owner_container_.end()) container = c->second;
  }
  if (container.empty()) return;
  const Reply reply = Mutate(
      {.kind = EventKind::kContainerStatus, .target = container, .body = R"({"phase": "Running"})"},
      {404, 422});
  if (reply.status == 503) return;
  std::lock_guard lock(mu_);
  if (auto it = entries_.find(uid); it != entries_.end()) it->second.running_reported = true;
}

void KubeScheduler::Gone(const std::string& uid) {
  PodEntry entry;
  {
    std::lock_guard lock(mu_);
    const auto it = entries_.find(uid);
    if (it == entries_.end()) return;
    entry = std::move(it->second);
    entries_.erase(it);
  }
  // Not leading: the resync of the next leader finds its engine object orphaned.
  if (!entry.finished && Leading()) Finish(entry, /*deleted=*/true);
}

void KubeScheduler::Finish(const PodEntry& entry, bool deleted) {
  if (entry.target.empty()) return;
  if (!entry.batch) {
    Mutate({.kind = EventKind::kDeleteService, .target = entry.target}, {404});
  } else {
    std::string container;
    {
      std::lock_guard lock(mu_);
      const auto c = owner_container_.find(entry.target);
      if (c != owner_container_.end()) container = c->second;
    }
    if (!deleted && !container.empty()) {
      nlohmann::json status = {{"phase", entry.phase}};
      if (entry.phase == "Failed") {
        if (entry.oom_killed) status["phase"] = "OOMKilled";
        status["exitCode"] = entry.exit_code;
      }
      Mutate({.kind = EventKind::kContainerStatus, .target = container, .body = status.dump()},
             {404});
      // The engine would run a failed task again; a pod never runs again (its Job's controller
      // makes a new pod, a new job here).
      if (entry.phase == "Failed") {
        Mutate({.kind = EventKind::kCancelJob, .target = entry.target}, {404});
      }
    } else {
      Mutate({.kind = EventKind::kCancelJob, .target = entry.target}, {404});
    }
  }
  std::lock_guard lock(mu_);
  by_target_.erase(entry.target);
}

// --- The worker.

void KubeScheduler::Work() {
  auto next_metrics = Clock::now() + std::chrono::seconds(config_.kube_metrics_s);
  auto next_resync = Clock::now() + kResyncPeriod;
  bool taken_over = false;  // since the pods were listed and this replica leads
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const bool ready = pods_listed_ && Leading();
    lock.unlock();
    if (!ready) taken_over = false;
    if (ready && !taken_over) {
      TakeOver();
      taken_over = true;
    }
    if (ready) {
      FollowActions();
      RunPendingCalls();
      if (config_.kube_metrics_s > 0 && Clock::now() >= next_metrics) {
        ReadMetrics();
        next_metrics = Clock::now() + std::chrono::seconds(config_.kube_metrics_s);
      }
      if (Clock::now() >= next_resync) {
        Resync();
        next_resync = Clock::now() + kResyncPeriod;
      }
    }
    lock.lock();
    wake_.wait_for(lock, kWorkPeriod, [this] { return stopping_; });
  }
}

bool KubeScheduler::ServiceExists(const std::string& name) {
  try {
    context_.Read([&](const ControlPlane& p) { return p.GetService(name); });
    return true;
  } catch (const ApiError&) {
    return false;
  }
}

std::string KubeScheduler::PodOf(const std::string& target, bool job) {
  {
    std::lock_guard lock(mu_);
    if (auto it = by_target_.find(target); it != by_target_.end()) return it->second;
  }
  try {
    const nlohmann::json object = context_.Read(
        [&](const ControlPlane& p) { return job ? p.GetJob(target) : p.GetService(target); });
    return object["metadata"].value("labels", nlohmann::json::object()).value(kPodUidLabel, "");
  } catch (const ApiError&) {
    return "";
  }
}

void KubeScheduler::FollowActions() {
  nlohmann::json page;
  try {
    page =
        context_.Read([this](ControlPlane& p) { return p.FleetActions(after_, kActionsPerPage); });
  } catch (const ApiError&) {
    return;
  }
  for (const nlohmann::json& action : page["items"]) {
    after_ = action["seq"];
    const std::string kind = action["kind"];
    const bool job = action.contains("job");
    const std::string target = action.value(job ? "job" : "service", "");
    const std::string container = action.value("container", "");
    if (target.empty()) continue;
    if (kind == "Bind" || kind == "StartTask" || kind == "Migrate") {
      std::lock_guard lock(mu_);
      container_owner_[container] = target;
      owner_container_[target] = container;
    } else if (kind == "Evict" || kind == "Stop") {
      std::lock_guard lock(mu_);
      container_owner_.erase(container);
    }
    if (kind != "Bind" && kind != "StartTask" && kind != "Migrate" && kind != "Evict") continue;
    const std::string uid = PodOf(target, job);
    if (uid.empty()) continue;
    PendingCall call{.evict = kind != "Bind" && kind != "StartTask",
                     .uid = uid,
                     .node = action.value("node", "")};
    if (kind == "Migrate") {
      call.why = "Archimedes moves it (" + action.value("trigger", std::string("migration")) +
                 "); a pod cannot move, its controller makes the replacement";
    } else if (kind == "Evict") {
      call.why = "Archimedes evicts it (" + action.value("reason", std::string("evicted")) + ")";
    }
    if (call.evict) {
      std::lock_guard lock(mu_);
      victims_[call.node].insert(uid);
    }
    const Outcome outcome = Call(call);
    if (outcome != Outcome::kDone) {
      call.due = Clock::now() + call.backoff;
      std::lock_guard lock(mu_);
      pending_calls_.push_back(std::move(call));
    }
  }
}

bool KubeScheduler::VictimsRemain(const std::string& node) {
  const auto victims = victims_.find(node);
  if (victims == victims_.end()) return false;
  std::erase_if(victims->second,
                [this](const std::string& uid) { return entries_.count(uid) == 0; });
  if (!victims->second.empty()) return true;
  victims_.erase(victims);
  return false;
}

KubeScheduler::Outcome KubeScheduler::Call(const PendingCall& call) {
  PodEntry entry;
  {
    std::lock_guard lock(mu_);
    const auto it = entries_.find(call.uid);
    // Gone, finished, or (for a binding) bound already: the cluster shows it done.
    if (it == entries_.end() || it->second.finished) return Outcome::kDone;
    if (call.evict && it->second.terminating) return Outcome::kDone;
    if (!call.evict && !it->second.pod.node_name.empty()) return Outcome::kDone;
    if (!call.evict && VictimsRemain(call.node)) return Outcome::kWait;
    entry = it->second;
  }
  const KubePod& pod = entry.pod;
  const std::string what = "pod " + PodKey(pod);
  if (!call.evict) {
    const KubeAnswer answer = client_.Post(
        PodPath(pod, "binding"), EncodeBinding(pod.namespace_name, pod.name, pod.uid, call.node));
    context_.metrics.CountKubeRequest("binding", answer.status);
    if (answer.ok()) {
      std::lock_guard lock(mu_);
      if (auto it = entries_.find(call.uid); it != entries_.end())
        it->second.pod.node_name = call.node;
      return Outcome::kDone;
    }
    if (answer.status == 0 || answer.status >= 500 || answer.status == 429) {
      Log(what + ": binding to " + call.node + ": " + answer.Describe() + "; retrying");
      return Outcome::kRetry;
    }
    // 409: bound already (the watch will show where); 404: gone.
    Log(what + ": binding to " + call.node + ": " + answer.Describe());
    return Outcome::kDone;
  }
  const KubeAnswer answer = client_.Post(PodPath(pod, "eviction"),
                                         EncodeEviction(pod.namespace_name, pod.name, pod.uid, -1));
  context_.metrics.CountKubeRequest("eviction", answer.status);
  if (answer.status == 0 || answer.status == 429 || answer.status >= 500) {
    // 429: a PodDisruptionBudget forbids it now.
    Log(what + ": eviction: " + answer.Describe() + "; retrying");
    return Outcome::kRetry;
  }
  if (answer.ok()) Log(what + " evicted: " + call.why);
  if (!answer.ok() && answer.status != 404) Log(what + ": eviction: " + answer.Describe());
  if (answer.ok() || answer.status == 404) {
    Finish(entry, /*deleted=*/true);
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(call.uid); it != entries_.end()) {
      it->second.terminating = true;
      it->second.finished = true;
    }
  }
  return Outcome::kDone;
}

void KubeScheduler::RunPendingCalls() {
  std::vector<PendingCall> due;
  {
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    for (auto it = pending_calls_.begin(); it != pending_calls_.end();) {
      if (it->due <= now) {
        due.push_back(std::move(*it));
        it = pending_calls_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (PendingCall& call : due) {
    const Outcome outcome = Call(call);
    if (outcome == Outcome::kDone) continue;
    if (outcome == Outcome::kRetry) call.backoff = std::min(call.backoff * 2, kMaxCallBackoff);
    call.due = Clock::now() + (outcome == Outcome::kWait ? std::chrono::seconds(1) : call.backoff);
    std::lock_guard lock(mu_);
    pending_calls_.push_back(std::move(call));
  }
}

void KubeScheduler::ReadMetrics() {
  const KubeAnswer answer = client_.Get("/apis/metrics.k8s.io/v1beta1/pods");
  context_.metrics.CountKubeRequest("metrics", answer.status);
  std::vector<PodUsage> usages;
  std::string problem;
  if (answer.ok()) {
    try {
      usages = DecodePodMetricsList(answer.body, "PodMetricsList");
    } catch (const KubeError& e) {
      problem = e.what();
    }
  } else {
    problem = answer.Describe();
  }
  if (!problem.empty()) {
    if (!metrics_failing_) {
      Log("metrics.k8s.io pods: " + problem + "; profiles learn no usage until it answers");
    }
    metrics_failing_ = true;
    return;
  }
  metrics_failing_ = false;
  nlohmann::json samples = nlohmann::json::array();
  {
    std::lock_guard lock(mu_);
    std::map<std::string, const PodEntry*> by_key;
    for (const auto& [uid, entry] : entries_) by_key[PodKey(entry.pod)] = &entry;
    for (const PodUsage& usage : usages) {
      const auto it = by_key.find(usage.namespace_name + "/" + usage.name);
      if (it == by_key.end() || !it->second->running_reported) continue;
      const auto c = owner_container_.find(it->second->target);
      if (c == owner_container_.end()) continue;
      samples.push_back({{"container", c->second}, {"usage", EncodeResources(usage.usage)}});
    }
  }
  if (samples.empty()) return;
  Mutate({.kind = EventKind::kUsage, .body = nlohmann::json{{"samples", samples}}.dump()}, {404});
}

void KubeScheduler::Resync() {
  std::vector<std::string> uids;
  {
    std::lock_guard lock(mu_);
    for (const auto& [uid, entry] : entries_) {
      if (!entry.finished && (entry.target.empty() || !entry.running_reported)) uids.push_back(uid);
    }
  }
  for (const std::string& uid : uids) Sync(uid);
}

void KubeScheduler::TakeOver() {
  std::vector<std::string> uids;
  std::map<std::string, nlohmann::json> nodes;
  {
    std::lock_guard lock(mu_);
    for (const auto& [uid, entry] : entries_) uids.push_back(uid);
    nodes = cluster_nodes_;
  }
  // What the informers saw while this replica did not lead; unchanged nodes are no-ops.
  for (const auto& [name, object] : nodes) ApplyNode(KubeWatchEvent::Type::kModified, object);
  for (const std::string& uid : uids) Sync(uid);
  // Engine objects of pods gone while no leader watched (a restart, a failover).
  nlohmann::json services, jobs;
  try {
    services = context_.Read([](const ControlPlane& p) { return p.ListServices(); });
    jobs = context_.Read([](const ControlPlane& p) { return p.ListJobs(""); });
  } catch (const ApiError&) {
    return;
  }
  const auto orphaned = [this](const nlohmann::json& object) {
    const std::string uid =
        object["metadata"].value("labels", nlohmann::json::object()).value(kPodUidLabel, "");
    std::lock_guard lock(mu_);
    return !uid.empty() && entries_.count(uid) == 0;
  };
  for (const nlohmann::json& s : services["items"]) {
    if (orphaned(s))
      Mutate({.kind = EventKind::kDeleteService, .target = s["metadata"]["name"]}, {404});
  }
  for (const nlohmann::json& j : jobs["items"]) {
    const std::string phase = j["status"].value("phase", "");
    if (phase != "Succeeded" && phase != "Failed" && orphaned(j)) {
      Mutate({.kind = EventKind::kCancelJob, .target = j["metadata"]["name"]}, {404});
    }
  }
}

}  // namespace archimedes
