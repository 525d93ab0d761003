// Batch placement of the archimedes policy: a task fits a node when, in every time bin of its
// estimated run (from now to now + duration estimate, wrapping over the day), the services'
// predicted usage (profile high quantile, PredictedLoad) plus the batch already on the node plus
// the task stays under capacity × (1 − buffer), and, where the context has a batch allocatable,
// the task fits it now (capacity × (1 − buffer) − the services' recent peak usage): where services
// run above their profiles, a task started there would only be evicted at the next usage tick, and
// its place taken again by the next. Tasks therefore start only where a valley or a fragment will
// hold them for their whole run, and wait (within their tolerance) for one that will.
// The scorer prefers the tightest such window (best fit), so large valleys stay whole for large
// tasks. Tasks other than serverless ones also leave the context's serverless reserve free;
// serverless ones may count the context's borrowable CPU as room (the node throttles offline
// tasks for them). GPUs are not reclaimed: a task's GPU request must fit the batch allocatable GPU
// left by requests.
#ifndef ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_BATCH_FIT_H_
#define ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_BATCH_FIT_H_

#include "sched/framework.h"

namespace archimedes {

class TimeAwareBatchFit : public FilterPlugin {
 public:
  std::string_view name() const override { return "TimeAwareBatchFit"; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

class BatchBestFit : public ScorePlugin {
 public:
  std::string_view name() const override { return "BatchBestFit"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_BATCH_FIT_H_
