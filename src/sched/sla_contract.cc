#include "sched/sla_contract.h"

#include <algorithm>

namespace archimedes {

int DisruptionBudget(const ServiceSla& sla, int running_replicas) {
  return std::max(running_replicas - sla.min_available, 0);
}

double TaskLoss(int64_t elapsed_s, int64_t duration_s) {
  if (duration_s <= 0) return 1;
  return std::clamp(static_cast<double>(elapsed_s) / static_cast<double>(duration_s), 0.0, 1.0);
}

double ReplicaLoss(int desired_replicas) { return 1.0 / std::max(desired_replicas, 1); }

bool EvictsBefore(const SlaKey& a, const SlaKey& b) {
  // Tasks (kTask) come before replicas (kService) whatever the enum's numeric order.
  const bool a_task = a.kind == OwnerKind::kTask;
  const bool b_task = b.kind == OwnerKind::kTask;
  if (a_task != b_task) return a_task;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.loss != b.loss) return a.loss < b.loss;
  return a.start_time > b.start_time;
}

}  // namespace archimedes
