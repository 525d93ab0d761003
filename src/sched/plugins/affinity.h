// Placement rules of services beyond resources and node labels (NodeSelector): inter-application
// affinity and anti-affinity (required or preferred, per node, zone or POD, towards an application
// or towards a profile class, which is how PlacementHints from profiling enter), and spread of a
// service's replicas across zones or PODs (a soft scorer and an optional hard maximum skew), with
// the semantics of the Kubernetes plugins InterPodAffinity and PodTopologySpread.
//
// Rules are per service index (PodRequest::owner), in a table shared by the plugins. Applications,
// classes and per-domain counts come from ctx.predicted (PredictedLoad), per-node residents from
// ctx.state; no plugin scans the fleet. Pods that are not services have no rules.
#ifndef ARCHIMEDES_SCHED_PLUGINS_AFFINITY_H_
#define ARCHIMEDES_SCHED_PLUGINS_AFFINITY_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/framework.h"

namespace archimedes {

enum class Topology : uint8_t { kNode, kZone, kPod };

struct AffinityTerm {
  enum class Target : uint8_t { kApp, kClass };
  Target target = Target::kApp;
  int32_t id = 0;  // application index or profile class (as in PredictedLoad)
  Topology topology = Topology::kNode;
  bool anti = false;
  // 0 = required (a filter); > 0 = preferred with this weight (a score term). Class targets are
  // counted per node only.
  int weight = 0;
};

struct SpreadRule {
  Topology topology = Topology::kZone;
  // Hard limit on (replicas in the node's domain + 1) − (fewest in any domain); 0 = soft only.
  int max_skew = 0;
};

struct PlacementRules {
  std::vector<AffinityTerm> affinity;
  bool spread = false;
  SpreadRule spread_rule;
};

using RulesTable = std::shared_ptr<const std::vector<PlacementRules>>;

// Required terms. As in Kubernetes, a required affinity to the pod's own application is met
// anywhere while no replica of it runs (the first replica must go somewhere).
class InterAppAffinity : public FilterPlugin {
 public:
  explicit InterAppAffinity(RulesTable rules) : rules_(std::move(rules)) {}
  std::string_view name() const override { return "InterAppAffinity"; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  bool AppliesTo(const SchedulingContext&, const PodRequest& pod) const override;

 private:
  RulesTable rules_;
};

// Preferred terms: 100 × (weight of the terms the node satisfies) ÷ (total weight); 100 without
// preferred terms.
class InterAppPreference : public ScorePlugin {
 public:
  explicit InterAppPreference(RulesTable rules) : rules_(std::move(rules)) {}
  std::string_view name() const override { return "InterAppPreference"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;

 private:
  RulesTable rules_;
};

// Fewest and most replicas of a service over the domains of a topology.
struct DomainSpread {
  int fewest = 0;
  int most = 0;
};

// Hard maximum skew; rules with max_skew 0 pass everywhere. Domains are every zone or POD of the
// fleet's nodes; for Topology::kNode the fewest is taken as 0 (some node of a large fleet is
// always without a replica; the exact per-node limit is MaxPerNode).
class TopologySpread : public FilterPlugin {
 public:
  explicit TopologySpread(RulesTable rules) : rules_(std::move(rules)) {}
  std::string_view name() const override { return "TopologySpread"; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  bool AppliesTo(const SchedulingContext&, const PodRequest& pod) const override;

 private:
  RulesTable rules_;
  mutable int32_t cached_service_ = -1;
  mutable uint64_t cached_version_ = 0;
  mutable DomainSpread cached_;
};

// Soft spread: 100 × (most − here) ÷ (most − fewest) replicas of the service in the node's
// domain; 100 when all domains are even or the service has no spread rule.
class TopologySpreadScore : public ScorePlugin {
 public:
  explicit TopologySpreadScore(RulesTable rules) : rules_(std::move(rules)) {}
  std::string_view name() const override { return "TopologySpreadScore"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;

 private:
  RulesTable rules_;
  mutable int32_t cached_service_ = -1;
  mutable uint64_t cached_version_ = 0;
  mutable DomainSpread cached_;
};

// Replicas of `service` in the domain of `node` under `topology` (node: its residents).
int ServiceReplicasIn(const SchedulingContext& ctx, int32_t service, Topology topology,
                      NodeId node);
// Per-term verdicts for explanations, the pod's node selector first: "selector disk=nvme matches;
// requires app 3 on node: 0 there (fails); ...".
std::string DescribeRules(const SchedulingContext& ctx, const PodRequest& pod, NodeId node,
                          const PlacementRules& rules);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_AFFINITY_H_
