// The scheduling framework, shaped like the Kubernetes scheduler's: filters (hard constraints)
// decide which nodes can take a container, weighted scorers (each 0–100) rank them, and the
// highest total wins. Plugins are small classes, one concern each; a Scheduler is one composition.
#ifndef ARCHIMEDES_SCHED_FRAMEWORK_H_
#define ARCHIMEDES_SCHED_FRAMEWORK_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster_state.h"
#include "model/random.h"
#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

inline constexpr int64_t kMaxNodeScore = 100;

// std::llround (halves away from zero) without the library call, which scorers make on every node
// they score: below 2^52 in magnitude, x minus its truncation is exact.
inline int64_t RoundScore(double x) {
  if (!(std::fabs(x) < 0x1p52)) return std::llround(x);
  const auto truncated = static_cast<int64_t>(x);
  const double fraction = x - static_cast<double>(truncated);
  return truncated + (fraction >= 0.5) - (fraction <= -0.5);
}

class PredictedLoad;

// What is being placed.
struct PodRequest {
  Resources requests;
  int priority = 0;
  OwnerKind kind = OwnerKind::kService;
  int32_t owner = 0;                // service or job index
  int max_per_node = 0;             // replicas of the same owner allowed on one node; 0 = no limit
  int64_t duration_estimate_s = 0;  // batch tasks: how long the task is expected to run
  bool serverless = false;          // batch tasks: may use the serverless reserve
  // Services: the labels a node must carry (NodeSelector); null for none. Points into the
  // workload, which outlives every decision.
  const std::map<std::string, std::string>* node_selector = nullptr;
  // Services: the required node affinity (NodeAffinity) and the taints tolerated
  // (TaintToleration); empty for none.
  std::span<const NodeSelectorTerm> node_affinity = {};
  std::span<const Toleration> tolerations = {};
};

// A replica of `service` (index `s` in its workload): its requests, priority, per-node limit and
// node selector. Keeps a pointer into `service`, which must outlive the request.
PodRequest ServicePodRequest(const Service& service, int32_t s);

// Everything a plugin may read about the fleet for one decision.
struct SchedulingContext {
  const ClusterState& state;
  const PredictedLoad* predicted = nullptr;
  // Per node, what batch may use of the capacity services reserve but do not use: capacity ×
  // (1 − buffer) − the services' recent peak usage (empty when the policy does not reclaim).
  std::span<const Resources> batch_allocatable = {};
  // Per node, room that batch tasks other than serverless ones leave free, so that serverless
  // tasks, which tolerate seconds, find it the moment they arrive (empty = none).
  std::span<const Resources> serverless_reserve = {};
  // Per node, the CPU (millicores) serverless tasks may take from the offline tasks there, which
  // the node then throttles (Policy::serverless_cpu_borrow; empty = none).
  std::span<const int64_t> borrowable_cpu = {};
  int64_t now = 0;  // seconds; time-aware plugins read their time bins from it
  // Per node, at least the cpu and memory a batch task could still claim there: batch allocatable
  // − task requests, + borrowable CPU. Taken by the batch queue before its pass, during which tasks
  // only start, so room only shrinks (a start takes more CPU than it lets serverless tasks
  // borrow); empty outside it. A scan passes over the nodes below a task's requests when a filter
  // guarantees that room (FilterPlugin::guarantees_batch_room).
  std::span<const std::array<int64_t, 2>> batch_room = {};
};

class FilterPlugin {
 public:
  virtual ~FilterPlugin() = default;
  virtual std::string_view name() const = 0;
  virtual bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const = 0;
  // False when Filter passes every node of the fleet for `pod` (kube-scheduler's PreFilter
  // answering Skip): a node scan then leaves the filter out.
  virtual bool AppliesTo(const SchedulingContext& /*ctx*/, const PodRequest& /*pod*/) const {
    return true;
  }
  // Dimensions in which every node this filter passes has unrequested allocatable
  // (ClusterState::unrequested) of at least the pod's request, wherever that request is positive.
  // The Scheduler skips nodes that fall short in any of them without calling a filter (the
  // candidate index), which is exact only if this holds for every pod the filter is asked about.
  virtual std::span<const Dim> guaranteed_dims() const { return {}; }
  // True when every node this filter passes has, in cpu and memory, batch allocatable − task
  // requests + borrowable CPU of at least the pod's request (SchedulingContext::batch_room).
  virtual bool guarantees_batch_room() const { return false; }
  // True when the verdict for a node reads only that node's state and the pod: a placement on
  // another node leaves it unchanged (FeasibilityMemo keeps it).
  virtual bool node_local() const { return false; }
};

class ScorePlugin {
 public:
  virtual ~ScorePlugin() = default;
  virtual std::string_view name() const = 0;
  // In [0, kMaxNodeScore]; higher is better.
  virtual int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const = 0;
  // As FilterPlugin::node_local, for the score.
  virtual bool node_local() const { return false; }
};

