#include "sim/services_only.h"

namespace archimedes {

Policy ServicesOnlyPolicy() {
  Policy policy = MakePolicy("k8s-default");
  policy.name = std::string(kServicesOnly);
  policy.description =
      "the services alone, placed by requests as k8s-default places them, no batch: the fleet "
      "before co-location";
  return policy;
}

Scenario WithoutBatch(Scenario scenario) {
  scenario.workload.jobs.clear();
  return scenario;
}

std::vector<std::string> DefaultComparison() {
  std::vector<std::string> runs = PolicyNames();
  runs.emplace_back(kServicesOnly);
  return runs;
}

}  // namespace archimedes
