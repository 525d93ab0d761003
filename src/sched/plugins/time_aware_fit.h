// Filter of DESIGN §4 "time-aware fit": a service fits a node when, in every time bin, the node's
// predicted usage plus the container's predicted usage (its profile's high quantile, or its
// requests flat without a profile) stays at or under capacity × (1 − buffer), and its requests fit
// what is left of the node's allocatable (the resources it is guaranteed).
//
// Reads ctx.predicted (required: without it only the guarantee is checked). Per dimension the
// envelopes are compared first: node peak + container peak ≤ limit passes without touching the
// curves; where the envelopes overlap the limit, the bins of the node's and the container's peaks
// are tried (most rejections show there) before the walk over every bin. Float addition is
// monotone, so the shortcuts give exactly the verdict of the full check.
#ifndef ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_FIT_H_
#define ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_FIT_H_

#include <string>
#include <vector>

#include "sched/framework.h"

namespace archimedes {

class TimeAwareFit : public FilterPlugin {
 public:
  // `guaranteed` are the dimensions whose requests must fit allocatable (as NodeResourcesFit).
  explicit TimeAwareFit(std::vector<Dim> guaranteed = {Dim::kCpu, Dim::kMemory, Dim::kGpu})
      : guaranteed_(std::move(guaranteed)) {}
  std::string_view name() const override { return "TimeAwareFit"; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  std::span<const Dim> guaranteed_dims() const override { return guaranteed_; }

 private:
  std::vector<Dim> guaranteed_;
};

// Why `pod` does or does not fit `node`, for explanations: "fits (tightest: cpu 71% of limit at
// 14:05)", "requests exceed allocatable: memory", "cpu over limit at 09:30: 61.2 > 57.6".
std::string DescribeTimeAwareFit(const SchedulingContext& ctx, const PodRequest& pod, NodeId node,
                                 const std::vector<Dim>& guaranteed = {Dim::kCpu, Dim::kMemory,
                                                                       Dim::kGpu});

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_TIME_AWARE_FIT_H_
