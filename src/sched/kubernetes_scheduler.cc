#include "sched/kubernetes_scheduler.h"

#include <memory>
#include <vector>

#include "sched/plugins/max_per_node.h"
#include "sched/plugins/node_affinity.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/node_selector.h"
#include "sched/plugins/resource_allocation.h"
#include "sched/plugins/taint_toleration.h"

namespace archimedes {

Scheduler MakeKubernetesScheduler(FitScoring scoring, uint64_t seed) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<NodeResourcesFit>());
  filters.push_back(std::make_unique<MaxPerNode>());
  filters.push_back(std::make_unique<NodeSelector>());
  filters.push_back(std::make_unique<NodeAffinity>());
  filters.push_back(std::make_unique<TaintToleration>());
  std::vector<WeightedScorer> scorers;
  if (scoring == FitScoring::kLeastAllocated) {
    scorers.push_back({std::make_unique<LeastAllocated>(), 1});
  } else {
    scorers.push_back({std::make_unique<MostAllocated>(), 1});
  }
  scorers.push_back({std::make_unique<BalancedAllocation>(), 1});
  return Scheduler(std::move(filters), std::move(scorers), SchedulerOptions{.seed = seed});
}

}  // namespace archimedes
