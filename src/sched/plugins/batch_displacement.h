// Scorer of the archimedes service placement: prefer nodes where a replica fits beside the batch
// tasks already there. Batch yields memory to services by eviction (docs/batch.md), so a replica
// whose predicted memory peak, added to the node's services' predicted peak and the memory the
// batch tasks request, passes capacity × (1 − buffer) evicts batch work. The score is
// kMaxNodeScore × (1 − displaced ÷ the replica's memory peak), displaced being that excess (at
// most the batch memory); a node where nothing is displaced scores the maximum.
#ifndef ARCHIMEDES_SCHED_PLUGINS_BATCH_DISPLACEMENT_H_
#define ARCHIMEDES_SCHED_PLUGINS_BATCH_DISPLACEMENT_H_

#include "sched/framework.h"

namespace archimedes {

class BatchDisplacement : public ScorePlugin {
 public:
  std::string_view name() const override { return "BatchDisplacement"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_BATCH_DISPLACEMENT_H_
