// Eviction decision time (issue 7): one node of 10, 50 or 200 residents whose usage stands 2–15 %
// over its threshold (90 % of 64 cores and of 256 GiB), a third of the residents service replicas
// of a few services with small disruption budgets, the rest batch tasks. Each benchmark cycles
// through 256 such nodes. Reports, besides the time per decision, the mean number of victims and
// the share of decisions the minimal evictor proved optimal (the rest come from its greedy
// fallback). Usage: eviction_bench [--benchmark_filter=Minimal].
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sched/eviction.h"

namespace archimedes {
namespace {

struct BenchNode {
  std::vector<EvictionCandidate> candidates;
  Resources need;
};

constexpr int kServices = 8;

std::vector<BenchNode> MakeNodes(int residents) {
  std::mt19937_64 rng(residents);
  std::uniform_real_distribution<double> unit(0, 1);
  const Resources capacity = Resources::Of(64000, int64_t{256} << 30);
  const Resources threshold = capacity.Scaled(0.9);
  std::vector<BenchNode> nodes(256);
  for (BenchNode& node : nodes) {
    const double over = 1.02 + 0.13 * unit(rng);
    // Shares of the node's usage, uneven as real residents are.
    std::vector<std::array<double, 2>> shares(residents);
    std::array<double, 2> total{};
    for (auto& s : shares) {
      for (int d = 0; d < 2; ++d) {
        s[d] = 0.2 + unit(rng) * unit(rng) * 3;
        total[d] += s[d];
      }
    }
    for (int i = 0; i < residents; ++i) {
      EvictionCandidate c;
      c.id = i;
      const bool service = unit(rng) < 1.0 / 3;
      c.sla = {.kind = service ? OwnerKind::kService : OwnerKind::kTask,
               .priority = static_cast<int>(unit(rng) * 4),
               .loss = service ? 0.25 : unit(rng),
               .start_time = static_cast<int64_t>(unit(rng) * 86400)};
      if (service) c.disruption_group = static_cast<int32_t>(unit(rng) * kServices);
      for (int d = 0; d < 2; ++d) {
        c.usage.amount[d] = static_cast<int64_t>(static_cast<double>(threshold.amount[d]) * over *
                                                 shares[i][d] / total[d]);
      }
      node.need += c.usage;
      node.candidates.push_back(c);
    }
    node.need = NeedToFree(node.need, threshold);
  }
  return nodes;
}

template <typename Evictor>
void RunEviction(benchmark::State& state, Evictor& evictor) {
  const std::vector<BenchNode> nodes = MakeNodes(static_cast<int>(state.range(0)));
  const std::vector<int32_t> budget = {1, 2, 1, 3, 0, 2, 1, 4};
  size_t next = 0;
  int64_t decisions = 0, victims = 0, exact = 0;
  for (auto _ : state) {
    const BenchNode& node = nodes[next];
    next = (next + 1) % nodes.size();
    EvictionDecision d = evictor.ChooseVictims(
        {.need = node.need, .candidates = node.candidates, .disruption_budget = budget});
    benchmark::DoNotOptimize(d);
    ++decisions;
    victims += static_cast<int64_t>(d.victims.size());
    exact += d.exact;
  }
  state.counters["victims"] = static_cast<double>(victims) / static_cast<double>(decisions);
  state.counters["exact"] = static_cast<double>(exact) / static_cast<double>(decisions);
}

void BM_MinimalEviction(benchmark::State& state) {
  Evictor evictor;
  RunEviction(state, evictor);
}

void BM_NaiveEviction(benchmark::State& state) {
  NaiveEvictor evictor;
  RunEviction(state, evictor);
}

BENCHMARK(BM_MinimalEviction)->Arg(10)->Arg(50)->Arg(200);
BENCHMARK(BM_NaiveEviction)->Arg(10)->Arg(50)->Arg(200);

}  // namespace
}  // namespace archimedes

BENCHMARK_MAIN();
