// The operator's check when sizing a fleet by requests: does kube-scheduler's default placement
// (the k8s-default policy) place every replica of these services on this fleet? The real scenario
// admits its service groups by it (trace/real_scenario.h), so that its fleet holds its services
// under request-based scheduling, as a fleet an operator runs does.
#ifndef ARCHIMEDES_SIM_KUBERNETES_FIT_H_
#define ARCHIMEDES_SIM_KUBERNETES_FIT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "model/node.h"
#include "model/workload.h"

namespace archimedes {

// Places `services` as a simulation with `seed` does at its start (every replica asked for at
// once, in the services' order, one scheduling cycle on an empty fleet) and says whether each
// replica found a node. Start and end times are not read: every service counts as running.
bool KubernetesPlacesEveryReplica(const std::vector<Node>& fleet,
                                  const std::vector<Service>& services, uint64_t seed);

// The same answer for a list that grows by one service at a time, as the real scenario asks it.
// A refusal is found by adding the last service to the placement of the ones before it (cheap:
// one service's replicas); only a list that may be admitted is placed again from an empty fleet,
// since ties drawn after a refusal differ from those of a simulation.
class KubernetesFit {
 public:
  explicit KubernetesFit(uint64_t seed) : seed_(seed) {}

  bool PlacesEveryReplica(const std::vector<Node>& fleet, const std::vector<Service>& services);

 private:
  bool ExtendsTrial(const std::vector<Node>& fleet, const std::vector<Service>& services) const;

  uint64_t seed_;
  // The services before the last one asked about, placed on `fleet_size_` nodes; its ties may be
  // drawn differently from a simulation's after a refusal, so it only ever refuses.
  std::unique_ptr<Engine> trial_;
  size_t fleet_size_ = 0;
  std::vector<std::string> trial_services_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_KUBERNETES_FIT_H_
