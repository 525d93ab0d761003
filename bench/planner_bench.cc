// Batch planner (issues 5 and 20): one full Replan of P pending tasks over N nodes × 288
// five-minute bins, late tasks planned anywhere in the horizon (W = 0) or only now (W = 1, as the
// simulator does). Targets on one core (issue 20): BM_Replan/1000/10000/0 (1,000 nodes, 10,000
// tasks) under 20 ms, /5000/10000/0 under 100 ms, and BM_PlanAdditional (one job arriving after a
// full re-plan) under 1 ms. /100/1000 is the small variant and /100/10000 an overloaded queue,
// where most jobs are late. Usage: planner_bench --benchmark_filter='/100/1000/' for the small
// run. Counters: tasks planned, tasks starting now, jobs whose tolerance cannot be met.
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "sched/batch_planner.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

struct Fleet {
  std::vector<Resources> capacity;
  std::vector<float> usage;  // nodes × kNumDims × 288
  std::vector<RunningTask> running;
  std::vector<PendingJob> jobs;
};

// Nodes of 64 cores and 256 GiB whose services follow daily curves peaking at node-dependent hours
// (the complementary mix a time-aware placement produces), a running batch population, and a
// pending mix of serverless (tolerance up to 10 min) and offline (1–12 h) jobs, some of them gangs.
Fleet MakeFleet(int nodes, int pending_tasks, int64_t now) {
  constexpr int kBins = 288;
  Fleet f;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  f.usage.assign(static_cast<size_t>(nodes) * kNumDims * kBins, 0.0f);
  for (int n = 0; n < nodes; ++n) {
    f.capacity.push_back(Resources::Of(64'000, 256 * kGi));
    const double phase = unit(rng) * 2 * std::numbers::pi;
    const double level = 0.3 + 0.2 * unit(rng);
    const double memory = (0.35 + 0.25 * unit(rng)) * 256 * kGi;
    for (int b = 0; b < kBins; ++b) {
      const double angle = 2 * std::numbers::pi * b / kBins + phase;
      f.usage[(static_cast<size_t>(n) * kNumDims + 0) * kBins + b] =
          static_cast<float>(64'000 * level * (1.0 + 0.6 * std::cos(angle)));
      f.usage[(static_cast<size_t>(n) * kNumDims + 1) * kBins + b] = static_cast<float>(memory);
    }
  }
  std::uniform_int_distribution<int> node(0, nodes - 1);
  for (int i = 0; i < pending_tasks / 3; ++i) {
    f.running.push_back({node(rng), Resources::Of(1000 + 1000 * (i % 3), 4 * kGi),
                         now + static_cast<int64_t>(unit(rng) * 7200)});
  }
  for (int tasks = 0; tasks < pending_tasks;) {
    PendingJob job;
    const bool serverless = unit(rng) < 0.4;
    job.type = serverless ? JobType::kServerless : JobType::kOffline;
    job.gang = unit(rng) < 0.03;
    job.tasks =
        job.gang ? 4 + static_cast<int>(unit(rng) * 5) : 1 + static_cast<int>(unit(rng) * 9);
    // One draw at a time: compilers order a call's arguments differently (g++'s order kept).
    const int64_t memory = kGi * (1 + static_cast<int>(unit(rng) * 8));
    const int64_t cpu = int64_t{500} * (1 + static_cast<int>(unit(rng) * 8));
    job.task_requests = Resources::Of(cpu, memory);
    job.priority = static_cast<int>(unit(rng) * 3);
    job.submit_time = now - static_cast<int64_t>(unit(rng) * 60);
    job.delay_tolerance_s = serverless ? static_cast<int64_t>(unit(rng) * 600)
                                       : 3600 + static_cast<int64_t>(unit(rng) * 11 * 3600);
    job.duration_estimate_s = 300 + static_cast<int64_t>(unit(rng) * 7200);
    tasks += job.tasks;
    f.jobs.push_back(job);
  }
  return f;
}

// Midday of the second day, off the bin grid.
constexpr int64_t kNow = 86'400 + 12 * 3600 + 17;

// The planner's view of `fleet` at `now`; refers to the fleet's arrays.
PlannerInput InputOf(const Fleet& fleet, int64_t now) {
  return PlannerInput{.now = now,
                      .capacity = fleet.capacity,
                      .service_usage = fleet.usage,
                      .usage_bins = 288,
                      .running = fleet.running,
                      .pending = fleet.jobs};
}

void BM_Replan(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int tasks = static_cast<int>(state.range(1));
  const int late_window = static_cast<int>(state.range(2));
  const int64_t now = kNow;
  const Fleet fleet = MakeFleet(nodes, tasks, now);
  const PlannerInput input = InputOf(fleet, now);
  BatchPlanner planner(PlannerOptions{.late_window_bins = late_window});
  for (auto _ : state) {
    planner.Replan(input);
    benchmark::DoNotOptimize(planner.placements().data());
  }
  state.counters["planned"] = static_cast<double>(planner.placements().size());
  state.counters["start_now"] = static_cast<double>(planner.start_now().size());
  state.counters["late_jobs"] = static_cast<double>(planner.late_jobs().size());
  state.counters["jobs"] = static_cast<double>(fleet.jobs.size());
}

// One job arriving after a full Replan of the fleet and queue above (PlanAdditional, as a server
// plans a submission between re-plans): a serverless job of 2 tasks and an offline job of 4
// tasks of 6 hours in turn. A full re-plan, untimed, every kArrivalsPerReplan arrivals, as a
// server re-plans at its cadence while submissions arrive in between (re-planning before every
// arrival would make the untimed part take minutes).
void BM_PlanAdditional(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int tasks = static_cast<int>(state.range(1));
  const int64_t now = kNow;
  const Fleet fleet = MakeFleet(nodes, tasks, now);
  const PlannerInput input = InputOf(fleet, now);
  const PendingJob arrivals[] = {{.type = JobType::kServerless,
                                  .task_requests = Resources::Of(1000, 2 * kGi),
                                  .tasks = 2,
                                  .submit_time = now,
                                  .delay_tolerance_s = 60,
                                  .duration_estimate_s = 120},
                                 {.type = JobType::kOffline,
                                  .task_requests = Resources::Of(4000, 16 * kGi),
                                  .tasks = 4,
                                  .submit_time = now,
                                  .delay_tolerance_s = int64_t{4} * 3600,
                                  .duration_estimate_s = int64_t{6} * 3600}};
  BatchPlanner planner(PlannerOptions{.late_window_bins = 1});
  constexpr int kArrivalsPerReplan = 64;
  int i = 0;
  for (auto _ : state) {
    if (i % kArrivalsPerReplan == 0) {
      state.PauseTiming();
      planner.Replan(input);
      state.ResumeTiming();
    }
    planner.PlanAdditional(now, std::span<const PendingJob>(&arrivals[i++ % 2], 1));
    benchmark::DoNotOptimize(planner.placements().data());
  }
}

BENCHMARK(BM_Replan)
    ->ArgsProduct({{100}, {1000, 10'000}, {0, 1}})
    ->Args({1000, 10'000, 0})
    ->Args({1000, 10'000, 1})
    ->Args({5000, 10'000, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanAdditional)->Args({1000, 10'000})->Iterations(8192)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace archimedes

BENCHMARK_MAIN();
