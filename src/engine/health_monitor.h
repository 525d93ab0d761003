// The engine's online health monitor (DESIGN §1.1): every usage round, each service replica's
// memory is fed to its own MemoryTrend (profile/health.h) together with its siblings' median, so a
// replica that leaks is warned about, with a lead time to its memory limit, while the others
// carry the service's ordinary ups and downs. What to do about a warning is the caller's decision
// (sched/migration.h, ShouldMigrate with kPredictedBreach).
//
// State is kept per container incarnation: a container id that is reused, or a replica that
// restarts, starts with no history.
#ifndef ARCHIMEDES_ENGINE_HEALTH_MONITOR_H_
#define ARCHIMEDES_ENGINE_HEALTH_MONITOR_H_

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "model/cluster_state.h"
#include "profile/health.h"

namespace archimedes {

// One replica of a service in one usage round.
struct ReplicaSample {
  ContainerId id = -1;
  int64_t start_time = 0;  // identifies the incarnation
  float memory = 0;
};

class HealthMonitor {
 public:
  explicit HealthMonitor(const TrendOptions& options = {});

  // Feeds the samples of all running replicas of one service at time `now` (times non-decreasing
  // per replica). A replica's siblings' median is the median of all the service's samples when
  // there are three or more, the other one's memory when there are two, none for one. Appends
  // (container, finding) for each replica whose trend is confirmed to `findings`.
  void ObserveService(int64_t now, std::span<const ReplicaSample> replicas, double memory_limit,
                      std::vector<std::pair<ContainerId, HealthFinding>>& findings);

 private:
  struct Tracked {
    int64_t start_time = -1;
    MemoryTrend trend;
  };

  TrendOptions options_;
  std::vector<Tracked> tracked_;  // by ContainerId
  std::vector<float> scratch_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_HEALTH_MONITOR_H_
