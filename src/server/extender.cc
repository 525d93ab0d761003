#include "server/extender.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>

#include "model/duration.h"
#include "model/quantity.h"
#include "sched/eviction.h"
#include "sched/sla_contract.h"
#include "server/objects.h"

namespace archimedes {
namespace {

// Filters whose refusal no preemption can lift: kube-scheduler's UnschedulableAndUnresolvable.
bool Unresolvable(std::string_view filter) {
  return filter == "NodeReady" || filter == "NodeSelector" || filter == "NodeAffinity" ||
         filter == "TaintToleration";
}

std::string Shortfall(const ClusterState& state, NodeId n, const Resources& requests) {
  const Resources free = state.unrequested(n);
  std::string out;
  for (Dim d : kAllDims) {
    if (requests[d] <= free[d]) continue;
    const bool milli = d == Dim::kCpu || d == Dim::kGpu;
    const auto fmt = [&](int64_t v) { return milli ? FormatMilli(v) : FormatBytes(v); };
    if (!out.empty()) out += ", ";
    out += std::string(DimName(d)) + " " + fmt(requests[d]) + " requested, " +
           fmt(std::max<int64_t>(free[d], 0)) + " unrequested";
  }
  return out;
}

std::string Reason(const ControlPlane& plane, const KubePod& pod, const std::string& name, NodeId n,
                   const std::string& filter) {
  const ClusterState& state = plane.engine().cluster();
  const Node& node = state.node(n);
  std::string why;
  if (filter == "NodeReady") {
    why = "the node is not Ready";
  } else if (filter == "TaintToleration") {
    const Taint* t = FirstUntoleratedTaint(node.taints, pod.service.tolerations);
    why = "the pod does not tolerate the taint " + (t ? ToString(*t) : std::string("?"));
  } else if (filter == "NodeSelector") {
    why = "the node does not match the pod's nodeSelector";
  } else if (filter == "NodeAffinity") {
    why = "the node does not match the pod's required node affinity";
  } else if (filter == "NodeResourcesFit") {
    why = "insufficient resources: " + Shortfall(state, n, pod.service.requests);
  } else {
    why = "refused by " + filter;
    const std::string shortfall = Shortfall(state, n, pod.service.requests);
    if (!shortfall.empty()) why += " (" + shortfall + ")";
  }
  return "archimedes: " + name + ": " + why;
}

// The engine's verdicts on the candidates, by name (nullopt: the node is unknown to serve).
std::vector<std::pair<std::string, std::optional<NodeExplanation>>> Judge(
    const ControlPlane& plane, const ExtenderArgs& args) {
  const std::vector<NodeExplanation> all = plane.engine().ExplainReplica(args.pod.service);
  std::vector<std::pair<std::string, std::optional<NodeExplanation>>> out;
  for (const std::string& name : args.candidate_names()) {
    const NodeId n = plane.NodeIdOf(name);
    if (n < 0) {
      out.emplace_back(name, std::nullopt);
      continue;
    }
    auto it =
        std::find_if(all.begin(), all.end(), [n](const NodeExplanation& e) { return e.node == n; });
    out.emplace_back(name, it == all.end() ? std::nullopt : std::optional(*it));
  }
  return out;
}

std::string DnsLabel(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    out += ok ? c : '-';
  }
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  while (!out.empty() && out.back() == '-') out.pop_back();
  constexpr size_t kMax = 63;
  if (out.size() > kMax || out.empty()) {
    char hash[9];
    std::snprintf(hash, sizeof hash, "%08zx", std::hash<std::string>{}(text)&0xffffffffu);
    out = out.substr(0, kMax - 9);
    while (!out.empty() && out.back() == '-') out.pop_back();
    out += std::string(out.empty() ? "" : "-") + hash;
  }
  return out;
}

}  // namespace

