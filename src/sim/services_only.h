// The `services-only` run of the default comparison (issue 21): the same fleet and services with
// no batch at all, placed by requests as `k8s-default` places them — the fleet before
// co-location. A co-location policy's CPU utilisation divided by this run's is what the seed's
// "utilisation ×3" means; its ratio to `k8s-default` answers another question, since
// `k8s-default` runs the batch too (on the room services leave unrequested).
#ifndef ARCHIMEDES_SIM_SERVICES_ONLY_H_
#define ARCHIMEDES_SIM_SERVICES_ONLY_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/policy.h"
#include "model/workload.h"

namespace archimedes {

inline constexpr std::string_view kServicesOnly = "services-only";

// k8s-default's strategies under the name services-only.
Policy ServicesOnlyPolicy();

// `scenario` without its jobs: what the services-only run simulates.
Scenario WithoutBatch(Scenario scenario);

// The runs of `archimedes simulate` by default: the engine's compared policies (PolicyNames()),
// then services-only.
std::vector<std::string> DefaultComparison();

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_SERVICES_ONLY_H_
