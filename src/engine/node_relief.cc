#include "engine/node_relief.h"

#include <algorithm>
#include <array>

#include "engine/core.h"
#include "sched/migration.h"
#include "sched/sla_contract.h"

namespace archimedes {

void NodeRelief::RelieveBatch(EngineCore& core, NodeId n) { Relieve(core, n, false, nullptr); }

void NodeRelief::RelieveAll(EngineCore& core, NodeId n, const SurgeMargin* margin) {
  Relieve(core, n, true, margin);
}

void NodeRelief::Relieve(EngineCore& core, NodeId n, bool services_too, const SurgeMargin* margin) {
  const ClusterState& state = core.state();
  const Node& node = state.node(n);
  const EngineOptions& options = core.options();
  const double cpu_threshold = options.cpu_hot_threshold;
  const double batch_memory_threshold = 1.0 - core.policy().buffer;
  double service_cpu = 0, service_memory = 0, leaving_cpu = 0, leaving_memory = 0, batch_memory = 0;
  staying_services_.clear();
  leaving_services_.clear();
  for (const auto& [id, u] : core.node_usage()) {
    const Container& c = state.container(id);
    if (c.kind == OwnerKind::kService) {
      if (auto move = core.FindMove(id); move != core.moves().end() && move->old == id) {
        leaving_cpu += u[0];
        leaving_memory += u[1];
        leaving_services_.push_back(c.owner);
        continue;
      }
      service_cpu += u[0];
      service_memory += u[1];
      staying_services_.push_back(c.owner);
    } else {
      batch_memory += u[1];
    }
  }
  const double memory_capacity = static_cast<double>(node.capacity.memory());
  // Until it stops, a leaving replica's memory is in use: batch yields to it too.
  const double batch_need =
      std::min(batch_memory, std::max(0.0, service_memory + leaving_memory + batch_memory -
                                               batch_memory_threshold * memory_capacity));
  Resources service_need;
  if (services_too) {
    const Usage rise = core.PredictedRise(n, {static_cast<float>(service_cpu + leaving_cpu),
                                              static_cast<float>(service_memory + leaving_memory)});
    std::array<double, 2> surge{};
    if (margin != nullptr) {
      const int bin =
          static_cast<int>((core.now() % kSecondsPerDay) / (kSecondsPerDay / margin->bins()));
      surge = margin->Margin(bin, staying_services_, leaving_services_,
                             {service_cpu + leaving_cpu, service_memory + leaving_memory});
    }
    service_need[Dim::kMemory] = static_cast<int64_t>(std::max(
        0.0, service_memory + rise[1] + surge[1] - options.memory_hot_threshold * memory_capacity));
    service_need[Dim::kCpu] = static_cast<int64_t>(
        std::max(0.0, service_cpu + rise[0] + surge[0] -
                          cpu_threshold * static_cast<double>(node.capacity.cpu())));
  }
  // Only a node that is over now loses replicas it cannot move; a predicted overload waits for
  // the next round rather than harm a service for a rise that may not come.
  const bool over_now = service_cpu > cpu_threshold * static_cast<double>(node.capacity.cpu()) ||
                        service_memory > options.memory_hot_threshold * memory_capacity;
  if (batch_need < 1 && service_need.IsZero()) return;
  const bool services = !service_need.IsZero();
  candidates_.clear();
  for (const auto& [id, u] : core.node_usage()) {
    const Container& c = state.container(id);
    if ((c.kind == OwnerKind::kService) != services) continue;
    if (services && core.FindMove(id) != core.moves().end()) continue;
    EvictionCandidate e{.id = id, .sla = core.SlaKeyOf(id), .usage = RoundUsage(u)};
    if (c.kind == OwnerKind::kService) {
      e.disruption_group = c.owner;
    } else {
      e.usage[Dim::kCpu] = 0;
    }
    candidates_.push_back(e);
  }
  Resources need = service_need;
  if (!services) need[Dim::kMemory] = static_cast<int64_t>(batch_need);
  const EvictionRequest request{.need = need,
                                .candidates = candidates_,
                                .disruption_budget = core.budgets(),
                                .services_evictable = services};
  const EvictionDecision decision =
      services_too ? evictor_.ChooseVictims(request) : naive_evictor_.ChooseVictims(request);
  victims_.assign(decision.victims.begin(), decision.victims.end());
  for (ContainerId id : victims_) {
    const Container c = state.container(id);
    const auto candidate = std::find_if(candidates_.begin(), candidates_.end(),
                                        [id](const EvictionCandidate& e) { return e.id == id; });
    if (c.kind == OwnerKind::kService &&
        ShouldMigrate(c.kind, {.overload_beyond_batch = true}) != MigrationTrigger::kNone &&
        core.Migrate(id, MigrationTrigger::kOverloadBeyondBatch) >= 0) {
      continue;
    }
    if (c.kind == OwnerKind::kService && !over_now) continue;
    core.End(id, EngineCore::Ending::kEvicted, EvictReason::kPressure, candidate->sla);
    if (c.kind == OwnerKind::kService) --core.budgets()[c.owner];
  }
}

}  // namespace archimedes
