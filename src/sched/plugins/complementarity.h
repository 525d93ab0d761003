// Scorer of DESIGN §4 "complementarity": prefer the node whose predicted peak (max over the day's
// bins) the new container raises least, so that services peaking at different hours or in
// different dimensions end up together.
//
// By default the peak judged is today's: per dimension d the container uses (its predicted peak
// p_d > 0, on a node that models d)
//   rise_d = max_b(node_b + container_b) − node peak      (0 ≤ rise_d ≤ p_d)
//   term_d = 1 − rise_d / p_d                             (1 = fits entirely into a valley)
// Greedy on it, an empty node costs every container its whole peak, so containers pile onto the
// first nodes used until their requests bind and the last ones land wherever requests still fit.
//
// With `project_room` the peak judged is the node's *projected* one: its residents' curves plus
// the rest of its room (unrequested allocatable, counted in average replicas: FillCurve::Room)
// filled with the average replica still pending (PredictedLoad::fill()), hour by hour (each
// curve's maximum over a block of 12 bins), with room k before and k' after the container:
//   rise_d = max_h(node_h + container_h + k'·fill_h) − max_h(node_h + k·fill_h)   (rise_d ≤ p_d)
//   term_d = clamp(1 − rise_d / p_d, 0, 2) / 2
// 1/2 is neutral (the container is shaped like the pending replica it stands in for), 0 means its
// whole peak lands on the node's projected peak, above 1/2 it fills a projected valley. With
// nothing pending the room is 0 and the rise is today's.
//
// The curve score is the mean of term_d weighted by p_d / limit_d, the share of the node's usable
// capacity the container takes in d, so the dimensions where it is large count most.
//
// Profile classes add a small bonus (share `class_bonus` of the score, default 10 %): the mean
// complementarity score (ClassPair::score, doubled and capped at 1) of the container's class with
// the classes of the node's residents. It separates nodes whose curves tie in favour of neighbours
// that profiling found complementary. Without a class for the container or any classed resident
// the bonus equals the curve score, so it never moves such nodes.
//
// The peaks come from PredictedLoad::ProjectedPeaks (O(blocks) per dimension) and PeakWith, which
// give exactly the values of the full loops.
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
  std::array<float, kNumDims> projected_peak{};  // max_b(node_b + room × fill_b)
  std::array<float, kNumDims> rise{};            // of the projected peak
  std::array<float, kNumDims> weight{};  // p_d / limit_d; 0 for dimensions that do not count
  float room = 0, room_with = 0;         // average replicas the node holds before / after
  double curve_score = 1.0;              // in [0, 1]
  double class_score = 1.0;              // in [0, 1]
  int classed_neighbours = 0;
  int64_t score = kMaxNodeScore;
};

class Complementarity : public ScorePlugin {
 public:
  // `project_room`: judge the projected peak (above); otherwise today's peak.
  explicit Complementarity(ClassComplementarity classes = {}, double class_bonus = 0.1,
                           bool project_room = false)
      : classes_(std::move(classes)), class_bonus_(class_bonus), project_room_(project_room) {}
  std::string_view name() const override { return "Complementarity"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;

  // Every term of the score (the same value Score returns), for explanations.
  ComplementarityTerms Terms(const SchedulingContext& ctx, const PodRequest& pod,
                             NodeId node) const;

 private:
  ClassComplementarity classes_;
  double class_bonus_;
  bool project_room_;
};

// "cpu projected peak 52.1 -> 52.5 (+20% of its own 2000; today 41000), ...; room 6.2 -> 5.2
// average replicas; curve 0.41, class 0.62 over 3 classed neighbours".
std::string DescribeComplementarity(const ComplementarityTerms& terms);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_COMPLEMENTARITY_H_
