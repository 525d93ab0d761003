#include "sched/plugins/affinity.h"

#include <algorithm>
#include <cstdio>

#include "sched/plugins/node_selector.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

const PlacementRules* RulesOf(const RulesTable& rules, const PodRequest& pod) {
  if (pod.kind != OwnerKind::kService || rules == nullptr || pod.owner < 0 ||
      static_cast<size_t>(pod.owner) >= rules->size()) {
    return nullptr;
  }
  return &(*rules)[pod.owner];
}

// Containers the term counts in the domain of `node`.
int CountFor(const SchedulingContext& ctx, const AffinityTerm& term, NodeId node) {
  const PredictedLoad& load = *ctx.predicted;
  if (term.topology == Topology::kNode || term.target == AffinityTerm::Target::kClass) {
    int count = 0;
    for (ContainerId id : ctx.state.containers_on(node)) {
      const Container& c = ctx.state.container(id);
      if (c.kind != OwnerKind::kService) continue;
      const int32_t of = term.target == AffinityTerm::Target::kApp ? load.service_app(c.owner)
                                                                   : load.service_class(c.owner);
      count += of == term.id;
    }
    return count;
  }
  if (term.id < 0 || term.id >= load.num_apps()) return 0;
  return term.topology == Topology::kZone ? load.app_in_zone(term.id, load.zone_of(node))
                                          : load.app_in_pod(term.id, load.pod_of(node));
}

int AppTotal(const PredictedLoad& load, int32_t app) {
  if (app < 0 || app >= load.num_apps()) return 0;
  int total = 0;
  for (int32_t z = 0; z < load.num_zones(); ++z) total += load.app_in_zone(app, z);
  return total;
}

bool RequiredTermHolds(const SchedulingContext& ctx, const PodRequest& pod,
                       const AffinityTerm& term, NodeId node) {
  const int count = CountFor(ctx, term, node);
  if (term.anti) return count == 0;
  if (count > 0) return true;
  return term.target == AffinityTerm::Target::kApp &&
         term.id == ctx.predicted->service_app(pod.owner) && AppTotal(*ctx.predicted, term.id) == 0;
}

DomainSpread SpreadOf(const PredictedLoad& load, int32_t service, Topology topology) {
  if (topology == Topology::kNode || service < 0 || service >= load.num_services()) return {};
  const bool zone = topology == Topology::kZone;
  const int domains = zone ? load.num_zones() : load.num_pods();
  DomainSpread s{.fewest = -1, .most = 0};
  for (int32_t d = 0; d < domains; ++d) {
    const int n = zone ? load.service_in_zone(service, d) : load.service_in_pod(service, d);
    s.fewest = s.fewest < 0 ? n : std::min(s.fewest, n);
    s.most = std::max(s.most, n);
  }
  s.fewest = std::max(s.fewest, 0);
  return s;
}

const DomainSpread& CachedSpread(const PredictedLoad& load, int32_t service, Topology topology,
                                 int32_t& cached_service, uint64_t& cached_version,
                                 DomainSpread& cached) {
  if (cached_service != service || cached_version != load.version()) {
    cached = SpreadOf(load, service, topology);
    cached_service = service;
    cached_version = load.version();
  }
  return cached;
}

}  // namespace

int ServiceReplicasIn(const SchedulingContext& ctx, int32_t service, Topology topology,
                      NodeId node) {
  const PredictedLoad& load = *ctx.predicted;
  if (topology == Topology::kNode) {
    int count = 0;
    for (ContainerId id : ctx.state.containers_on(node)) {
      const Container& c = ctx.state.container(id);
      count += c.kind == OwnerKind::kService && c.owner == service;
    }
    return count;
  }
  if (service < 0 || service >= load.num_services()) return 0;
  return topology == Topology::kZone ? load.service_in_zone(service, load.zone_of(node))
                                     : load.service_in_pod(service, load.pod_of(node));
}

bool InterAppAffinity::Filter(const SchedulingContext& ctx, const PodRequest& pod,
                              NodeId node) const {
  const PlacementRules* rules = RulesOf(rules_, pod);
  if (rules == nullptr || ctx.predicted == nullptr) return true;
  for (const AffinityTerm& term : rules->affinity) {
    if (term.weight == 0 && !RequiredTermHolds(ctx, pod, term, node)) return false;
  }
  return true;
}

