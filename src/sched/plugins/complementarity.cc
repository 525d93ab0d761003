#include "sched/plugins/complementarity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sched/predicted_load.h"

namespace archimedes {

ClassComplementarity::ClassComplementarity(const std::vector<ClassPair>& pairs) {
  for (const ClassPair& p : pairs) size_ = std::max({size_, p.a + 1, p.b + 1});
  scores_.assign(static_cast<size_t>(size_) * size_, 0.0f);
  for (const ClassPair& p : pairs) {
    if (p.a < 0 || p.b < 0) continue;
    scores_[static_cast<size_t>(p.a) * size_ + p.b] = p.score;
    scores_[static_cast<size_t>(p.b) * size_ + p.a] = p.score;
  }
}

ComplementarityTerms Complementarity::Terms(const SchedulingContext& ctx, const PodRequest& pod,
                                            NodeId node) const {
  ComplementarityTerms t;
  const PredictedLoad* load = ctx.predicted;
  if (load == nullptr) return t;
  const Demand demand = load->DemandOf(pod);
  const FillCurve* fill = project_room_ && !load->fill().empty() ? &load->fill() : nullptr;
  if (fill != nullptr) {
    const Resources free = ctx.state.unrequested(node);
    t.room = fill->Room(free);
    t.room_with = fill->Room(free - pod.requests);
  }
  // Locals, not t's arrays, in the loop: the compiler cannot keep the load's arrays in registers
  // across stores into t, and this runs on every node scored.
  const float* limits = load->limits(node);
  const float* node_peaks = load->peaks(node);
  const bool empty_node = load->residents(node) == 0;
  double weighted = 0, weights = 0;
  for (int d = 0; d < kNumDims; ++d) {
    const float limit = limits[d];
    const float p = demand.peak[d];
    const float node_peak = node_peaks[d];
    t.node_peak[d] = node_peak;
    t.pod_peak[d] = p;
    if (p == 0.0f || limit == 0.0f) continue;
    float rise = 0;
    if (fill != nullptr) {
      const auto [before, after] =
          load->ProjectedPeaks(node, static_cast<Dim>(d), demand, *fill, t.room, t.room_with);
      t.projected_peak[d] = before;
      rise = after - before;
    } else {
      // On an empty node the peak with the container is its own.
      const float after = empty_node ? p : load->PeakWith(node, static_cast<Dim>(d), demand);
      t.projected_peak[d] = node_peak;
      rise = std::clamp(after - node_peak, 0.0f, p);
    }
    const float weight = p / limit;
    t.rise[d] = rise;
    t.weight[d] = weight;
    // Projected, a container can lower the peak (it stands in for a pending replica), so the
    // neutral rise 0 maps to 1/2; today's peak only rises, and rise 0 is the best score.
    const double term = 1.0 - static_cast<double>(rise) / p;
    weighted += weight * (project_room_ ? std::clamp(term, 0.0, 2.0) / 2 : term);
    weights += weight;
  }
  t.curve_score = weights > 0 ? weighted / weights : 1.0;
  t.class_score = t.curve_score;
  const int32_t pod_class = pod.kind == OwnerKind::kService ? load->service_class(pod.owner) : -1;
  if (class_bonus_ > 0 && pod_class >= 0 && !classes_.empty()) {
    double sum = 0;
    for (ContainerId id : ctx.state.containers_on(node)) {
      const Container& c = ctx.state.container(id);
      if (c.kind != OwnerKind::kService) continue;
      const int32_t other = load->service_class(c.owner);
      if (other < 0) continue;
      sum += std::min(1.0, 2.0 * classes_.score(pod_class, other));
      ++t.classed_neighbours;
    }
    if (t.classed_neighbours > 0) t.class_score = sum / t.classed_neighbours;
  }
  const double total = (1.0 - class_bonus_) * t.curve_score + class_bonus_ * t.class_score;
  t.score = RoundScore(total * static_cast<double>(kMaxNodeScore));
  return t;
}

int64_t Complementarity::Score(const SchedulingContext& ctx, const PodRequest& pod,
                               NodeId node) const {
  return Terms(ctx, pod, node).score;
}

std::string DescribeComplementarity(const ComplementarityTerms& t) {
  std::string out;
  char buf[160];
  for (int d = 0; d < kNumDims; ++d) {
    if (t.weight[d] == 0.0f) continue;
    std::snprintf(
        buf, sizeof buf, "%s%s projected peak %.4g -> %.4g (%+.0f%% of its own %.4g; today %.4g)",
        out.empty() ? "" : ", ", std::string(DimName(static_cast<Dim>(d))).c_str(),
        t.projected_peak[d], t.projected_peak[d] + t.rise[d],
        t.pod_peak[d] > 0 ? 100.0 * t.rise[d] / t.pod_peak[d] : 0.0, t.pod_peak[d], t.node_peak[d]);
    out += buf;
  }
  std::snprintf(buf, sizeof buf,
                "; room %.1f -> %.1f average replicas; curve %.2f, class %.2f over %d classed "
                "neighbours",
                t.room, t.room_with, t.curve_score, t.class_score, t.classed_neighbours);
  return out + buf;
}

}  // namespace archimedes
