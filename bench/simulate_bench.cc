// One simulated day of the default generated scenario under k8s-default, at 1,000 and 10,000
// nodes: wall time, and events (scheduling decisions, task completions, usage ticks of each node)
// per second. Run: build/simulate_bench [--benchmark_filter=/1000]
#include <benchmark/benchmark.h>

#include "engine/policy.h"
#include "sim/generator.h"
#include "sim/simulator.h"

namespace archimedes {
namespace {

void BM_SimulateOneDay(benchmark::State& state) {
  GeneratorParams params;
  params.nodes = static_cast<int>(state.range(0));
  params.days = 1;
  Scenario scenario = GenerateScenario(params);
  int64_t tasks = 0;
  for (const BatchJob& j : scenario.workload.jobs) tasks += j.tasks;
  SimOptions options;
  options.warmup_s = 0;
  Metrics m;
  for (auto _ : state) {
    Policy policy = MakePolicy("k8s-default");
    m = Simulate(scenario, policy, options);
  }
  const double ticks = static_cast<double>(params.nodes) * kSecondsPerDay / options.tick_s;
  const double events = static_cast<double>(m.decisions + m.tasks_finished) + ticks;
  state.counters["tasks_submitted"] = static_cast<double>(tasks);
  state.counters["decisions"] = static_cast<double>(m.decisions);
  state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["decision_p99_us"] = m.latency_p99_us;
}

BENCHMARK(BM_SimulateOneDay)->Arg(1000)->Arg(10000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace archimedes

BENCHMARK_MAIN();
