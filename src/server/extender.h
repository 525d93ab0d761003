// The scheduler extender (docs/kubernetes.md): kube-scheduler's filter, prioritize, preempt and
// bind verbs answered from the service's own engine and state, so the answer is the decision
// `serve` (and `simulate`) takes for the same fleet. Every candidate is judged by the policy's
// service scheduler (Engine::ExplainReplica): a node passes filter exactly when it passes every
// filter plugin; prioritize scales the plugins' weighted total to 0..10 as kube-scheduler's
// DefaultNormalizeScore does (the best candidate 10); preempt keeps, per candidate node, the
// SLA-ordered minimal set of kube-scheduler's proposed victims (sched/eviction.h) that frees what
// the pod lacks there, and drops a node whose PodDisruptionBudgets forbid it. Nothing here
// changes state: bind goes through the control plane as the service its pod becomes.
#ifndef ARCHIMEDES_SERVER_EXTENDER_H_
#define ARCHIMEDES_SERVER_EXTENDER_H_

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/extender_messages.h"
#include "server/control_plane.h"

namespace archimedes {

ExtenderFilterResult ExtenderFilter(const ControlPlane& plane, const ExtenderArgs& args);
std::vector<HostPriority> ExtenderPrioritize(const ControlPlane& plane, const ExtenderArgs& args);
// A batch pod: one the `archimedes.io/` annotations make a task (kind serverless or offline) with
// a delay tolerance. It is submitted as a job of one task and planned like one; filter then
// passes only the node its task started on, once its window has come, and until then refuses
// every node as unresolvable (no preemption), saying so: kube-scheduler retries the pod.
bool IsBatchPod(const KubePod& pod);
// The job a batch pod becomes: its API body and the Idempotency-Key that makes every retry of
// the filter find the same job.
std::pair<std::string, std::string> BatchPodJob(const KubePod& pod);
ExtenderFilterResult ExtenderBatchFilter(const ControlPlane& plane, const ExtenderArgs& args,
                                         const std::string& job_name);

class PodCache;
// Victims given by UID only are read from `pods` where it holds them.
std::map<std::string, NodeVictims> ExtenderPreempt(const ControlPlane& plane,
                                                   const ExtenderPreemptionArgs& args,
                                                   const PodCache& pods);

// The service a pod becomes (name, API body): one replica with the pod's requests, limits,
// priority, QoS, application, tolerations and node affinity; bound to `node`, its node selector
// pinned there by kubernetes.io/hostname (empty `node`: a pending pod the engine places). The
// name is "<namespace>-<pod>" as a DNS label (longer names end in a hash of the whole).
std::pair<std::string, std::string> PodService(const KubePod& pod, const std::string& node);

// The pods filter and prioritize saw, by UID, for bind (whose message names the pod only):
// the last kCapacity of them. Thread-safe.
class PodCache {
 public:
  static constexpr size_t kCapacity = 4096;
  void Remember(const std::string& uid, const nlohmann::json& pod);
  std::optional<nlohmann::json> Find(const std::string& uid) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, nlohmann::json> pods_;
  std::deque<std::string> order_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_EXTENDER_H_
