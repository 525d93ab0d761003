#include "sched/plugins/fragmentation.h"

#include <algorithm>
#include <cmath>

namespace archimedes {

TaskShapeMix MostFrequentShapes(const ShapeCounts& counts, int max_shapes) {
  TaskShapeMix all;
  all.reserve(counts.size());
  for (const auto& [amount, n] : counts) {
    if (n > 0) all.push_back({Resources{amount}, n});  // a shape nobody asked for weighs nothing
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first.amount < b.first.amount;
  });
  if (static_cast<int>(all.size()) > max_shapes) all.resize(max_shapes);
  double total = 0;
  for (const auto& s : all) total += s.second;
  for (auto& s : all) s.second /= total;
  return all;
}

void Fragmentation::RefreshTotals(const ClusterState& state) const {
  if (totals_nodes_ == state.num_nodes()) return;
  totals_nodes_ = state.num_nodes();
  total_cpu_ = total_memory_ = total_gpu_ = max_weight_ = 0;
  for (const Node& n : state.nodes()) {
    total_cpu_ += static_cast<double>(n.allocatable.cpu());
    total_memory_ += static_cast<double>(n.allocatable.memory());
    total_gpu_ += static_cast<double>(n.allocatable[Dim::kGpu]);
  }
  if (total_cpu_ == 0 || total_memory_ == 0) return;
  for (const Node& n : state.nodes()) max_weight_ = std::max(max_weight_, Weight(n.allocatable));
}

double Fragmentation::Weight(const Resources& free) const {
  double weight = static_cast<double>(free.cpu()) / total_cpu_ +
                  static_cast<double>(free.memory()) / total_memory_;
  if (total_gpu_ > 0) weight += static_cast<double>(free[Dim::kGpu]) / total_gpu_;
  return weight;
}

double Fragmentation::Unusable(const Resources& free) const {
  const double weight = Weight(free);
  if (weight == 0) return 0;
  double unusable_share = 0;
  for (const auto& [shape, share] : mix_) {
    if (!shape.FitsIn(free)) unusable_share += share;
  }
  return weight * unusable_share;
}

FragmentationTerms Fragmentation::Terms(const SchedulingContext& ctx, const PodRequest& pod,
                                        NodeId node) const {
  FragmentationTerms t;
  RefreshTotals(ctx.state);
  if (max_weight_ == 0 || mix_.empty()) return t;
  Resources free = ctx.state.unrequested(node);
  for (int64_t& a : free.amount) a = std::max<int64_t>(a, 0);
  Resources after = free - pod.requests;
  for (int64_t& a : after.amount) a = std::max<int64_t>(a, 0);
  t.unusable_before = Unusable(free);
  t.unusable_after = Unusable(after);
  t.max_node_weight = max_weight_;
  const double delta = (t.unusable_after - t.unusable_before) / max_weight_;
  t.score = std::clamp<int64_t>(std::llround(50.0 * (1.0 - delta)), 0, kMaxNodeScore);
  return t;
}

int64_t Fragmentation::Score(const SchedulingContext& ctx, const PodRequest& pod,
                             NodeId node) const {
  return Terms(ctx, pod, node).score;
}

}  // namespace archimedes
