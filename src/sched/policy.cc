#include "sched/policy.h"

#include <memory>
#include <stdexcept>

#include "sched/plugins/max_per_node.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/resource_allocation.h"

namespace archimedes {
namespace {

std::vector<std::unique_ptr<FilterPlugin>> KubernetesFilters() {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<NodeResourcesFit>());
  filters.push_back(std::make_unique<MaxPerNode>());
  return filters;
}

// kube-scheduler's default profile as far as resources go: NodeResourcesFit with the given
// scoring strategy (weight 1) and NodeResourcesBalancedAllocation (weight 1).
template <typename FitStrategy>
Scheduler KubernetesScheduler(uint64_t seed) {
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<FitStrategy>(), 1});
  scorers.push_back({std::make_unique<BalancedAllocation>(), 1});
  return Scheduler(KubernetesFilters(), std::move(scorers), SchedulerOptions{.seed = seed});
}

}  // namespace

std::vector<std::string> PolicyNames() { return {"k8s-default", "k8s-binpack"}; }

Policy MakePolicy(std::string_view name, uint64_t seed) {
  if (name == "k8s-default") {
    return Policy{
        .name = "k8s-default",
        .description = "request-based, LeastAllocated + BalancedAllocation, batch as plain pods",
        .services = KubernetesScheduler<LeastAllocated>(seed),
        .batch = KubernetesScheduler<LeastAllocated>(seed + 1)};
  }
  if (name == "k8s-binpack") {
    return Policy{
        .name = "k8s-binpack",
        .description = "request-based, MostAllocated + BalancedAllocation, batch as plain pods",
        .services = KubernetesScheduler<MostAllocated>(seed),
        .batch = KubernetesScheduler<MostAllocated>(seed + 1)};
  }
  std::string known;
  for (const std::string& n : PolicyNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown policy \"" + std::string(name) + "\" (known: " + known +
                              ")");
}

}  // namespace archimedes