ExtenderFilterResult ExtenderFilter(const ControlPlane& plane, const ExtenderArgs& args) {
  ExtenderFilterResult result;
  result.full_nodes = args.nodes.has_value();
  size_t i = 0;
  for (const auto& [name, verdict] : Judge(plane, args)) {
    const size_t index = i++;
    if (!verdict) {
      result.failed_unresolvable[name] = "archimedes: " + name +
                                         ": the node is not registered with archimedes serve "
                                         "(PUT /v1/nodes/" +
                                         name + " or POST /scheduler/nodes)";
      continue;
    }
    if (!verdict->failed_filter.empty()) {
      const std::string reason =
          Reason(plane, args.pod, name, verdict->node, verdict->failed_filter);
      (Unresolvable(verdict->failed_filter) ? result.failed_unresolvable : result.failed)[name] =
          reason;
      continue;
    }
    if (result.full_nodes) {
      result.nodes.push_back(args.node_jsons[index]);
    } else {
      result.node_names.push_back(name);
    }
  }
  return result;
}

std::vector<HostPriority> ExtenderPrioritize(const ControlPlane& plane, const ExtenderArgs& args) {
  const auto verdicts = Judge(plane, args);
  int64_t best = 0;
  for (const auto& [name, v] : verdicts) {
    if (v && v->failed_filter.empty()) best = std::max(best, v->total);
  }
  std::vector<HostPriority> out;
  for (const auto& [name, v] : verdicts) {
    int64_t score = 0;
    if (v && v->failed_filter.empty() && best > 0) {
      score = kMaxExtenderPriority * std::max<int64_t>(v->total, 0) / best;
    }
    out.push_back({.host = name, .score = score});
  }
  return out;
}

std::map<std::string, NodeVictims> ExtenderPreempt(const ControlPlane& plane,
                                                   const ExtenderPreemptionArgs& args,
                                                   const PodCache& pods) {
  std::map<std::string, NodeVictims> out;
  const ClusterState& state = plane.engine().cluster();
  Evictor evictor;
  for (const auto& [name, proposed] : args.victims) {
    if (proposed.pods.empty()) continue;
    const NodeId n = plane.NodeIdOf(name);
    // What the pod lacks there, as serve sees the node; when serve sees room enough (it does not
    // hold the pods kube-scheduler sees), kube-scheduler's own set stands.
    const Resources need =
        n >= 0 ? NeedToFree(state.requested(n) + args.pod.service.requests, state.allocatable(n))
               : Resources{};
    std::vector<EvictionCandidate> candidates;
    bool known_usage = !need.IsZero();
    for (size_t i = 0; i < proposed.pods.size(); ++i) {
      Victim v = proposed.pods[i];
      if (!v.pod) {
        if (std::optional<nlohmann::json> seen = pods.Find(v.uid)) v.pod = DecodePod(*seen);
      }
      known_usage = known_usage && v.pod.has_value();
      EvictionCandidate c{.id = static_cast<ContainerId>(i), .disruption_group = 0};
      if (v.pod) {
        const bool task = v.pod->kind != PodKind::kService;
        c.sla = {.kind = task ? OwnerKind::kTask : OwnerKind::kService,
                 .priority = v.pod->service.priority,
                 .loss = task ? 0.0 : ReplicaLoss(1)};
        c.usage = v.pod->service.requests;
      }
      candidates.push_back(c);
    }
    // The PodDisruptionBudgets kube-scheduler counted: that many of the victims must stay.
    const int32_t budget = static_cast<int32_t>(std::max<int64_t>(
        static_cast<int64_t>(proposed.pods.size()) - proposed.num_pdb_violations, 0));
    if (budget == 0) continue;
    NodeVictims kept;
    if (!known_usage) {
      if (proposed.num_pdb_violations > 0) continue;
      kept.pods = proposed.pods;
    } else {
      const std::vector<int32_t> budgets = {budget};
      const EvictionDecision d = evictor.ChooseVictims(
          {.need = need, .candidates = candidates, .disruption_budget = budgets});
      if (!d.feasible || d.victims.empty()) continue;
      for (ContainerId id : d.victims) kept.pods.push_back({.uid = proposed.pods[id].uid});
    }
    for (Victim& v : kept.pods) v.pod.reset();
    out[name] = std::move(kept);
  }
  return out;
}

