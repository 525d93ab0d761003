// Scorer of DESIGN §4 "complementarity": prefer the node whose predicted peak (max over the day's
// bins) the new container raises least, so that services peaking at different hours or in
// different dimensions end up together.
//
// Per dimension d the container uses (its predicted peak p_d > 0, on a node that models d):
//   rise_d = max_b(node_b + container_b) − node peak      (0 ≤ rise_d ≤ p_d)
//   term_d = 1 − rise_d / p_d                             (1 = fits entirely into a valley)
// and the curve score is the mean of term_d weighted by p_d / limit_d, the share of the node's
// usable capacity the container takes in d, so the dimensions where it is large count most.
//
// Profile classes add a small bonus (share `class_bonus` of the score, default 10 %): the mean
// complementarity score (ClassPair::score, doubled and capped at 1) of the container's class with
// the classes of the node's residents. It separates nodes whose curves tie — empty nodes, or
// containers whose curve is small against the node — in favour of neighbours that profiling found
// complementary. Without a class for the container or any classed resident the bonus equals the
// curve score, so it never moves such nodes.
//
// Fast paths give the exact values of the full loop: a flat demand (no profile) raises the peak by
// exactly its value, and on an empty node the rise is the container's own peak.
#ifndef ARCHIMEDES_SCHED_PLUGINS_COMPLEMENTARITY_H_
#define ARCHIMEDES_SCHED_PLUGINS_COMPLEMENTARITY_H_

#include <array>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "sched/framework.h"

namespace archimedes {

// ClassPair::score of every pair of profile classes, as a dense symmetric table.
class ClassComplementarity {
 public:
  ClassComplementarity() = default;
  explicit ClassComplementarity(const std::vector<ClassPair>& pairs);
  // 0 when either class is unknown (negative or not in the table).
  float score(int a, int b) const {
    if (a < 0 || b < 0 || a >= size_ || b >= size_) return 0.0f;
    return scores_[static_cast<size_t>(a) * size_ + b];
  }
  bool empty() const { return size_ == 0; }

 private:
  int size_ = 0;
  std::vector<float> scores_;
};

// The per-dimension numbers behind the score, for explanations.
struct ComplementarityTerms {
  std::array<float, kNumDims> node_peak{};
  std::array<float, kNumDims> pod_peak{};
  std::array<float, kNumDims> rise{};
  std::array<float, kNumDims> weight{};  // p_d / limit_d; 0 for dimensions that do not count
  double curve_score = 1.0;              // in [0, 1]
  double class_score = 1.0;              // in [0, 1]
  int classed_neighbours = 0;
  int64_t score = kMaxNodeScore;
};

class Complementarity : public ScorePlugin {
 public:
  explicit Complementarity(ClassComplementarity classes = {}, double class_bonus = 0.1)
      : classes_(std::move(classes)), class_bonus_(class_bonus) {}
  std::string_view name() const override { return "Complementarity"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;

  // Every term of the score (the same value Score returns), for explanations.
  ComplementarityTerms Terms(const SchedulingContext& ctx, const PodRequest& pod,
                             NodeId node) const;

 private:
  ClassComplementarity classes_;
  double class_bonus_;
};

// "cpu +0.8 of 2.0 (peak 41.0 → 41.8), memory +0 of 4Gi ... class bonus 0.62 over 3 neighbours".
std::string DescribeComplementarity(const ComplementarityTerms& terms);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_COMPLEMENTARITY_H_
