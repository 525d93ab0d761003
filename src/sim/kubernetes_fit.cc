#include "sim/kubernetes_fit.h"

#include <algorithm>

namespace archimedes {
namespace {

bool AllPlaced(const Engine& engine, int32_t service, int replicas) {
  return engine.service_status(service).replicas.size() >= static_cast<size_t>(replicas);
}

// The engine after placing every replica of `services` in one cycle, and whether all found a node.
std::unique_ptr<Engine> PlaceAtStart(const std::vector<Node>& fleet,
                                     const std::vector<Service>& services, uint64_t seed,
                                     bool* all_placed) {
  auto engine = std::make_unique<Engine>(
      MakePolicy("k8s-default"), EngineOptions{.seed = seed, .sla_ledger = false}, fleet, services);
  engine->AdvanceTo(0);
  for (size_t s = 0; s < services.size(); ++s) {
    engine->ScaleService(static_cast<int32_t>(s), services[s].replicas);
  }
  engine->Schedule();
  engine->ClearActions();
  *all_placed = true;
  for (size_t s = 0; s < services.size(); ++s) {
    *all_placed = *all_placed && AllPlaced(*engine, static_cast<int32_t>(s), services[s].replicas);
  }
  return engine;
}

}  // namespace

bool KubernetesPlacesEveryReplica(const std::vector<Node>& fleet,
                                  const std::vector<Service>& services, uint64_t seed) {
  bool all_placed = false;
  PlaceAtStart(fleet, services, seed, &all_placed);
  return all_placed;
}

bool KubernetesFit::ExtendsTrial(const std::vector<Node>& fleet,
                                 const std::vector<Service>& services) const {
  if (trial_ == nullptr || fleet.size() != fleet_size_ ||
      services.size() != trial_services_.size() + 1) {
    return false;
  }
  return std::equal(trial_services_.begin(), trial_services_.end(), services.begin(),
                    [](const std::string& name, const Service& s) { return name == s.name; });
}

bool KubernetesFit::PlacesEveryReplica(const std::vector<Node>& fleet,
                                       const std::vector<Service>& services) {
  if (services.empty()) return true;
  if (!ExtendsTrial(fleet, services)) {
    const std::vector<Service> before(services.begin(), services.end() - 1);
    bool all_placed = false;
    trial_ = PlaceAtStart(fleet, before, seed_, &all_placed);
    fleet_size_ = fleet.size();
    trial_services_.clear();
    for (const Service& s : before) trial_services_.push_back(s.name);
    if (!all_placed) return false;
  }
  const Service& last = services.back();
  const int32_t id = trial_->CreateService(last);
  trial_->ScaleService(id, last.replicas);
  trial_->Schedule();
  const bool placed = AllPlaced(*trial_, id, last.replicas);
  trial_->DeleteService(id);
  trial_->ClearActions();
  if (!placed) return false;

  bool all_placed = false;
  std::unique_ptr<Engine> exact = PlaceAtStart(fleet, services, seed_, &all_placed);
  if (!all_placed) return false;
  trial_ = std::move(exact);
  trial_services_.push_back(last.name);
  return true;
}

}  // namespace archimedes
