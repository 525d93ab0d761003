#include "sched/plugins/time_aware_fit.h"

#include <cstdio>

#include "sched/predicted_load.h"

namespace archimedes {
namespace {

bool GuaranteeFits(const SchedulingContext& ctx, const PodRequest& pod, NodeId node,
                   const std::vector<Dim>& guaranteed, Dim* failed = nullptr) {
  const Resources& requested = ctx.state.requested(node);
  const Resources& allocatable = ctx.state.allocatable(node);
  for (Dim d : guaranteed) {
    if (pod.requests[d] > 0 && requested[d] + pod.requests[d] > allocatable[d]) {
      if (failed != nullptr) *failed = d;
      return false;
    }
  }
  return true;
}

std::string TimeOfBin(const PredictedLoad& load, int bin) {
  const int64_t s = static_cast<int64_t>(bin) * (kSecondsPerDay / load.bins());
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d:%02d", static_cast<int>(s / 3600),
                static_cast<int>(s % 3600 / 60));
  return buf;
}

}  // namespace

bool TimeAwareFit::Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const {
  if (!GuaranteeFits(ctx, pod, node, guaranteed_)) return false;
  const PredictedLoad* load = ctx.predicted;
  if (load == nullptr) return true;
  const Demand demand = load->DemandOf(pod);
  const float* limits = load->limits(node);
  for (int d = 0; d < kNumDims; ++d) {
    if (demand.peak[d] == 0.0f || limits[d] == 0.0f) continue;
    if (!load->StaysUnder(node, static_cast<Dim>(d), demand, limits[d])) return false;
  }
  return true;
}

std::string DescribeTimeAwareFit(const SchedulingContext& ctx, const PodRequest& pod, NodeId node,
                                 const std::vector<Dim>& guaranteed) {
  Dim failed = Dim::kCpu;
  if (!GuaranteeFits(ctx, pod, node, guaranteed, &failed)) {
    return "requests exceed allocatable: " + std::string(DimName(failed));
  }
  const PredictedLoad* load = ctx.predicted;
  if (load == nullptr) return "fits (requests only: no prediction)";
  const Demand demand = load->DemandOf(pod);
  const int bins = load->bins();
  double tightest = -1;
  std::string where;
  char buf[160];
  for (int d = 0; d < kNumDims; ++d) {
    const float limit = load->limit(node, static_cast<Dim>(d));
    if (demand.peak[d] == 0.0f || limit == 0.0f) continue;
    std::span<const float> u = load->usage(node, static_cast<Dim>(d));
    for (int b = 0; b < bins; ++b) {
      const float c = demand.curve == nullptr ? demand.peak[d]
                                              : demand.curve[static_cast<size_t>(d) * bins + b];
      const float total = u[b] + c;
      if (total > limit) {
        std::snprintf(buf, sizeof buf, "%s over limit at %s: %.4g > %.4g (capacity x %.2f)",
                      std::string(DimName(static_cast<Dim>(d))).c_str(),
                      TimeOfBin(*load, b).c_str(), total, limit, 1.0 - load->buffer());
        return buf;
      }
      if (total / limit > tightest) {
        tightest = total / limit;
        std::snprintf(buf, sizeof buf, "%s %.0f%% of limit at %s",
                      std::string(DimName(static_cast<Dim>(d))).c_str(), 100.0 * tightest,
                      TimeOfBin(*load, b).c_str());
        where = buf;
      }
    }
  }
  return where.empty() ? "fits" : "fits (tightest: " + where + ")";
}

}  // namespace archimedes
