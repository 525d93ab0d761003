// The profiles the profile-driven policies learn when no --profiles are given: the warm-up day's
// usage history of every service replica, as a recording of that day would give it (service usage
// does not depend on placement, so every policy and every fleet size learns the same profiles).
#ifndef ARCHIMEDES_SIM_WARMUP_PROFILES_H_
#define ARCHIMEDES_SIM_WARMUP_PROFILES_H_

#include <cstdint>

#include "model/workload.h"
#include "profile/profile.h"

namespace archimedes {

// Samples every replica's usage (sim/usage_model.h) every 5 minutes over [max(start, 0),
// min(end, warmup_s)) and profiles it; applications without samples get no profile.
ProfileSet LearnWarmupProfiles(const Workload& workload, int64_t warmup_s, uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_WARMUP_PROFILES_H_
