#include "sched/reclaimable.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace archimedes {
namespace {

constexpr std::array<Dim, 2> kIncompressible = {Dim::kMemory, Dim::kGpu};

using Deficit = std::array<double, kIncompressible.size()>;

bool Covered(const Deficit& remaining) {
  return std::all_of(remaining.begin(), remaining.end(), [](double r) { return r <= 0; });
}

// Whether `budget` more tasks (not yet chosen) can cover `remaining`, picking greedily the task
// that covers the largest share of what is left. Exact for one dimension with a deficit (it then
// takes the largest users), a close approximation for two.
bool CanCover(Deficit remaining, int budget, std::span<const YieldingTask> tasks,
              std::vector<uint8_t>& chosen, const Deficit& total) {
  std::vector<int32_t> picked;
  bool ok = Covered(remaining);
  for (int step = 0; step < budget && !ok; ++step) {
    int32_t best = -1;
    double best_gain = 0;
    for (size_t t = 0; t < tasks.size(); ++t) {
      if (chosen[t]) continue;
      double gain = 0;
      for (size_t k = 0; k < kIncompressible.size(); ++k) {
        if (remaining[k] <= 0) continue;
        double use = tasks[t].usage[static_cast<int>(kIncompressible[k])];
        gain += std::min(use, remaining[k]) / total[k];
      }
      if (gain > best_gain) {
        best_gain = gain;
        best = static_cast<int32_t>(t);
      }
    }
    if (best < 0) break;
    chosen[best] = 1;
    picked.push_back(best);
    for (size_t k = 0; k < kIncompressible.size(); ++k) {
      remaining[k] -= tasks[best].usage[static_cast<int>(kIncompressible[k])];
    }
    ok = Covered(remaining);
  }
  for (int32_t t : picked) chosen[t] = 0;
  return ok;
}

}  // namespace

bool Compressible(Dim dim) { return dim == Dim::kCpu || dim == Dim::kDisk || dim == Dim::kNetwork; }

YieldDecision YieldToServices(const std::array<double, kNumDims>& service_usage,
                              std::span<const YieldingTask> tasks, const Resources& capacity,
                              double buffer) {
  YieldDecision decision;
  std::array<double, kNumDims> allowed{}, batch{};
  for (int d = 0; d < kNumDims; ++d) {
    allowed[d] =
        std::max(0.0, static_cast<double>(capacity.amount[d]) * (1.0 - buffer) - service_usage[d]);
  }
  for (const YieldingTask& t : tasks) {
    for (int d = 0; d < kNumDims; ++d) batch[d] += t.usage[d];
  }

  Deficit deficit{}, total{};
  for (size_t k = 0; k < kIncompressible.size(); ++k) {
    const int d = static_cast<int>(kIncompressible[k]);
    deficit[k] = batch[d] - allowed[d];
    total[k] = std::max(deficit[k], 1.0);
  }
  if (!Covered(deficit)) {
    std::vector<uint8_t> chosen(tasks.size());
    // The fewest victims: how many the greedy cover needs.
    int needed = 0;
    while (needed < static_cast<int>(tasks.size()) &&
           !CanCover(deficit, needed, tasks, chosen, total)) {
      ++needed;
    }
    // Among sets of that size, least progress first: take the least advanced task whenever the
    // rest of the budget can still cover what remains.
    std::vector<int32_t> by_progress(tasks.size());
    std::iota(by_progress.begin(), by_progress.end(), 0);
    std::stable_sort(by_progress.begin(), by_progress.end(),
                     [&](int32_t a, int32_t b) { return tasks[a].progress < tasks[b].progress; });
    Deficit remaining = deficit;
    int budget = needed;
    for (int32_t t : by_progress) {
      if (budget == 0 || Covered(remaining)) break;
      Deficit after = remaining;
      bool helps = false;
      for (size_t k = 0; k < kIncompressible.size(); ++k) {
        const double use = tasks[t].usage[static_cast<int>(kIncompressible[k])];
        helps = helps || (remaining[k] > 0 && use > 0);
        after[k] -= use;
      }
      if (!helps) continue;
      chosen[t] = 1;
      if (CanCover(after, budget - 1, tasks, chosen, total)) {
        remaining = after;
        --budget;
        decision.evict.push_back(t);
      } else {
        chosen[t] = 0;
      }
    }
    std::sort(decision.evict.begin(), decision.evict.end());
    for (int32_t t : decision.evict) {
      for (int d = 0; d < kNumDims; ++d) batch[d] -= tasks[t].usage[d];
    }
  }

  for (int d = 0; d < kNumDims; ++d) {
    if (!Compressible(static_cast<Dim>(d)) || batch[d] <= 0) continue;
    decision.throttle = std::min(decision.throttle, std::clamp(allowed[d] / batch[d], 0.0, 1.0));
  }
  return decision;
}

}  // namespace archimedes
