// Profiling throughput (issue 3): N applications × 7 days of 5-minute samples × 4 dimensions, one
// replica each, streamed through the Profiler and finished (curves, features, classes,
// complementarity, right-sizing). Usage: profile_bench --benchmark_filter='/100$' for a small run;
// the /10000 case is the target size (< 60 s on one core, < 2 GB). Reports samples/s and the
// process's peak resident memory.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "profile/profiler.h"

namespace archimedes {
namespace {

void BM_ProfileFleet(benchmark::State& state) {
  const int apps = static_cast<int>(state.range(0));
  const int64_t days = 7, step = 300;
  size_t classes = 0;
  for (auto _ : state) {
    Profiler profiler;
    std::vector<int> ids(apps);
    for (int a = 0; a < apps; ++a) {
      std::string name = "app-" + std::to_string(a);
      ids[a] = profiler.ContainerIndex(name, name + "-0");
    }
    uint64_t noise = 88172645463325252ull;
    for (int64_t t = 0; t < days * kSecondsPerDay; t += step) {
      double angle =
          2.0 * std::numbers::pi * static_cast<double>(t % kSecondsPerDay) / kSecondsPerDay;
      for (int a = 0; a < apps; ++a) {
        noise ^= noise << 13;
        noise ^= noise >> 7;
        noise ^= noise << 17;
        float jitter = 0.9f + 0.2f * static_cast<float>(noise >> 40) / static_cast<float>(1 << 24);
        float shape = 1.0f + 0.5f * static_cast<float>(std::cos(angle + (a % 4) * 1.5));
        std::array<float, kNumDims> usage = {500.0f * shape * jitter, 2e9f * jitter, 1e7f * shape,
                                             2e7f * shape * jitter, 0.0f};
        profiler.Add(ids[a], t, usage);
      }
    }
    ProfileSet set = profiler.Finish();
    classes = set.classes.size();
    benchmark::DoNotOptimize(set);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(apps) * days * kSecondsPerDay / step * state.iterations(),
      benchmark::Counter::kIsRate);
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.counters["classes"] = static_cast<double>(classes);
}
BENCHMARK(BM_ProfileFleet)->Arg(100)->Arg(10'000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace archimedes

BENCHMARK_MAIN();
