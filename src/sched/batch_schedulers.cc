#include "sched/batch_schedulers.h"

#include <memory>
#include <vector>

#include "sched/plugins/node_ready.h"
#include "sched/plugins/reclaimed_fit.h"
#include "sched/plugins/time_aware_batch_fit.h"

namespace archimedes {

Scheduler MakeReclaimedBatchScheduler(uint64_t seed) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<ReclaimedFit>());
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<ReclaimedLeastAllocated>(), 1});
  return Scheduler(std::move(filters), std::move(scorers), SchedulerOptions{.seed = seed});
}

Scheduler MakeTimeAwareBatchScheduler(uint64_t seed) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<TimeAwareBatchFit>());
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<BatchBestFit>(), 1});
  return Scheduler(std::move(filters), std::move(scorers), SchedulerOptions{.seed = seed});
}

}  // namespace archimedes
