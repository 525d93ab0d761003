// Batch placement of the archimedes policy: a task fits a node when, in every time bin of its
// estimated run (from now to now + duration estimate, wrapping over the day), the services'
// predicted usage (profile high quantile, PredictedLoad) plus the batch already on the node plus
// the task stays under capacity × (1 − buffer) (under capacity where no service replica runs:
// nothing bursts there), and, where the context has a batch allocatable,
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

#include <cstdint>

#include "sched/framework.h"

namespace archimedes {

// The bins of a task's estimated run, from the one holding now: at least one, at most a day. Each
// plugin remembers the last one it worked out, since one decision asks for the same window on
// every node (not thread-safe, as plugins are not).
struct TaskWindow {
  int first = 0;
  int span = 0;
};

// How many bins of `load` a run of `duration_estimate_s` seconds spans: at least one, at most a
// day. The fit reads a task's estimated run only through it.
int RunBins(const PredictedLoad& load, int64_t duration_estimate_s);

class TaskWindowMemo {
 public:
  const TaskWindow& For(const PredictedLoad& load, int64_t now, int64_t duration_estimate_s);

 private:
  int64_t now_ = -1;
  int64_t duration_estimate_s_ = -1;
  int bins_ = 0;
  TaskWindow window_;
};

class TimeAwareBatchFit : public FilterPlugin {
 public:
  std::string_view name() const override { return "TimeAwareBatchFit"; }
  bool node_local() const override { return true; }
  bool guarantees_batch_room() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;

 private:
  mutable TaskWindowMemo window_;
};

class BatchBestFit : public ScorePlugin {
 public:
  std::string_view name() const override { return "BatchBestFit"; }
  bool node_local() const override { return true; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;

 private:
  mutable TaskWindowMemo window_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_BATCH_FIT_H_
