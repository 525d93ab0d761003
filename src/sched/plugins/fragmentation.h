// Scorer of DESIGN §4 "fragmentation": prefer the placement that increases the fleet's unusable
// free capacity least, by the fragmentation metric of DESIGN §5 (src/sim/metrics.h,
// FragmentationRate), evaluated on the candidate node before and after the container is added.
//
// A node's free vector f = max(0, allocatable − requested). Its weight W(f) = f.cpu ÷ Σcpu +
// f.memory ÷ Σmemory (shares of the fleet's allocatable), + f.gpu ÷ Σgpu on a fleet with GPUs
// (GPUs no shape can use are the fragments the FGD paper measures), and the share of the task-shape
// mix that cannot use it U(f) = Σ weights of the shapes that do not fit f. Its unusable capacity is
// W(f) × U(f), and the placement changes it by Δ = W(f')U(f') − W(f)U(f), f' = f − requests.
// Δ lies in [−Wmax, Wmax] (Wmax: the largest node's W(allocatable)), and the score is
// 50 × (1 − Δ / Wmax): 50 when nothing changes, above 50 when the container fills a fragment
// no shape could use, below when it leaves one behind.
#ifndef ARCHIMEDES_SCHED_PLUGINS_FRAGMENTATION_H_
#define ARCHIMEDES_SCHED_PLUGINS_FRAGMENTATION_H_

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sched/framework.h"

namespace archimedes {

// Request vectors of the observed task-shape mix and their weights (summing to 1), as
// ShapeMix::shapes() in src/sim/metrics.h.
using TaskShapeMix = std::vector<std::pair<Resources, double>>;

// How many service replicas and batch tasks asked for each request vector.
using ShapeCounts = std::map<std::array<int64_t, kNumDims>, double>;
// The `max_shapes` most frequent shapes of `counts` asked for at all (ties: the smaller vector
// first), each weighted by its share of the shapes kept; empty when nothing was asked for.
TaskShapeMix MostFrequentShapes(const ShapeCounts& counts, int max_shapes = 32);

struct FragmentationTerms {
  double unusable_before = 0;  // W(f) × U(f), in shares of the fleet's cpu + memory
  double unusable_after = 0;
  double max_node_weight = 0;
  int64_t score = kMaxNodeScore / 2;
};

class Fragmentation : public ScorePlugin {
 public:
  // At most kMaxShapes shapes (MostFrequentShapes keeps 32 by default); throws
  // std::invalid_argument for more.
  static constexpr size_t kMaxShapes = 64;
  explicit Fragmentation(TaskShapeMix mix);
  std::string_view name() const override { return "Fragmentation"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  FragmentationTerms Terms(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const;

 private:
  void RefreshTotals(const ClusterState& state) const;
  double Weight(const Resources& free) const;
  // The shapes of the mix that fit `free`, bit i for mix_[i].
  uint64_t Fitting(const Resources& free) const;
  // Σ share over the shapes in `shapes` (bits), added in mix order.
  double ShareOf(uint64_t shapes) const;

  TaskShapeMix mix_;
  // Smaller mixes are compared shape by shape: the index's searches would cost more than they save.
  static constexpr size_t kIndexedFrom = 8;
  // Per dimension, the shapes' amounts in ascending order, and for each k the set of the k shapes
  // of smallest amount: the shapes that fit a free vector are then one set per dimension, ANDed,
  // instead of a comparison per shape and dimension on every node scored. Empty below
  // kIndexedFrom shapes.
  std::array<std::vector<int64_t>, kNumDims> ascending_;
  std::array<std::vector<uint64_t>, kNumDims> smallest_;
  // Fleet totals, recomputed when the node count changes (allocatable never changes otherwise).
  mutable int totals_nodes_ = -1;
  mutable double total_cpu_ = 0, total_memory_ = 0, total_gpu_ = 0, max_weight_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_FRAGMENTATION_H_
