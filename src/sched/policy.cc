#include "sched/policy.h"

#include <memory>
#include <stdexcept>

#include "sched/plugins/max_per_node.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/node_selector.h"
#include "sched/plugins/reclaimed_fit.h"
#include "sched/plugins/resource_allocation.h"
#include "sched/plugins/time_aware_batch_fit.h"

namespace archimedes {
namespace {

std::vector<std::unique_ptr<FilterPlugin>> KubernetesFilters() {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<NodeResourcesFit>());
  filters.push_back(std::make_unique<MaxPerNode>());
  filters.push_back(std::make_unique<NodeSelector>());
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

// Batch on reclaimed capacity, ranked by the batch allocatable each node has left.
Scheduler ReclaimedBatchScheduler(uint64_t seed) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<ReclaimedFit>());
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<ReclaimedLeastAllocated>(), 1});
  return Scheduler(std::move(filters), std::move(scorers), SchedulerOptions{.seed = seed});
}

// Batch in the predicted valleys and fragments of services, under the burst buffer.
Scheduler TimeAwareBatchScheduler(uint64_t seed) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<TimeAwareBatchFit>());
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<BatchBestFit>(), 1});
  return Scheduler(std::move(filters), std::move(scorers), SchedulerOptions{.seed = seed});
}

}  // namespace

std::vector<std::string> PolicyNames() {
  return {"k8s-default", "k8s-binpack", "reclaim", "archimedes"};
}

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
  if (name == "reclaim") {
    return Policy{.name = "reclaim",
                  .description =
                      "services as k8s-default; batch on reclaimed capacity as soon as "
                      "it fits, naive batch eviction on pressure",
                  .batch_placement = BatchPlacement::kReclaimed,
                  .eviction = EvictionMode::kNaiveBatch,
                  .services = KubernetesScheduler<LeastAllocated>(seed),
                  .batch = ReclaimedBatchScheduler(seed + 1)};
  }
  if (name == "archimedes") {
    return Policy{.name = "archimedes",
                  .description =
                      "profiles, time-aware complementary fragment-aware placement, "
                      "batch planned into valleys, burst buffer, minimal eviction",
                  .service_placement = ServicePlacement::kProfiles,
                  .batch_placement = BatchPlacement::kPlanned,
                  .eviction = EvictionMode::kMinimal,
                  .act_on_health = true,
                  .refine_placement = true,
                  // Offline tasks keep at least half their CPU: a serverless burst can at most
                  // double their run.
                  .serverless_cpu_borrow = 0.5,
                  .services = KubernetesScheduler<LeastAllocated>(seed),
                  .batch = TimeAwareBatchScheduler(seed + 1)};
  }
  // archimedes with one capability off, for measuring what it changes.
  if (name == "archimedes-no-health" || name == "archimedes-greedy" ||
      name == "archimedes-no-borrow") {
    Policy policy = MakePolicy("archimedes", seed);
    policy.name = name;
    if (name == "archimedes-no-health") {
      policy.description = "archimedes without acting on health warnings";
      policy.act_on_health = false;
    } else if (name == "archimedes-greedy") {
      policy.description = "archimedes without refining the greedy service placement";
      policy.refine_placement = false;
    } else {
      policy.description =
          "archimedes with the serverless reserve's CPU kept free of offline tasks";
      policy.serverless_cpu_borrow = 0;
    }
    return policy;
  }
  std::string known;
  for (const std::string& n : PolicyNames()) known += n + ", ";
  known += "archimedes-no-health, archimedes-greedy, archimedes-no-borrow";
  throw std::invalid_argument("unknown policy \"" + std::string(name) + "\" (known: " + known +
                              ")");
}

}  // namespace archimedes
