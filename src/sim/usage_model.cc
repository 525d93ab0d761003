#include "sim/usage_model.h"
#include "model/hash.h"

#include <algorithm>
#include <cmath>

namespace archimedes {
namespace {

// A standard normal from two hashed uniforms (Box–Muller).
double HashNormal(uint64_t key) {
  double u1 = std::max(HashUniform(key), 1e-12);
  double u2 = HashUniform(key ^ 0x5851f42d4c957f2dULL);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

double HashUniform(uint64_t key) { return UnitInterval(SplitMix64(key)); }

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

Usage TaskUsage(const BatchJob& job) {
  Usage u{};
  for (Dim d : kAllDims) {
    u[static_cast<int>(d)] =
        static_cast<float>(static_cast<double>(job.task_requests[d]) * job.utilization);
  }
  return u;
}

}  // namespace archimedes