bool IsBatchPod(const KubePod& pod) {
  return pod.kind != PodKind::kService && pod.delay_tolerance_s > 0;
}

std::pair<std::string, std::string> BatchPodJob(const KubePod& pod) {
  constexpr int64_t kDefaultEstimateS = 3600;
  const nlohmann::json body = {
      {"apiVersion", "archimedes.io/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"labels",
         {{"archimedes.io/pod-namespace", pod.namespace_name},
          {"archimedes.io/pod-name", pod.name},
          {"archimedes.io/pod-uid", pod.uid}}}}},
      {"spec",
       {{"kind", pod.kind == PodKind::kServerless ? "serverless" : "offline"},
        {"function", PodKey(pod)},
        {"tasks", 1},
        {"requests", EncodeResources(pod.service.requests)},
        {"durationEstimate", FormatDuration(pod.duration_estimate_s.value_or(kDefaultEstimateS))},
        {"delayTolerance", FormatDuration(pod.delay_tolerance_s)},
        {"priority", pod.service.priority}}}};
  return {body.dump(), "kube-pod:" + (pod.uid.empty() ? PodKey(pod) : pod.uid)};
}

ExtenderFilterResult ExtenderBatchFilter(const ControlPlane& plane, const ExtenderArgs& args,
                                         const std::string& job_name) {
  const int32_t job = plane.JobIdOf(job_name);
  ExtenderFilterResult result;
  result.full_nodes = args.nodes.has_value();
  const ClusterState& state = plane.engine().cluster();
  NodeId planned = -1;
  for (ContainerId id = 0; id < state.id_limit() && planned < 0; ++id) {
    if (state.alive(id) && state.container(id).kind == OwnerKind::kTask &&
        state.container(id).owner == job) {
      planned = state.container(id).node;
    }
  }
  const std::vector<std::string> names = args.candidate_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const NodeId n = plane.NodeIdOf(name);
    if (planned >= 0 && n == planned) {
      if (result.full_nodes) {
        result.nodes.push_back(args.node_jsons[i]);
      } else {
        result.node_names.push_back(name);
      }
      continue;
    }
    std::string why;
    if (planned >= 0) {
      why = "the batch pod's task (" + job_name + ") started on " + state.node(planned).name;
    } else if (plane.engine().job_status(job).rejected ||
               plane.engine().job_status(job).failed > 0) {
      why = "the batch pod's job " + job_name + " failed (GET /v1/jobs/" + job_name + ")";
    } else {
      why = "the batch pod (" + job_name + ", delay tolerance " +
            FormatDuration(args.pod.delay_tolerance_s) +
            ") waits for the window the plan gives it; kube-scheduler retries it";
    }
    result.failed_unresolvable[name] = "archimedes: " + name + ": " + why;
  }
  return result;
}

std::pair<std::string, std::string> PodService(const KubePod& pod, const std::string& node) {
  const std::string name = DnsLabel(pod.namespace_name + "-" + pod.name);
  Service s = pod.service;
  if (!node.empty()) s.node_selector["kubernetes.io/hostname"] = node;
  nlohmann::json spec = EncodeServiceSpec(s);
  spec["sla"].erase("minAvailable");
  const nlohmann::json body = {{"apiVersion", "archimedes.io/v1"},
                               {"kind", "Service"},
                               {"metadata",
                                {{"name", name},
                                 {"labels",
                                  {{"archimedes.io/pod-namespace", pod.namespace_name},
                                   {"archimedes.io/pod-name", pod.name},
                                   {"archimedes.io/pod-uid", pod.uid}}}}},
                               {"spec", spec}};
  return {name, body.dump()};
}

void PodCache::Remember(const std::string& uid, const nlohmann::json& pod) {
  if (uid.empty()) return;
  std::lock_guard lock(mu_);
  if (pods_.insert_or_assign(uid, pod).second) order_.push_back(uid);
  while (order_.size() > kCapacity) {
    pods_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<nlohmann::json> PodCache::Find(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

}  // namespace archimedes