struct WeightedScorer {
  std::unique_ptr<ScorePlugin> plugin;
  int64_t weight = 1;
};

struct SchedulerOptions {
  // Share of the fleet (in percent) whose feasible nodes are scored, as kube-scheduler's
  // percentageOfNodesToScore; 0 selects its adaptive default (50 − nodes/125, at least 5 %, at
  // least 100 nodes). 100 scores every feasible node.
  int percentage_of_nodes_to_score = 0;
  uint64_t seed = 1;  // breaks ties between equally scored nodes, as kube-scheduler does at random
};

// One verdict per node and plugin, for `--explain`.
struct NodeExplanation {
  NodeId node = -1;
  std::string failed_filter;    // empty when the node passed every filter
  std::vector<int64_t> scores;  // per scorer, unweighted; empty when filtered out
  int64_t total = 0;
};

// What the scans for one pod shape have learnt about the nodes, kept between the decisions of
// identical pods (the tasks of one job). Filters only get stricter as a node fills, so while
// nothing leaves any node a node that failed them fails them again, and the scan no longer visits
// it. With a Scheduler whose plugins are all node-local (FilterPlugin::node_local), a node that
// passed keeps its verdict and score until something is placed on it. Schedule's result is exactly
// what it would be without the memo, provided the caller calls Placed(n) after adding a container
// to node n, and Reset() whenever anything leaves a node or the pod changes.
class FeasibilityMemo {
 public:
  void Reset();
  void Placed(NodeId n);

 private:
  friend class Scheduler;
  enum Verdict : uint8_t { kUnknown = 0, kInfeasible, kScored };

  Verdict verdict(NodeId n) const {
    return static_cast<size_t>(n) < verdicts_.size() ? static_cast<Verdict>(verdicts_[n])
                                                     : kUnknown;
  }
  void Set(NodeId n, Verdict v, int num_nodes);
  // Makes `open_` list every node not known infeasible whose unrequested allocatable holds `need`
  // (Scheduler::IndexNeed).
  void Open(const ClusterState& state, const Resources& need);
  // Drops the nodes found infeasible since the last call from `open_`.
  void CloseInfeasible();

  std::vector<uint8_t> verdicts_;  // Verdict per node
  std::vector<int64_t> scores_;    // total score where kScored
  std::vector<NodeId> touched_;    // nodes whose verdict is not kUnknown
  std::vector<NodeId> open_;       // ascending ids of the nodes not known infeasible
  int open_nodes_ = 0;             // fleet size `open_` was built for
  bool closing_ = false;           // some node of `open_` was found infeasible
  int scans_ = 0;                  // since Reset
};

// Scans nodes in kube-scheduler's order: round-robin from where the previous decision stopped,
// until percentageOfNodesToScore of the fleet's feasible nodes are found. Nodes whose unrequested
// allocatable cannot hold the pod's requests in a dimension some filter guarantees are passed over
// through ClusterState's candidate index (whole blocks at a time) but count as visited, so the
// feasible nodes found, the scores, the tie-breaking draws and the next start are exactly those of
// a scan that calls every filter on every node.
class Scheduler {
 public:
  Scheduler(std::vector<std::unique_ptr<FilterPlugin>> filters, std::vector<WeightedScorer> scorers,
            SchedulerOptions options);

  // The chosen node, or -1 when no node passes the filters. No allocation per call.
  NodeId Schedule(const SchedulingContext& ctx, const PodRequest& pod,
                  FeasibilityMemo* memo = nullptr);

  // Every node's filter verdict and score terms for `pod` (every node is evaluated).
  std::vector<NodeExplanation> Explain(const SchedulingContext& ctx, const PodRequest& pod) const;
  std::vector<std::string_view> scorer_names() const;

  // True when some node passes every filter (evaluates nodes until one does).
  bool AnyFeasible(const SchedulingContext& ctx, const PodRequest& pod) const;
  // True when `node` passes every filter.
  bool Feasible(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const;

 private:
  // Whether `node` passes the filters that apply to the pod being scheduled (applying_).
  bool PassesApplying(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const;
  int64_t TotalScore(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const;
  int NodesToFind(int num_nodes) const;
  // The pod's requests in the dimensions the filters guarantee (ClusterState::BlockMayHold's
  // `need`); zero elsewhere.
  Resources IndexNeed(const PodRequest& pod) const;

  std::vector<std::unique_ptr<FilterPlugin>> filters_;
  std::vector<const FilterPlugin*> applying_;  // the filters that apply to the pod being scheduled
  std::vector<WeightedScorer> scorers_;
  SchedulerOptions options_;
  std::array<bool, kNumDims> guaranteed_{};  // by some filter (FilterPlugin::guaranteed_dims)
  bool node_local_ = true;                   // every plugin is (FilterPlugin::node_local)
  bool batch_room_guaranteed_ = false;       // by some filter (FilterPlugin::guarantees_batch_room)
  std::vector<NodeId> feasible_;             // reused between calls
  int next_start_ = 0;
  Random rng_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_FRAMEWORK_H_
