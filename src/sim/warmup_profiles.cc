#include "sim/warmup_profiles.h"

#include <algorithm>
#include <string>

#include "profile/profiler.h"
#include "sim/usage_model.h"

namespace archimedes {

ProfileSet LearnWarmupProfiles(const Workload& workload, int64_t warmup_s, uint64_t seed) {
  // Uncalibrated: the engine's surge margin and the golden reports were set on those curves.
  Profiler profiler(ProfileOptions{.calibrated = false});
  constexpr int64_t kSampleStep = 300;
  for (size_t s = 0; s < workload.services.size(); ++s) {
    const Service& svc = workload.services[s];
    const int64_t from = std::max<int64_t>(svc.start_time, 0);
    const int64_t to = std::min(svc.end_time, warmup_s);
    for (int r = 0; r < svc.replicas && from < to; ++r) {
      const int container =
          profiler.ContainerIndex(AppName(svc), svc.name + "-" + std::to_string(r));
      for (int64_t t = from - from % kSampleStep; t < to; t += kSampleStep) {
        profiler.Add(container, t, ServiceReplicaUsage(svc, static_cast<int32_t>(s), r, t, seed));
      }
    }
  }
  return profiler.Finish();
}

}  // namespace archimedes
