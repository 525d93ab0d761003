#include "sched/framework.h"

#include <algorithm>

namespace archimedes {

PodRequest ServicePodRequest(const Service& service, int32_t s) {
  return PodRequest{
      .requests = service.requests,
      .priority = service.priority,
      .kind = OwnerKind::kService,
      .owner = s,
      .max_per_node = service.max_per_node,
      .node_selector = service.node_selector.empty() ? nullptr : &service.node_selector,
      .node_affinity = service.node_affinity,
      .tolerations = service.tolerations};
}

namespace {

// Calls visit(n) for the nodes of [from, to), in id order, that the candidate index cannot rule
// out for `need`, until it returns true; returns that node, or -1.
template <typename Visit>
NodeId ScanCandidates(const ClusterState& state, const Resources& need, NodeId from, NodeId to,
                      Visit&& visit) {
  constexpr int kBlock = ClusterState::kIndexBlock;
  for (NodeId n = from; n < to;) {
    const int block = n / kBlock;
    const NodeId end = std::min((block + 1) * kBlock, to);
    if (state.BlockMayHold(block, need)) {
      for (; n < end; ++n) {
        if (state.Holds(n, need) && visit(n)) return n;
      }
    }
    n = end;
  }
  return -1;
}

}  // namespace

void FeasibilityMemo::Reset() {
  for (NodeId n : touched_) verdicts_[n] = kUnknown;
  touched_.clear();
  open_.clear();
  open_nodes_ = 0;
  closing_ = false;
  scans_ = 0;
}

void FeasibilityMemo::Placed(NodeId n) {
  if (verdict(n) == kScored) verdicts_[n] = kUnknown;  // stays in touched_: harmless
}

void FeasibilityMemo::Set(NodeId n, Verdict v, int num_nodes) {
  if (verdicts_.size() < static_cast<size_t>(num_nodes)) {
    verdicts_.resize(num_nodes);
    scores_.resize(num_nodes);
  }
  if (verdicts_[n] == kUnknown) touched_.push_back(n);
  verdicts_[n] = v;
  closing_ = closing_ || v == kInfeasible;
}

void FeasibilityMemo::Open(const ClusterState& state, const Resources& need) {
  // Nodes join the fleet with the next ids, so a grown fleet only appends to the list.
  ScanCandidates(state, need, open_nodes_, state.num_nodes(), [&](NodeId n) {
    if (verdict(n) != kInfeasible) open_.push_back(n);
    return false;
  });
  open_nodes_ = state.num_nodes();
}

void FeasibilityMemo::CloseInfeasible() {
  if (!closing_) return;
  std::erase_if(open_, [&](NodeId n) { return verdicts_[n] == kInfeasible; });
  closing_ = false;
}

Scheduler::Scheduler(std::vector<std::unique_ptr<FilterPlugin>> filters,
                     std::vector<WeightedScorer> scorers, SchedulerOptions options)
    : filters_(std::move(filters)),
      scorers_(std::move(scorers)),
      options_(options),
      rng_(options.seed) {
  for (const auto& f : filters_) {
    for (Dim d : f->guaranteed_dims()) guaranteed_[static_cast<int>(d)] = true;
    node_local_ = node_local_ && f->node_local();
    batch_room_guaranteed_ = batch_room_guaranteed_ || f->guarantees_batch_room();
  }
  for (const WeightedScorer& s : scorers_) node_local_ = node_local_ && s.plugin->node_local();
}

Resources Scheduler::IndexNeed(const PodRequest& pod) const {
  Resources need;
  for (Dim d : ClusterState::kIndexedDims) {
    if (guaranteed_[static_cast<int>(d)]) need[d] = pod.requests[d];
  }
  return need;
}

bool Scheduler::Feasible(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const {
  for (const auto& f : filters_) {
    if (!f->Filter(ctx, pod, node)) return false;
  }
  return true;
}

bool Scheduler::PassesApplying(const SchedulingContext& ctx, const PodRequest& pod,
                               NodeId node) const {
  for (const FilterPlugin* f : applying_) {
    if (!f->Filter(ctx, pod, node)) return false;
  }
  return true;
}

int64_t Scheduler::TotalScore(const SchedulingContext& ctx, const PodRequest& pod,
                              NodeId node) const {
  int64_t total = 0;
  for (const WeightedScorer& s : scorers_) total += s.weight * s.plugin->Score(ctx, pod, node);
  return total;
}

int Scheduler::NodesToFind(int num_nodes) const {
  constexpr int kMinFeasibleNodesToFind = 100;
  constexpr int kMinFeasibleNodesPercentageToFind = 5;
  if (num_nodes < kMinFeasibleNodesToFind || options_.percentage_of_nodes_to_score >= 100) {
    return num_nodes;
  }
  int percentage = options_.percentage_of_nodes_to_score;
  if (percentage <= 0) {
    percentage = std::max(50 - num_nodes / 125, kMinFeasibleNodesPercentageToFind);
  }
  int n = static_cast<int>(static_cast<int64_t>(num_nodes) * percentage / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

NodeId Scheduler::Schedule(const SchedulingContext& ctx, const PodRequest& pod,
                           FeasibilityMemo* memo) {
  const int num_nodes = ctx.state.num_nodes();
  if (num_nodes == 0) return -1;
  const int to_find = NodesToFind(num_nodes);
  feasible_.clear();
  applying_.clear();
  for (const auto& f : filters_) {
    if (f->AppliesTo(ctx, pod)) applying_.push_back(f.get());
  }
  const Resources need = IndexNeed(pod);
  // With the memo, a node known to pass keeps its score (node-local plugins only).
  const bool keep_scores = memo != nullptr && node_local_;
  // A node short of batch room fails a filter that guarantees it: no filter is called there.
  const std::span<const std::array<int64_t, 2>> room =
      batch_room_guaranteed_ && ctx.batch_room.size() == static_cast<size_t>(num_nodes)
          ? ctx.batch_room
          : std::span<const std::array<int64_t, 2>>{};
  auto room_may_hold = [&](NodeId node) {
    return room.empty() ||
           (room[node][0] >= pod.requests.cpu() && room[node][1] >= pod.requests.memory());
  };
  auto visit = [&](NodeId node) {
    const FeasibilityMemo::Verdict known =
        memo != nullptr ? memo->verdict(node) : FeasibilityMemo::kUnknown;
    if (known == FeasibilityMemo::kInfeasible) return false;
    if (known == FeasibilityMemo::kScored ||
        (room_may_hold(node) && PassesApplying(ctx, pod, node))) {
      feasible_.push_back(node);
      return static_cast<int>(feasible_.size()) == to_find;
    }
    if (memo != nullptr) memo->Set(node, FeasibilityMemo::kInfeasible, num_nodes);
    return false;
  };
  // Round-robin from next_start_; the next decision starts after the node that completed the
  // sample, or here again when the whole fleet was visited. From the second decision with a memo
  // on, the scan walks only the nodes not known infeasible, which visits the same nodes in the same
  // order; a node that cannot hold the index's need is known infeasible from then on.
  NodeId last = -1;
  if (memo != nullptr && memo->scans_++ > 0) {
    memo->Open(ctx.state, need);
    const std::span<const NodeId> open = memo->open_;
    auto scan_open = [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        if (!ctx.state.Holds(open[i], need)) {
          memo->Set(open[i], FeasibilityMemo::kInfeasible, num_nodes);
        } else if (visit(open[i])) {
          return open[i];
        }
      }
      return NodeId{-1};
    };
    const size_t split =
        static_cast<size_t>(std::lower_bound(open.begin(), open.end(), next_start_) - open.begin());
    last = scan_open(split, open.size());
    if (last < 0) last = scan_open(0, split);
    memo->CloseInfeasible();
  } else {
    last = ScanCandidates(ctx.state, need, next_start_, num_nodes, visit);
    if (last < 0) last = ScanCandidates(ctx.state, need, 0, next_start_, visit);
  }
  if (last >= 0) next_start_ = last + 1 == num_nodes ? 0 : last + 1;
  if (feasible_.empty()) return -1;
  if (feasible_.size() == 1) return feasible_[0];

  // Highest total wins; ties are broken uniformly at random (reservoir sampling).
  NodeId best = -1;
  int64_t best_score = -1;
  uint64_t ties = 0;
  for (NodeId node : feasible_) {
    int64_t score = 0;
    if (keep_scores && memo->verdict(node) == FeasibilityMemo::kScored) {
      score = memo->scores_[node];
    } else {
      score = TotalScore(ctx, pod, node);
      if (keep_scores) {
        memo->Set(node, FeasibilityMemo::kScored, num_nodes);
        memo->scores_[node] = score;
      }
    }
    if (score > best_score) {
      best_score = score;
      best = node;
      ties = 1;
    } else if (score == best_score) {
      ++ties;
      if (rng_.Next() % ties == 0) best = node;
    }
  }
  return best;
}

bool Scheduler::AnyFeasible(const SchedulingContext& ctx, const PodRequest& pod) const {
  return ScanCandidates(ctx.state, IndexNeed(pod), 0, ctx.state.num_nodes(),
                        [&](NodeId node) { return Feasible(ctx, pod, node); }) >= 0;
}

std::vector<NodeExplanation> Scheduler::Explain(const SchedulingContext& ctx,
                                                const PodRequest& pod) const {
  std::vector<NodeExplanation> out;
  out.reserve(ctx.state.num_nodes());
  for (NodeId node = 0; node < ctx.state.num_nodes(); ++node) {
    NodeExplanation e{.node = node};
    for (const auto& f : filters_) {
      if (!f->Filter(ctx, pod, node)) {
        e.failed_filter = std::string(f->name());
        break;
      }
    }
    if (e.failed_filter.empty()) {
      for (const WeightedScorer& s : scorers_) {
        int64_t score = s.plugin->Score(ctx, pod, node);
        e.scores.push_back(score);
        e.total += s.weight * score;
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string_view> Scheduler::scorer_names() const {
  std::vector<std::string_view> names;
  for (const WeightedScorer& s : scorers_) names.push_back(s.plugin->name());
  return names;
}

}  // namespace archimedes
