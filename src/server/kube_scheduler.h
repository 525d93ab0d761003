// `serve --kube-api`: Archimedes as Kubernetes' scheduler of the pods whose spec.schedulerName is
// `kube-scheduler-name` (docs/kubernetes.md, "Own scheduler"). It lists and watches Nodes and Pods
// (server/kube_informer.h) and turns them into the fleet and its workload, through the same
// mutations as the API's routes (so they are journaled and replayed):
//
//   Node            registered as POST /scheduler/nodes does (server/kube_nodes.h); deleted when
//                   it leaves the cluster: the cluster's Nodes are the fleet
//   pending pod     ours: a service of one replica (server/extender.h PodService) or, for a batch
//                   pod (archimedes.io/ annotations with a delay tolerance) without a nodeSelector
//                   or required node affinity (jobs carry none), a job of one task planned like
//                   any other (BatchPodJob); another scheduler's: nothing yet
//   bound pod       a service pinned to its node, so the engine counts what it holds
//   Running         the container reported Running (the engine's ContainerStarted)
//   Succeeded, Failed, deleted
//                   the task's end (OOMKilled when its container was), or the service deleted
//
// and carries out the engine's actions (GET /v1/actions, from the first on each start, so nothing
// is missed across restarts; what the cluster already shows done is skipped): a Bind or StartTask
// of a pending pod POSTs its pods/binding; an Evict, or a Migrate (a pod cannot move: its
// controller makes a replacement, which is placed afresh), POSTs a policy/v1 Eviction, so the API
// server enforces PodDisruptionBudgets; 429 is retried with backoff (1 s doubling to 60 s) while
// the pod lives. Every `kube-metrics` it reads metrics.k8s.io PodMetrics into POST /v1/usage
// (cpu and memory: what that API measures), whence profiles learn. With the etcd store it also
// watches the nodes' Leases (kube-node-lease), whose renewals become the nodes' heartbeats for
// MAGI's members (server/magi_heartbeats.h), as the kubelet's lease is to Kubernetes.
//
// Only the leader mutates and calls the API server's write verbs; a follower keeps its caches,
// which it registers when it takes the lead.
#ifndef ARCHIMEDES_SERVER_KUBE_SCHEDULER_H_
#define ARCHIMEDES_SERVER_KUBE_SCHEDULER_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/api_messages.h"
#include "kube/kube_pod.h"
#include "server/kube_api_client.h"
#include "server/kube_informer.h"
#include "server/router.h"

namespace archimedes {

class KubeScheduler {
 public:
  // `context` must outlive it. Starts nothing.
  KubeScheduler(ApiContext& context, KubeApiLocation location);
  ~KubeScheduler();  // Stop()
  KubeScheduler(const KubeScheduler&) = delete;
  KubeScheduler& operator=(const KubeScheduler&) = delete;

  void Start();
  // Ends the watches and the worker; safe to call twice.
  void Stop();

 private:
  struct PodEntry {
    KubePod pod;
    std::string phase;         // status.phase
    bool terminating = false;  // metadata.deletionTimestamp is set
    bool oom_killed = false;   // a container's state.terminated.reason is OOMKilled
    int64_t exit_code = 0;     // the first non-zero state.terminated.exitCode
    std::string target;        // the service or job it became; empty: none yet
    bool batch = false;
    bool finished = false;  // its end was reported
    bool running_reported = false;
    std::string refusal;  // why the service was refused, as last logged
  };
  // A write to the API server to make (again): a binding that got no answer or waits for its
  // node's victims, an eviction refused.
  struct PendingCall {
    bool evict = false;  // else bind
    std::string uid;
    std::string node;  // where it binds, or where it is evicted from
    std::string why;   // evict
    std::chrono::seconds backoff{1};
    std::chrono::steady_clock::time_point due;
  };

  // Informers' handlers.
  void ReplaceNodes(const std::vector<nlohmann::json>& items);
  void ApplyNode(KubeWatchEvent::Type type, const nlohmann::json& object);
  void ReplaceLeases(const std::vector<nlohmann::json>& items);
  void ApplyLease(KubeWatchEvent::Type type, const nlohmann::json& object);
  void ReplacePods(const std::vector<nlohmann::json>& items);
  void ApplyPod(KubeWatchEvent::Type type, const nlohmann::json& object);
  // Records the pod's latest object; false (logged) when it cannot be read.
  bool Remember(const nlohmann::json& object);
  // Brings the engine's view of pod `uid` in line with the cluster's.
  void Sync(const std::string& uid);
  void Gone(const std::string& uid);
  // The end of a pod whose engine object is `target`: its task's end or its service's deletion.
  void Finish(const PodEntry& entry, bool deleted);

  // The worker: actions, calls due, metrics, a resync every 30 s of the pods whose engine object
  // was refused or whose Running is not yet reported, and a take-over whenever this replica
  // starts to lead with the pods listed: the nodes and pods the informers saw registered, and the
  // services and jobs of pods gone while nobody watched (a restart, a failover) removed.
  void Work();
  void FollowActions();
  bool ServiceExists(const std::string& name);
  // The pod UID of engine object `target` (its archimedes.io/pod-uid label); empty: none.
  std::string PodOf(const std::string& target, bool job);
  enum class Outcome : uint8_t {
    kDone,   // made, or the cluster shows it needless
    kRetry,  // refused or unanswered: again after a backoff
    kWait,   // a binding whose node still holds pods being evicted: again in a second
  };
  Outcome Call(const PendingCall& call);
  // Whether a pod evicted from `node` is still in the cluster; the caller holds mu_.
  bool VictimsRemain(const std::string& node);
  void RunPendingCalls();
  void ReadMetrics();
  void Resync();
  void TakeOver();

  // Applies a mutation; a refusal is a reply with the error's code and body, logged unless
  // `quiet` holds its code.
  Reply Mutate(Event event, const std::set<int>& quiet = {});
  bool Leading() const { return context_.leading; }

  ApiContext& context_;
  const ServerConfig& config_;
  KubeApiClient client_;
  std::unique_ptr<KubeInformer> nodes_, pods_, leases_;

  std::mutex mu_;                                        // guards what follows
  std::map<std::string, PodEntry> entries_;              // live pods by UID
  std::map<std::string, std::string> by_target_;         // engine object → pod UID
  std::map<std::string, std::string> container_owner_;   // engine container → engine object
  std::map<std::string, std::string> owner_container_;   // engine object → its latest container
  std::map<std::string, nlohmann::json> cluster_nodes_;  // as last listed and watched
  std::vector<PendingCall> pending_calls_;
  // Pods evicted, or to be, by node: a binding there waits until they are gone from the API
  // server, as kube-scheduler's preemptor waits for its victims (their resources are held until
  // then, and the kubelet would refuse the new pod).
  std::map<std::string, std::set<std::string>> victims_;
  bool nodes_listed_ = false;  // pods are taken once the nodes were listed
  bool pods_listed_ = false;
  bool stopping_ = false;
  std::condition_variable wake_;
  int64_t after_ = 0;  // the last action carried out (or skipped)
  bool metrics_failing_ = false;

  std::thread worker_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_KUBE_SCHEDULER_H_
