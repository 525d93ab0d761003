#include "sched/eviction.h"

#include <algorithm>
#include <cmath>

namespace archimedes {
namespace {

// Beyond this many victims the bound on what m candidates can free falls back to "all of them".
constexpr int kMaxBoundedVictims = 16;
// Fixed-point unit of the aggregate slot: a victim freeing all of one dimension's need weighs this.
constexpr double kAggregateUnit = 1 << 30;

// Same size: the set whose highest ranks are lower, compared from the top.
bool Better(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

}  // namespace

Resources NeedToFree(const Resources& usage, const Resources& threshold) {
  Resources need;
  for (int d = 0; d < kNumDims; ++d) {
    need.amount[d] = std::max<int64_t>(usage.amount[d] - threshold.amount[d], 0);
  }
  return need;
}

Resources RoundUsage(const std::array<float, kNumDims>& usage) {
  Resources r;
  for (int d = 0; d < kNumDims; ++d) r.amount[d] = std::llround(usage[d]);
  return r;
}

void Evictor::Prepare(const EvictionRequest& request) {
  num_dims_ = 0;
  for (int d = 0; d < kNumDims; ++d) {
    if (request.need.amount[d] > 0) {
      dims_[num_dims_] = d;
      need_[num_dims_] = request.need.amount[d];
      ++num_dims_;
    }
  }
  const std::span<const EvictionCandidate> cands = request.candidates;
  const std::span<const int32_t> budget = request.disruption_budget;
  order_.clear();
  for (int32_t i = 0; i < static_cast<int32_t>(cands.size()); ++i) {
    const EvictionCandidate& c = cands[i];
    if (c.sla.kind == OwnerKind::kService && !request.services_evictable) continue;
    if (c.disruption_group >= 0 && (static_cast<size_t>(c.disruption_group) >= budget.size() ||
                                    budget[c.disruption_group] <= 0)) {
      continue;
    }
    bool useful = false;
    for (int s = 0; s < num_dims_; ++s) useful = useful || c.usage.amount[dims_[s]] > 0;
    if (useful) order_.push_back(i);
  }
  std::sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) {
    if (EvictsBefore(cands[a].sla, cands[b].sla)) return true;
    if (EvictsBefore(cands[b].sla, cands[a].sla)) return false;
    return a < b;
  });

  const int n = static_cast<int>(order_.size());
  usage_.resize(static_cast<size_t>(n) * kSlots);
  group_of_.resize(n);
  group_left_.clear();
  if (local_group_.size() < budget.size()) local_group_.resize(budget.size(), -1);
  for (int r = 0; r < n; ++r) {
    const EvictionCandidate& c = cands[order_[r]];
    // What a victim frees beyond the need changes no verdict; clipping keeps sums small.
    double weight = 0;
    for (int s = 0; s < num_dims_; ++s) {
      const int64_t u = std::clamp<int64_t>(c.usage.amount[dims_[s]], 0, need_[s]);
      usage_[r * kSlots + s] = u;
      weight += static_cast<double>(u) / static_cast<double>(need_[s]);
    }
    // Rounded up, so that the bound it gives stays optimistic.
    usage_[r * kSlots + kAggregate] = static_cast<int64_t>(std::ceil(weight * kAggregateUnit)) + 1;
    group_of_[r] = -1;
    if (c.disruption_group >= 0) {
      int32_t& local = local_group_[c.disruption_group];
      if (local < 0) {
        local = static_cast<int32_t>(group_left_.size());
        group_left_.push_back(budget[c.disruption_group]);
        touched_groups_.push_back(c.disruption_group);
      }
      group_of_[r] = local;
    }
  }
  for (int32_t g : touched_groups_) local_group_[g] = -1;
  touched_groups_.clear();
}

bool Evictor::BudgetAllows(int rank) const {
  return group_of_[rank] < 0 || group_left_[group_of_[rank]] > 0;
}

void Evictor::Take(int rank, std::array<int64_t, kNumDims>& remaining, int sign) {
  for (int s = 0; s < num_dims_; ++s) remaining[s] -= sign * Usage(rank, s);
  if (group_of_[rank] >= 0) group_left_[group_of_[rank]] -= sign;
}

