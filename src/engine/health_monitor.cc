#include "engine/health_monitor.h"

#include <algorithm>

#include "model/quantile.h"

namespace archimedes {

HealthMonitor::HealthMonitor(const TrendOptions& options) : options_(options) {}

void HealthMonitor::ObserveService(int64_t now, std::span<const ReplicaSample> replicas,
                                   double memory_limit,
                                   std::vector<std::pair<ContainerId, HealthFinding>>& findings) {
  float median = 0;
  if (replicas.size() >= 3) {
    scratch_.clear();
    for (const ReplicaSample& r : replicas) scratch_.push_back(r.memory);
    median = Median(scratch_);
  }
  for (const ReplicaSample& r : replicas) {
    if (static_cast<size_t>(r.id) >= tracked_.size()) {
      tracked_.resize(r.id + 1, Tracked{.trend = MemoryTrend(options_)});
    }
    Tracked& t = tracked_[r.id];
    if (t.start_time != r.start_time)
      t = Tracked{.start_time = r.start_time, .trend = MemoryTrend(options_)};
    float siblings = median;
    if (replicas.size() == 2) siblings = replicas[replicas[0].id == r.id ? 1 : 0].memory;
    if (auto f = t.trend.Add(now, r.memory, siblings, memory_limit, options_)) {
      findings.emplace_back(r.id, *f);
    }
  }
}

}  // namespace archimedes
