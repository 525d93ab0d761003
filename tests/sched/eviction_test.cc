#include "sched/eviction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "sched/sla_contract.h"

namespace archimedes {
namespace {

EvictionCandidate Task(ContainerId id, int priority, double loss, int64_t cpu, int64_t memory = 0) {
  return {.id = id,
          .sla = {.kind = OwnerKind::kTask, .priority = priority, .loss = loss},
          .usage = Resources::Of(cpu, memory)};
}

EvictionCandidate Replica(ContainerId id, int32_t service, int priority, int64_t cpu,
                          int64_t memory = 0) {
  return {.id = id,
          .sla = {.kind = OwnerKind::kService, .priority = priority, .loss = 0.5},
          .usage = Resources::Of(cpu, memory),
          .disruption_group = service};
}

std::vector<ContainerId> Victims(const EvictionDecision& d) {
  std::vector<ContainerId> v(d.victims.begin(), d.victims.end());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SlaContractTest, QosDefaultsMatchTheNativeFormat) {
  EXPECT_DOUBLE_EQ(DefaultServiceSla(QosClass::kGuaranteed, 5).availability, 0.999);
  EXPECT_EQ(DefaultServiceSla(QosClass::kGuaranteed, 5).min_available, 4);
  EXPECT_EQ(DefaultServiceSla(QosClass::kGuaranteed, 0).min_available, 0);
  EXPECT_DOUBLE_EQ(DefaultServiceSla(QosClass::kBurstable, 5).availability, 0.99);
  EXPECT_EQ(DefaultServiceSla(QosClass::kBurstable, 5).min_available, 0);
  EXPECT_DOUBLE_EQ(DefaultServiceSla(QosClass::kBestEffort, 5).availability, 0.95);
  EXPECT_EQ(DefaultServiceSla(QosClass::kBestEffort, 5).min_available, 0);
}

TEST(SlaContractTest, BudgetsAndLosses) {
  EXPECT_EQ(DisruptionBudget({.min_available = 2}, 5), 3);
  EXPECT_EQ(DisruptionBudget({.min_available = 2}, 1), 0);
  EXPECT_DOUBLE_EQ(TaskLoss(30, 120), 0.25);
  EXPECT_DOUBLE_EQ(TaskLoss(500, 120), 1.0);
  EXPECT_DOUBLE_EQ(TaskLoss(10, 0), 1.0);
  EXPECT_DOUBLE_EQ(ReplicaLoss(4), 0.25);
  EXPECT_DOUBLE_EQ(ReplicaLoss(0), 1.0);
}

TEST(SlaContractTest, OrderIsKindThenPriorityThenLossThenNewest) {
  const SlaKey task{.kind = OwnerKind::kTask, .priority = 100, .loss = 0.9};
  const SlaKey replica{.kind = OwnerKind::kService, .priority = 0, .loss = 0.1};
  EXPECT_TRUE(EvictsBefore(task, replica));
  EXPECT_FALSE(EvictsBefore(replica, task));
  EXPECT_TRUE(EvictsBefore({.priority = 1, .loss = 0.9}, {.priority = 2, .loss = 0.1}));
  EXPECT_TRUE(EvictsBefore({.loss = 0.1}, {.loss = 0.2}));
  EXPECT_TRUE(EvictsBefore({.start_time = 50}, {.start_time = 10}));
  EXPECT_FALSE(EvictsBefore({.start_time = 10}, {.start_time = 10}));
}

TEST(EvictionTest, NothingToFreeEvictsNothing) {
  Evictor evictor;
  const std::vector<EvictionCandidate> cands = {Task(1, 0, 0, 500)};
  EvictionDecision d = evictor.ChooseVictims({.need = Resources{}, .candidates = cands});
  EXPECT_TRUE(d.feasible);
  EXPECT_TRUE(d.victims.empty());
  EXPECT_EQ(NeedToFree(Resources::Of(800, 10), Resources::Of(900, 5)), Resources::Of(0, 5));
}

TEST(EvictionTest, BatchBeforeServices) {
  Evictor evictor;
  const std::vector<int32_t> budget = {3};
  const std::vector<EvictionCandidate> cands = {Replica(1, 0, 0, 1000), Task(2, 100, 0.9, 1000)};
  EvictionDecision d = evictor.ChooseVictims(
      {.need = Resources::Of(600, 0), .candidates = cands, .disruption_budget = budget});
  EXPECT_EQ(Victims(d), std::vector<ContainerId>{2});
  EXPECT_TRUE(d.exact);
}

TEST(EvictionTest, LowerPriorityFirst) {
  Evictor evictor;
  const std::vector<EvictionCandidate> cands = {Task(1, 5, 0, 1000), Task(2, 3, 0.5, 1000),
                                                Task(3, 4, 0, 1000)};
  EvictionDecision d = evictor.ChooseVictims({.need = Resources::Of(600, 0), .candidates = cands});
  EXPECT_EQ(Victims(d), std::vector<ContainerId>{2});
}

TEST(EvictionTest, LeastProgressLostFirst) {
  Evictor evictor;
  const std::vector<EvictionCandidate> cands = {Task(1, 0, 0.8, 1000), Task(2, 0, 0.1, 1000),
                                                Task(3, 0, 0.5, 1000)};
  EvictionDecision d = evictor.ChooseVictims({.need = Resources::Of(600, 0), .candidates = cands});
  EXPECT_EQ(Victims(d), std::vector<ContainerId>{2});
}

TEST(EvictionTest, FewerVictimsBeforeCheaperVictims) {
  Evictor evictor;
  const std::vector<int32_t> budget = {1};
  const std::vector<EvictionCandidate> cands = {Task(1, 0, 0, 400), Task(2, 0, 0, 400),
                                                Replica(3, 0, 9, 900)};
  EvictionDecision d = evictor.ChooseVictims(
      {.need = Resources::Of(700, 0), .candidates = cands, .disruption_budget = budget});
  EXPECT_EQ(Victims(d), std::vector<ContainerId>{3});
  // With services off limits the two tasks are the only way.
  d = evictor.ChooseVictims({.need = Resources::Of(700, 0),
                             .candidates = cands,
                             .disruption_budget = budget,
                             .services_evictable = false});
  EXPECT_EQ(Victims(d), (std::vector<ContainerId>{1, 2}));
}

TEST(EvictionTest, AmongEqualSizesTheMostImportantVictimIsLeastImportant) {
  Evictor evictor;
  // {1, 4} and {2, 3} are the only pairs that free enough; the worst of {2, 3} (priority 3) is
  // cheaper than the worst of {1, 4} (priority 4), though {1, 4} holds the cheapest container.
  const std::vector<EvictionCandidate> cands = {Task(1, 1, 0, 900, 0), Task(2, 2, 0, 500, 500),
                                                Task(3, 3, 0, 500, 500), Task(4, 4, 0, 100, 1000)};
  EvictionDecision d =
      evictor.ChooseVictims({.need = Resources::Of(1000, 1000), .candidates = cands});
  EXPECT_EQ(Victims(d), (std::vector<ContainerId>{2, 3}));
}

TEST(EvictionTest, NeverBelowMinimumAvailability) {
  Evictor evictor;
  NaiveEvictor naive;
  // Service 0 may lose one more replica, service 1 none.
  const std::vector<int32_t> budget = {1, 0};
  const std::vector<EvictionCandidate> cands = {Replica(1, 0, 0, 500), Replica(2, 0, 0, 500),
                                                Replica(3, 1, 0, 2000)};
  for (int64_t need : {400, 900}) {
    const EvictionRequest request{
        .need = Resources::Of(need, 0), .candidates = cands, .disruption_budget = budget};
    EvictionDecision d = evictor.ChooseVictims(request);
    EvictionDecision n = naive.ChooseVictims(request);
    if (need == 400) {
      EXPECT_TRUE(d.feasible);
      EXPECT_EQ(d.victims.size(), 1u);
      EXPECT_NE(d.victims[0], 3);
      EXPECT_EQ(n.victims.size(), 1u);
      EXPECT_NE(n.victims[0], 3);
    } else {
      EXPECT_FALSE(d.feasible);
      EXPECT_TRUE(d.exact);
      EXPECT_TRUE(d.victims.empty());
      EXPECT_FALSE(n.feasible);
    }
  }
}

TEST(EvictionTest, EveryNeededDimensionIsFreed) {
  Evictor evictor;
  const std::vector<EvictionCandidate> cands = {Task(1, 0, 0, 2000, 10), Task(2, 1, 0, 10, 2000),
                                                Task(3, 2, 0, 1500, 1500)};
  EvictionDecision d =
      evictor.ChooseVictims({.need = Resources::Of(1000, 1000), .candidates = cands});
  EXPECT_EQ(Victims(d), std::vector<ContainerId>{3});
}

TEST(EvictionTest, NaiveEvictsInPriorityOrderUntilItFits) {
  NaiveEvictor naive;
  const std::vector<EvictionCandidate> cands = {Task(1, 2, 0, 1000), Task(2, 0, 0, 100),
                                                Task(3, 1, 0, 100)};
  EvictionDecision d = naive.ChooseVictims({.need = Resources::Of(600, 0), .candidates = cands});
  ASSERT_EQ(d.victims.size(), 3u);
  EXPECT_EQ(d.victims[0], 2);
  EXPECT_EQ(d.victims[1], 3);
  EXPECT_EQ(d.victims[2], 1);
}

// A random node: up to `max_n` residents of both kinds, a few services with small budgets, ties
// in every SLA field, usage in two dimensions and a need that is sometimes impossible.
struct RandomNode {
  std::vector<EvictionCandidate> candidates;
  std::vector<int32_t> budget;
  Resources need;
  bool services_evictable = true;
};

RandomNode MakeRandomNode(std::mt19937_64& rng, int max_n) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomNode node;
  for (int s = 0; s < 3; ++s) node.budget.push_back(uniform(0, 2));
  const int n = uniform(1, max_n);
  Resources total;
  for (int i = 0; i < n; ++i) {
    EvictionCandidate c;
    c.id = 100 + i;
    c.sla.kind = uniform(0, 2) == 0 ? OwnerKind::kService : OwnerKind::kTask;
    c.sla.priority = uniform(0, 2);
    c.sla.loss = uniform(0, 3) / 4.0;
    c.sla.start_time = uniform(0, 3);
    if (c.sla.kind == OwnerKind::kService) c.disruption_group = uniform(0, 2);
    c.usage = Resources::Of(int64_t{100} * uniform(0, 10), int64_t{256} * uniform(0, 8));
    total += c.usage;
    node.candidates.push_back(c);
  }
  for (int d = 0; d < 2; ++d) {
    node.need.amount[d] = uniform(0, 1) == 0 ? 0 : total.amount[d] * uniform(1, 90) / 100;
  }
  node.services_evictable = uniform(0, 4) != 0;
  return node;
}

EvictionRequest RequestOf(const RandomNode& node) {
  return {.need = node.need,
          .candidates = node.candidates,
          .disruption_budget = node.budget,
          .services_evictable = node.services_evictable};
}

bool Feasible(const RandomNode& node, const std::vector<ContainerId>& victims) {
  Resources freed;
  std::vector<int32_t> used(node.budget.size());
  for (ContainerId id : victims) {
    const EvictionCandidate& c = node.candidates[id - 100];
    if (c.sla.kind == OwnerKind::kService && !node.services_evictable) return false;
    if (c.disruption_group >= 0 && ++used[c.disruption_group] > node.budget[c.disruption_group]) {
      return false;
    }
    freed += c.usage;
  }
  for (int d = 0; d < kNumDims; ++d) {
    if (freed.amount[d] < node.need.amount[d]) return false;
  }
  return true;
}

// The optimum by enumeration: fewest victims, then the least mask over SLA ranks.
std::vector<ContainerId> BruteForce(const RandomNode& node, bool& feasible) {
  const int n = static_cast<int>(node.candidates.size());
  std::vector<int> by_rank(n);
  std::iota(by_rank.begin(), by_rank.end(), 0);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](int a, int b) {
    return EvictsBefore(node.candidates[a].sla, node.candidates[b].sla);
  });
  feasible = false;
  int best_size = n + 1;
  uint32_t best_mask = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    std::vector<ContainerId> set;
    for (int r = 0; r < n; ++r) {
      if (mask & (1u << r)) set.push_back(node.candidates[by_rank[r]].id);
    }
    if (!Feasible(node, set)) continue;
    const int size = static_cast<int>(set.size());
    if (!feasible || size < best_size || (size == best_size && mask < best_mask)) {
      feasible = true;
      best_size = size;
      best_mask = mask;
    }
  }
  std::vector<ContainerId> best;
  for (int r = 0; r < n; ++r) {
    if (feasible && (best_mask & (1u << r))) best.push_back(node.candidates[by_rank[r]].id);
  }
  std::sort(best.begin(), best.end());
  return best;
}

