#include "sched/plugins/fragmentation.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

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

Fragmentation::Fragmentation(TaskShapeMix mix) : mix_(std::move(mix)) {
  if (mix_.size() > kMaxShapes) {
    throw std::invalid_argument("Fragmentation: the task-shape mix holds " +
                                std::to_string(mix_.size()) + " shapes; at most " +
                                std::to_string(kMaxShapes) + " are supported");
  }
  if (mix_.size() < kIndexedFrom) return;
  std::vector<size_t> order(mix_.size());
  for (int d = 0; d < kNumDims; ++d) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return mix_[a].first.amount[d] < mix_[b].first.amount[d];
    });
    smallest_[d].assign(1, 0);
    for (size_t i : order) {
      ascending_[d].push_back(mix_[i].first.amount[d]);
      smallest_[d].push_back(smallest_[d].back() | uint64_t{1} << i);
    }
  }
}

uint64_t Fragmentation::Fitting(const Resources& free) const {
  if (mix_.size() < kIndexedFrom) {
    uint64_t fitting = 0;
    for (size_t i = 0; i < mix_.size(); ++i) {
      fitting |= static_cast<uint64_t>(mix_[i].first.FitsIn(free)) << i;
    }
    return fitting;
  }
  uint64_t fitting = ~uint64_t{0};
  for (int d = 0; d < kNumDims; ++d) {
    const std::vector<int64_t>& amounts = ascending_[d];
    // Shapes whose amount is at most free[d] (equal amounts fit).
    const auto k =
        std::upper_bound(amounts.begin(), amounts.end(), free.amount[d]) - amounts.begin();
    fitting &= smallest_[d][static_cast<size_t>(k)];
  }
  return fitting;
}

double Fragmentation::ShareOf(uint64_t shapes) const {
  double share = 0;
  for (; shapes != 0; shapes &= shapes - 1) share += mix_[std::countr_zero(shapes)].second;
  return share;
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

FragmentationTerms Fragmentation::Terms(const SchedulingContext& ctx, const PodRequest& pod,
                                        NodeId node) const {
  FragmentationTerms t;
  RefreshTotals(ctx.state);
  if (max_weight_ == 0 || mix_.empty()) return t;
  // One pass over plain arrays: a scorer runs on hundreds of nodes per decision, and building
  // Resources temporaries element by element stalls on reading them back whole.
  const Resources& allocatable = ctx.state.allocatable(node);
  const Resources& requested = ctx.state.requested(node);
  Resources free, after;
  for (int d = 0; d < kNumDims; ++d) {
    free.amount[d] = std::max<int64_t>(allocatable.amount[d] - requested.amount[d], 0);
    after.amount[d] = std::max<int64_t>(free.amount[d] - pod.requests.amount[d], 0);
  }
  const uint64_t all = mix_.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << mix_.size()) - 1;
  const double unusable_before = ShareOf(all & ~Fitting(free));
  const double unusable_after = ShareOf(all & ~Fitting(after));
  const double weight_before = Weight(free), weight_after = Weight(after);
  t.unusable_before = weight_before == 0 ? 0 : weight_before * unusable_before;
  t.unusable_after = weight_after == 0 ? 0 : weight_after * unusable_after;
  t.max_node_weight = max_weight_;
  const double delta = (t.unusable_after - t.unusable_before) / max_weight_;
  t.score = std::clamp<int64_t>(RoundScore(50.0 * (1.0 - delta)), 0, kMaxNodeScore);
  return t;
}

int64_t Fragmentation::Score(const SchedulingContext& ctx, const PodRequest& pod,
                             NodeId node) const {
  return Terms(ctx, pod, node).score;
}

}  // namespace archimedes
