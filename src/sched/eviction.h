// SLA-ordered minimal eviction (DESIGN §4 "Eviction") for one node under pressure.
//
// The caller describes the node by how much must be freed per dimension (NeedToFree of its actual
// or predicted usage against its threshold; "free at least X in dimension d" is the same thing)
// and by its resident containers with their usage and SLA keys (sla_contract.h). A victim set S is
// feasible when
//   - for every dimension d with need[d] > 0, the usage of S in d sums to at least need[d], and
//   - no service loses more replicas than its disruption budget (running − min_available), so no
//     service is ever taken below its minimum availability, and
//   - S holds no service replica when the request says services are not evictable.
//
// Objective (Evictor): among the feasible sets, the one with the fewest victims; among those of the
// same size, the one whose most important victim comes earliest in the SLA order, then the second
// most important, and so on. Ranks are the positions in the SLA order with ties broken by the
// candidate's position in the request, so the objective is a total order and the optimum is
// unique: it minimises (|S|, Σ_{i∈S} 2^rank(i)).
//
// The search is exact (branch and bound over victim sets in objective order, pruned by bounds on
// what the remaining candidates can free, per dimension and summed over the dimensions as shares
// of the need) within a budget of search steps;
// beyond it the best of three greedy sets is returned, each pruned of redundant victims, one of
// which is the naive evictor's set restricted to useful victims, so the Evictor never evicts more
// containers than the NaiveEvictor. Neither evictor allocates once its workspace has grown to the
// largest node seen.
#ifndef ARCHIMEDES_SCHED_EVICTION_H_
#define ARCHIMEDES_SCHED_EVICTION_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/cluster_state.h"
#include "model/resources.h"
#include "sched/sla_contract.h"

namespace archimedes {

// What must be freed to bring `usage` to at most `threshold`, per dimension (never negative).
Resources NeedToFree(const Resources& usage, const Resources& threshold);

// Float usage (a simulator sample or a profile prediction) rounded to whole units.
Resources RoundUsage(const std::array<float, kNumDims>& usage);

struct EvictionCandidate {
  ContainerId id = -1;  // echoed back in the decision
  SlaKey sla;
  Resources usage;  // what evicting it frees (actual or predicted usage)
  // Index into EvictionRequest::disruption_budget shared by the replicas of one service (its
  // service index serves); -1 for containers without a budget (tasks).
  int32_t disruption_group = -1;
};

struct EvictionRequest {
  Resources need;
  std::span<const EvictionCandidate> candidates;
  // Per disruption group, how many of its containers may be evicted; a group at 0 is untouchable.
  std::span<const int32_t> disruption_budget;
  bool services_evictable = true;
};

struct EvictionDecision {
  // False when no feasible set exists; victims is then empty.
  bool feasible = false;
  // True when the victims are proven to be the optimum of the objective above.
  bool exact = false;
  // Ids of the victims, cheapest in SLA order first. Valid until the evictor's next call.
  std::span<const ContainerId> victims;
};

struct EvictorOptions {
  // Search steps (candidate trials) before the exact search gives up and keeps its best set.
  int64_t max_search_steps = 20000;
};

// The minimal evictor. Reuse one object: it is the workspace.
class Evictor {
 public:
  explicit Evictor(EvictorOptions options = {}) : options_(options) {}

  EvictionDecision ChooseVictims(const EvictionRequest& request);

 private:
  // Sets are lists of ranks (positions in order_).
  using RankSet = std::vector<int32_t>;

  void Prepare(const EvictionRequest& request);
  void BuildBounds(int max_m);
  // Slots [0, num_dims_) are the needed dimensions; slot kAggregate is Σ usage / need over them in
  // fixed point, which couples the dimensions in the search bound.
  static constexpr int kAggregate = kNumDims;
  static constexpr int kSlots = kNumDims + 1;
  int64_t Usage(int rank, int slot) const { return usage_[rank * kSlots + slot]; }
  int num_bounded_slots() const { return num_dims_ > 1 ? kSlots : num_dims_; }
  int bound_slot(int i) const { return i < num_dims_ ? i : kAggregate; }
  bool BudgetAllows(int rank) const;
  void Take(int rank, std::array<int64_t, kNumDims>& remaining, int sign);
  void Prune(RankSet& set);
  void GreedyInOrder(std::span<const int32_t> ranks, RankSet& out);
  void GreedyLargestFirst(RankSet& out);
  void ConsiderIncumbent(RankSet& set);
  bool CanCover(int m, int below, const std::array<int64_t, kNumDims>& remaining) const;
  bool Search(int m, int below, std::array<int64_t, kNumDims>& remaining);

  EvictorOptions options_;
  // Per call: the useful, evictable candidates in SLA order, and the dimensions that need freeing.
  std::vector<int32_t> order_;  // rank → index in the request
  std::array<int, kNumDims> dims_{};
  int num_dims_ = 0;
  std::array<int64_t, kNumDims> need_{};
  std::vector<int64_t> usage_;        // rank × kSlots
  std::vector<int32_t> group_of_;     // rank → local group, -1 for none
  std::vector<int32_t> group_left_;   // local group → evictions still allowed
  std::vector<int32_t> local_group_;  // request group → local group, -1 when unseen
  std::vector<int32_t> touched_groups_;
  // top_sum_[(i × (n + 1) + r) × (max_m_ + 1) + m]: the m largest usages in bound_slot(i) among
  // ranks [0, r), summed; prefix_sum_[i × (n + 1) + r]: all of them.
  std::vector<int64_t> top_sum_;
  std::vector<int64_t> prefix_sum_;
  std::vector<int64_t> top_;  // scratch for BuildBounds
  int max_m_ = 0;
  std::vector<int32_t> ranks_;  // scratch: the SLA order, then the naive order
  RankSet best_, trial_, stack_;
  std::vector<uint8_t> taken_;
  int64_t steps_ = 0;
  bool aborted_ = false;
  std::vector<ContainerId> victims_;
};

// The baseline: evicts in order of priority (lowest first), newest first among equals, skipping
// containers it may not evict, until the need is met. Same interface as Evictor; exact is false.
class NaiveEvictor {
 public:
  EvictionDecision ChooseVictims(const EvictionRequest& request);

 private:
  std::vector<int32_t> order_;
  std::vector<int32_t> used_;     // evictions per disruption group this call
  std::vector<int32_t> touched_;  // groups with used_ > 0
  std::vector<ContainerId> victims_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_EVICTION_H_