TEST(EvictionTest, MatchesBruteForceOnSmallRandomNodes) {
  std::mt19937_64 rng(7);
  Evictor evictor;
  NaiveEvictor naive;
  int feasible_cases = 0, infeasible_cases = 0, strictly_fewer = 0, naive_infeasible = 0;
  int64_t naive_victims = 0, minimal_victims = 0;
  constexpr int kCases = 2000;
  for (int i = 0; i < kCases; ++i) {
    const RandomNode node = MakeRandomNode(rng, 10);
    bool feasible = false;
    const std::vector<ContainerId> expected = BruteForce(node, feasible);
    const EvictionDecision d = evictor.ChooseVictims(RequestOf(node));
    ASSERT_EQ(d.feasible, feasible) << "case " << i;
    ASSERT_TRUE(d.exact) << "case " << i;
    ASSERT_EQ(Victims(d), expected) << "case " << i;
    if (!feasible) {
      ++infeasible_cases;
      continue;
    }
    ++feasible_cases;
    const EvictionDecision n = naive.ChooseVictims(RequestOf(node));
    if (!n.feasible) {
      ++naive_infeasible;
      continue;
    }
    ASSERT_TRUE(Feasible(node, Victims(n))) << "case " << i;
    ASSERT_LE(expected.size(), n.victims.size()) << "case " << i;
    strictly_fewer += expected.size() < n.victims.size();
    naive_victims += static_cast<int64_t>(n.victims.size());
    minimal_victims += static_cast<int64_t>(expected.size());
  }
  std::printf(
      "%d random nodes: %d feasible (%d where the naive evictor also fails), %d infeasible; the "
      "minimal evictor evicts strictly fewer than the naive one in %d; victims %lld vs %lld\n",
      kCases, feasible_cases, naive_infeasible, infeasible_cases, strictly_fewer,
      static_cast<long long>(minimal_victims), static_cast<long long>(naive_victims));
  EXPECT_GT(feasible_cases, kCases / 2);
  EXPECT_GT(infeasible_cases, 0);
  EXPECT_GT(strictly_fewer, 0);
}

TEST(EvictionTest, LargeNodesStayFeasibleAndNeverWorseThanNaive) {
  std::mt19937_64 rng(11);
  Evictor evictor(EvictorOptions{.max_search_steps = 2000});
  NaiveEvictor naive;
  int inexact = 0;
  for (int i = 0; i < 200; ++i) {
    RandomNode node = MakeRandomNode(rng, 60);
    const EvictionDecision d = evictor.ChooseVictims(RequestOf(node));
    const EvictionDecision n = naive.ChooseVictims(RequestOf(node));
    inexact += !d.exact;
    if (n.feasible) {
      ASSERT_TRUE(d.feasible) << "case " << i;
      ASSERT_LE(d.victims.size(), n.victims.size()) << "case " << i;
    }
    if (d.feasible) {
      ASSERT_TRUE(Feasible(node, Victims(d))) << "case " << i;
    }
  }
  std::printf("200 nodes of up to 60 residents: %d decided by the greedy fallback\n", inexact);
}

}  // namespace
}  // namespace archimedes