// Drops victims the others make unnecessary, the most important first.
void Evictor::Prune(RankSet& set) {
  std::sort(set.begin(), set.end());
  std::array<int64_t, kNumDims> freed{};
  for (int32_t r : set) {
    for (int s = 0; s < num_dims_; ++s) freed[s] += Usage(r, s);
  }
  for (size_t i = set.size(); i-- > 0;) {
    bool redundant = true;
    for (int s = 0; s < num_dims_; ++s) {
      redundant = redundant && freed[s] - Usage(set[i], s) >= need_[s];
    }
    if (!redundant) continue;
    for (int s = 0; s < num_dims_; ++s) freed[s] -= Usage(set[i], s);
    set.erase(set.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// Takes candidates in the given order while they help, until the need is met; `out` is left empty
// when it never is.
void Evictor::GreedyInOrder(std::span<const int32_t> ranks, RankSet& out) {
  out.clear();
  std::array<int64_t, kNumDims> remaining = need_;
  auto met = [&] {
    for (int s = 0; s < num_dims_; ++s) {
      if (remaining[s] > 0) return false;
    }
    return true;
  };
  for (int32_t r : ranks) {
    if (met()) break;
    if (!BudgetAllows(r)) continue;
    bool helps = false;
    for (int s = 0; s < num_dims_; ++s) helps = helps || (remaining[s] > 0 && Usage(r, s) > 0);
    if (!helps) continue;
    Take(r, remaining, 1);
    out.push_back(r);
  }
  for (int32_t r : out) Take(r, remaining, -1);
  if (!met()) out.clear();
}

// Repeatedly takes the candidate that covers the largest share of what is still needed (summed
// over dimensions, each relative to its need), the SLA-cheaper one among equals.
void Evictor::GreedyLargestFirst(RankSet& out) {
  out.clear();
  const int n = static_cast<int>(order_.size());
  taken_.assign(n, 0);
  std::array<int64_t, kNumDims> remaining = need_;
  while (true) {
    bool met = true;
    for (int s = 0; s < num_dims_; ++s) met = met && remaining[s] <= 0;
    if (met) break;
    int best = -1;
    double best_gain = 0;
    for (int r = 0; r < n; ++r) {
      if (taken_[r] || !BudgetAllows(r)) continue;
      double gain = 0;
      for (int s = 0; s < num_dims_; ++s) {
        if (remaining[s] > 0) {
          gain += static_cast<double>(std::min(Usage(r, s), remaining[s])) /
                  static_cast<double>(need_[s]);
        }
      }
      if (gain > best_gain) {
        best_gain = gain;
        best = r;
      }
    }
    if (best < 0) {
      for (int32_t r : out) Take(r, remaining, -1);
      out.clear();
      return;
    }
    taken_[best] = 1;
    Take(best, remaining, 1);
    out.push_back(best);
  }
  for (int32_t r : out) Take(r, remaining, -1);
}

void Evictor::ConsiderIncumbent(RankSet& set) {
  if (set.empty()) return;
  Prune(set);
  if (best_.empty() || Better(set, best_)) best_ = set;
}

void Evictor::BuildBounds(int max_m) {
  max_m_ = max_m;
  const int n = static_cast<int>(order_.size());
  const size_t stride = static_cast<size_t>(max_m_) + 1;
  top_sum_.resize(static_cast<size_t>(num_bounded_slots()) * (n + 1) * stride);
  prefix_sum_.resize(static_cast<size_t>(num_bounded_slots()) * (n + 1));
  top_.resize(max_m_);
  for (int i = 0; i < num_bounded_slots(); ++i) {
    const int s = bound_slot(i);
    int count = 0;  // top_[0, count) holds the largest usages so far, largest first
    int64_t prefix = 0;
    for (int r = 0; r <= n; ++r) {
      const size_t row = static_cast<size_t>(i) * (n + 1) + r;
      prefix_sum_[row] = prefix;
      int64_t sum = 0;
      for (int m = 0; m <= max_m_; ++m) {
        if (m > 0 && m <= count) sum += top_[m - 1];
        top_sum_[row * stride + m] = sum;
      }
      if (r == n) break;
      const int64_t u = Usage(r, s);
      prefix += u;
      int at;
      if (count < max_m_) {
        at = count++;
      } else if (max_m_ > 0 && u > top_[max_m_ - 1]) {
        at = max_m_ - 1;
      } else {
        continue;
      }
      top_[at] = u;
      while (at > 0 && top_[at - 1] < top_[at]) {
        std::swap(top_[at - 1], top_[at]);
        --at;
      }
    }
  }
}

// Whether m candidates of rank below `below` could free `remaining`: per dimension, and for the
// sum over dimensions of the shares of the need still open.
bool Evictor::CanCover(int m, int below, const std::array<int64_t, kNumDims>& remaining) const {
  const int n = static_cast<int>(order_.size());
  auto bound = [&](int i) {
    const size_t row = static_cast<size_t>(i) * (n + 1) + below;
    return m <= max_m_ ? top_sum_[row * (max_m_ + 1) + m] : prefix_sum_[row];
  };
  double open_share = 0;
  for (int s = 0; s < num_dims_; ++s) {
    if (remaining[s] <= 0) continue;
    if (m == 0 || bound(s) < remaining[s]) return false;
    open_share += static_cast<double>(remaining[s]) / static_cast<double>(need_[s]);
  }
  // Rounded down, so that only sets that surely cannot cover are pruned.
  return num_dims_ < 2 || m == 0 ||
         bound(num_dims_) >= static_cast<int64_t>(std::floor(open_share * kAggregateUnit)) - 1;
}

// Chooses m more victims among ranks [0, below), the highest first and smallest highest first, so
// that the first complete set found is the least in the objective among sets of its size.
bool Evictor::Search(int m, int below, std::array<int64_t, kNumDims>& remaining) {
  if (m == 0) return CanCover(0, below, remaining);
  for (int r = m - 1; r < below; ++r) {
    if (++steps_ > options_.max_search_steps) {
      aborted_ = true;
      return false;
    }
    if (!BudgetAllows(r)) continue;
    Take(r, remaining, 1);
    if (CanCover(m - 1, r, remaining)) {
      stack_.push_back(r);
      if (Search(m - 1, r, remaining)) {
        Take(r, remaining, -1);
        return true;
      }
      stack_.pop_back();
    }
    Take(r, remaining, -1);
    if (aborted_) return false;
  }
  return false;
}

EvictionDecision Evictor::ChooseVictims(const EvictionRequest& request) {
  Prepare(request);
  victims_.clear();
  if (num_dims_ == 0) return {.feasible = true, .exact = true, .victims = victims_};
  const int n = static_cast<int>(order_.size());
  for (int s = 0; s < num_dims_; ++s) {
    int64_t all = 0;
    for (int r = 0; r < n; ++r) all += Usage(r, s);
    if (all < need_[s]) return {.feasible = false, .exact = true, .victims = victims_};
  }

  best_.clear();
  ranks_.resize(n);
  for (int r = 0; r < n; ++r) ranks_[r] = r;
  GreedyInOrder(ranks_, trial_);
  ConsiderIncumbent(trial_);
  GreedyLargestFirst(trial_);
  ConsiderIncumbent(trial_);
  // The naive evictor's order, so that this evictor never evicts more than the naive one.
  const std::span<const EvictionCandidate> cands = request.candidates;
  std::sort(ranks_.begin(), ranks_.end(), [&](int32_t a, int32_t b) {
    const SlaKey& ka = cands[order_[a]].sla;
    const SlaKey& kb = cands[order_[b]].sla;
    if (ka.priority != kb.priority) return ka.priority < kb.priority;
    if (ka.start_time != kb.start_time) return ka.start_time > kb.start_time;
    return order_[a] < order_[b];
  });
  GreedyInOrder(ranks_, trial_);
  ConsiderIncumbent(trial_);

  const int upper = best_.empty() ? n : static_cast<int>(best_.size());
  BuildBounds(std::clamp(upper - 1, 0, kMaxBoundedVictims));
  int lower = 1;
  for (int s = 0; s < num_dims_; ++s) {
    int m = 1;
    const size_t row = static_cast<size_t>(s) * (n + 1) + n;  // slot s is bound row s
    while (m <= max_m_ && top_sum_[row * (max_m_ + 1) + m] < need_[s]) ++m;
    lower = std::max(lower, m);
  }

  steps_ = 0;
  aborted_ = false;
  bool exact = false;
  std::array<int64_t, kNumDims> remaining = need_;
  for (int k = lower; k <= upper && !aborted_; ++k) {
    stack_.clear();
    if (Search(k, n, remaining)) {
      best_.assign(stack_.rbegin(), stack_.rend());
      exact = true;
      break;
    }
  }
  if (!aborted_) exact = true;
  for (int32_t r : best_) victims_.push_back(cands[order_[r]].id);
  return {.feasible = !best_.empty(), .exact = exact, .victims = victims_};
}

EvictionDecision NaiveEvictor::ChooseVictims(const EvictionRequest& request) {
  const std::span<const EvictionCandidate> cands = request.candidates;
  const std::span<const int32_t> budget = request.disruption_budget;
  victims_.clear();
  std::array<int64_t, kNumDims> remaining = request.need.amount;
  auto met = [&] {
    for (int64_t r : remaining) {
      if (r > 0) return false;
    }
    return true;
  };
  if (met()) return {.feasible = true, .exact = false, .victims = victims_};
  order_.resize(cands.size());
  for (int32_t i = 0; i < static_cast<int32_t>(cands.size()); ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) {
    const SlaKey& ka = cands[a].sla;
    const SlaKey& kb = cands[b].sla;
    if (ka.priority != kb.priority) return ka.priority < kb.priority;
    if (ka.start_time != kb.start_time) return ka.start_time > kb.start_time;
    return a < b;
  });
  if (used_.size() < budget.size()) used_.resize(budget.size(), 0);
  for (int32_t i : order_) {
    if (met()) break;
    const EvictionCandidate& c = cands[i];
    if (c.sla.kind == OwnerKind::kService && !request.services_evictable) continue;
    const int32_t g = c.disruption_group;
    if (g >= 0 && (static_cast<size_t>(g) >= budget.size() || used_[g] >= budget[g])) continue;
    if (g >= 0 && used_[g]++ == 0) touched_.push_back(g);
    for (int d = 0; d < kNumDims; ++d) remaining[d] -= c.usage.amount[d];
    victims_.push_back(c.id);
  }
  for (int32_t g : touched_) used_[g] = 0;
  touched_.clear();
  if (!met()) {
    victims_.clear();
    return {.feasible = false, .exact = false, .victims = victims_};
  }
  return {.feasible = true, .exact = false, .victims = victims_};
}

}  // namespace archimedes
