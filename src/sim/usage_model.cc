#include "sim/usage_model.h"

#include <algorithm>
#include <cmath>

#include "model/random.h"

namespace archimedes {
namespace {

// A standard normal from two hashed uniforms (Box–Muller).
double HashNormal(uint64_t key) {
  double u1 = std::max(HashUniform(key), 1e-12);
  double u2 = HashUniform(key ^ 0x5851f42d4c957f2dULL);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

Usage ServiceReplicaUsage(const Service& service, int32_t service_index, int32_t replica, int64_t t,
                          uint64_t seed) {
  const UsagePattern& p = service.usage;
  Usage u{};
  if (p.samples() == 0) return u;
  int64_t step = t / p.step_seconds;
  uint64_t key = SplitMix64(
      seed ^
      SplitMix64((static_cast<uint64_t>(service_index) << 32) ^ static_cast<uint32_t>(replica)) ^
      SplitMix64(static_cast<uint64_t>(step)));
  double noise = p.noise > 0 ? std::max(0.0, 1.0 + p.noise * HashNormal(key)) : 1.0;
  bool burst =
      p.burst_probability > 0 && HashUniform(key ^ 0xb5ad4eceda1ce2a9ULL) < p.burst_probability;
  for (Dim d : kAllDims) {
    double v = p.At(d, t);
    // Memory is held, not demanded moment to moment: it is smoother than CPU.
    double n = d == Dim::kMemory ? 1.0 + (noise - 1.0) * 0.25 : noise;
    v *= n;
    if (burst && d == Dim::kCpu) v *= p.burst_factor;
    u[static_cast<int>(d)] = static_cast<float>(v);
  }
  return u;
}

double LeakedMemory(const Service& service, int32_t service_index, int32_t replica,
                    int64_t start_time, int64_t t, uint64_t seed) {
  const UsagePattern& p = service.usage;
  if (p.leak_per_day <= 0 || p.leak_rate <= 0) return 0.0;
  const uint64_t key = SplitMix64(
      seed ^ 0x9e6c63d0676a9a99ULL ^
      SplitMix64((static_cast<uint64_t>(service_index) << 32) ^ static_cast<uint32_t>(replica)) ^
      SplitMix64(static_cast<uint64_t>(start_time)));
  // Exponential age at onset: a constant hazard, so a container is as likely to start leaking in
  // any hour of its life and a run of any length sees leaks at a steady rate.
  const double onset_age =
      -std::log(1.0 - HashUniform(key)) / p.leak_per_day * static_cast<double>(kSecondsPerDay);
  const double leaking_for = static_cast<double>(t - start_time) - onset_age;
  return leaking_for > 0 ? leaking_for * p.leak_rate : 0.0;
}

Usage ServiceContainerUsage(const Service& service, int32_t service_index, int32_t replica,
                            int64_t start_time, int64_t t, uint64_t seed) {
  Usage u = ServiceReplicaUsage(service, service_index, replica, t, seed);
  u[static_cast<int>(Dim::kMemory)] +=
      static_cast<float>(LeakedMemory(service, service_index, replica, start_time, t, seed));
  return u;
}

Usage TaskUsage(const BatchJob& job) {
  Usage u{};
  for (Dim d : kAllDims) {
    u[static_cast<int>(d)] =
        static_cast<float>(static_cast<double>(job.task_requests[d]) * job.utilization);
  }
  return u;
}

}  // namespace archimedes
