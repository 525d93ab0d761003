// The synthetic fleet of the profiling benchmarks: `apps` applications of one replica each, a
// sample every 5 minutes for 7 days, four daily shapes (cosines a quarter-day apart) with jitter
// from a fixed xorshift stream. profile_bench feeds it to a Profiler in memory;
// usage_history_gen writes it as a usage history file for `archimedes profile --history`.
#ifndef ARCHIMEDES_BENCH_FLEET_USAGE_H_
#define ARCHIMEDES_BENCH_FLEET_USAGE_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "model/curve.h"
#include "model/resources.h"

namespace archimedes {

constexpr int64_t kFleetDays = 7;
constexpr int64_t kFleetStep = 300;

// Calls sample(time, app, usage) for every sample, time by time, apps in order within a time.
template <typename Sample>
void ForEachFleetSample(int apps, Sample&& sample) {
  uint64_t noise = 88172645463325252ull;
  for (int64_t t = 0; t < kFleetDays * kSecondsPerDay; t += kFleetStep) {
    const double angle =
        2.0 * std::numbers::pi * static_cast<double>(t % kSecondsPerDay) / kSecondsPerDay;
    for (int a = 0; a < apps; ++a) {
      noise ^= noise << 13;
      noise ^= noise >> 7;
      noise ^= noise << 17;
      const float jitter =
          0.9f + 0.2f * static_cast<float>(noise >> 40) / static_cast<float>(1 << 24);
      const float shape = 1.0f + 0.5f * static_cast<float>(std::cos(angle + (a % 4) * 1.5));
      const std::array<float, kNumDims> usage = {500.0f * shape * jitter, 2e9f * jitter,
                                                 1e7f * shape, 2e7f * shape * jitter, 0.0f};
      sample(t, a, usage);
    }
  }
}

}  // namespace archimedes

#endif  // ARCHIMEDES_BENCH_FLEET_USAGE_H_