int64_t InterAppPreference::Score(const SchedulingContext& ctx, const PodRequest& pod,
                                  NodeId node) const {
  const PlacementRules* rules = RulesOf(rules_, pod);
  if (rules == nullptr || ctx.predicted == nullptr) return kMaxNodeScore;
  int64_t total = 0, met = 0;
  for (const AffinityTerm& term : rules->affinity) {
    if (term.weight <= 0) continue;
    total += term.weight;
    const int count = CountFor(ctx, term, node);
    if (term.anti ? count == 0 : count > 0) met += term.weight;
  }
  return total == 0 ? kMaxNodeScore : met * kMaxNodeScore / total;
}

bool InterAppAffinity::AppliesTo(const SchedulingContext&, const PodRequest& pod) const {
  const PlacementRules* rules = RulesOf(rules_, pod);
  return rules != nullptr && std::any_of(rules->affinity.begin(), rules->affinity.end(),
                                         [](const AffinityTerm& t) { return t.weight == 0; });
}

bool TopologySpread::AppliesTo(const SchedulingContext&, const PodRequest& pod) const {
  const PlacementRules* rules = RulesOf(rules_, pod);
  return rules != nullptr && rules->spread && rules->spread_rule.max_skew > 0;
}

bool TopologySpread::Filter(const SchedulingContext& ctx, const PodRequest& pod,
                            NodeId node) const {
  const PlacementRules* rules = RulesOf(rules_, pod);
  if (rules == nullptr || !rules->spread || rules->spread_rule.max_skew <= 0 ||
      ctx.predicted == nullptr) {
    return true;
  }
  const Topology topology = rules->spread_rule.topology;
  const DomainSpread& s =
      CachedSpread(*ctx.predicted, pod.owner, topology, cached_service_, cached_version_, cached_);
  const int here = ServiceReplicasIn(ctx, pod.owner, topology, node);
  return here + 1 - s.fewest <= rules->spread_rule.max_skew;
}

int64_t TopologySpreadScore::Score(const SchedulingContext& ctx, const PodRequest& pod,
                                   NodeId node) const {
  const PlacementRules* rules = RulesOf(rules_, pod);
  if (rules == nullptr || !rules->spread || ctx.predicted == nullptr) return kMaxNodeScore;
  const Topology topology = rules->spread_rule.topology;
  const DomainSpread& s =
      CachedSpread(*ctx.predicted, pod.owner, topology, cached_service_, cached_version_, cached_);
  const int here = ServiceReplicasIn(ctx, pod.owner, topology, node);
  if (topology == Topology::kNode) {
    return here == 0 ? kMaxNodeScore : kMaxNodeScore / (1 + here);
  }
  if (s.most == s.fewest) return kMaxNodeScore;
  return (s.most - std::min(here, s.most)) * kMaxNodeScore / (s.most - s.fewest);
}

std::string DescribeRules(const SchedulingContext& ctx, const PodRequest& pod, NodeId node,
                          const PlacementRules& rules) {
  static constexpr const char* kTopologyNames[] = {"node", "zone", "pod"};
  std::string out;
  char buf[200];
  const Node& n = ctx.state.node(node);
  if (pod.node_selector != nullptr) {
    for (const auto& [key, value] : *pod.node_selector) {
      std::snprintf(buf, sizeof buf, "%sselector %s=%s %s", out.empty() ? "" : "; ", key.c_str(),
                    value.c_str(), LabelMatches(n, key, value) ? "matches" : "does not match");
      out += buf;
    }
  }
  if (ctx.predicted == nullptr) return out;
  for (const AffinityTerm& term : rules.affinity) {
    const int count = CountFor(ctx, term, node);
    const bool holds = term.weight == 0 ? RequiredTermHolds(ctx, pod, term, node)
                                        : (term.anti ? count == 0 : count > 0);
    std::snprintf(buf, sizeof buf, "%s%s %s%s %d in %s: %d there (%s)", out.empty() ? "" : "; ",
                  term.weight == 0 ? "requires" : "prefers", term.anti ? "no " : "",
                  term.target == AffinityTerm::Target::kApp ? "app" : "class", term.id,
                  kTopologyNames[static_cast<int>(term.topology)], count,
                  holds ? "met" : "not met");
    out += buf;
    if (term.weight > 0) out += " weight " + std::to_string(term.weight);
  }
  if (rules.spread) {
    const Topology t = rules.spread_rule.topology;
    const DomainSpread s = SpreadOf(*ctx.predicted, pod.owner, t);
    std::snprintf(buf, sizeof buf, "%sspread over %s: %d here, fewest %d, most %d, max skew %d",
                  out.empty() ? "" : "; ", kTopologyNames[static_cast<int>(t)],
                  ServiceReplicasIn(ctx, pod.owner, t, node), s.fewest, s.most,
                  rules.spread_rule.max_skew);
    out += buf;
  }
  return out;
}

}  // namespace archimedes
