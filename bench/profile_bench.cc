// Profiling throughput (issue 3): N applications × 7 days of 5-minute samples × 4 dimensions, one
// replica each, streamed through the Profiler and finished (curves, features, classes,
// complementarity, right-sizing). Usage: profile_bench --benchmark_filter='/100$' for a small run;
// the /10000 case is the target size (< 60 s on one core, < 2 GB). Reports samples/s and the
// process's peak resident memory.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "fleet_usage.h"
#include "profile/profiler.h"

namespace archimedes {
namespace {

void BM_ProfileFleet(benchmark::State& state) {
  const int apps = static_cast<int>(state.range(0));
  size_t classes = 0;
  for (auto _ : state) {
    Profiler profiler;
    std::vector<int> ids(apps);
    for (int a = 0; a < apps; ++a) {
      std::string name = "app-" + std::to_string(a);
      ids[a] = profiler.ContainerIndex(name, name + "-0");
    }
    ForEachFleetSample(apps, [&](int64_t time, int app, const std::array<float, kNumDims>& usage) {
      profiler.Add(ids[app], time, usage);
    });
    ProfileSet set = profiler.Finish();
    classes = set.classes.size();
    benchmark::DoNotOptimize(set);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(apps) * kFleetDays * kSecondsPerDay / kFleetStep * state.iterations(),
      benchmark::Counter::kIsRate);
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.counters["classes"] = static_cast<double>(classes);
}
BENCHMARK(BM_ProfileFleet)->Arg(100)->Arg(10'000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace archimedes

BENCHMARK_MAIN();
