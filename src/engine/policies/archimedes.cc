#include "engine/policy.h"

namespace archimedes {
namespace {

constexpr double kBuffer = 0.10;
// Offline tasks keep at least half their CPU: a serverless burst can at most double their run.
constexpr double kServerlessCpuBorrow = 0.5;

Policy Archimedes(std::string name, std::string description, bool refine, bool act_on_health,
                  double serverless_cpu_borrow) {
  Policy policy{.name = std::move(name),
                .description = std::move(description),
                .buffer = kBuffer,
                .keeps_buffer = true,
                .services = [refine](uint64_t seed) { return NewProfilePlacement(refine, seed); },
                .batch =
                    [serverless_cpu_borrow](uint64_t seed, double buffer) {
                      return NewPlannedBatch(buffer, serverless_cpu_borrow, seed + 1);
                    },
                .pressure = [] { return NewSlaRelief(); }};
  if (act_on_health) policy.health = [] { return NewHealthMigration(); };
  return policy;
}

}  // namespace

Policy ArchimedesPolicy() {
  return Archimedes("archimedes",
                    "profiles, time-aware complementary fragment-aware placement, batch planned "
                    "into valleys, burst buffer, minimal eviction",
                    true, true, kServerlessCpuBorrow);
}

Policy ArchimedesNoHealthPolicy() {
  return Archimedes("archimedes-no-health", "archimedes without acting on health warnings", true,
                    false, kServerlessCpuBorrow);
}

Policy ArchimedesGreedyPolicy() {
  return Archimedes("archimedes-greedy", "archimedes without refining the greedy service placement",
                    false, true, kServerlessCpuBorrow);
}

Policy ArchimedesNoBorrowPolicy() {
  return Archimedes("archimedes-no-borrow",
                    "archimedes with the serverless reserve's CPU kept free of offline tasks", true,
                    true, 0);
}

}  // namespace archimedes
