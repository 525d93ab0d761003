#include <memory>
#include <optional>
#include <vector>

#include "engine/core.h"
#include "engine/node_relief.h"
#include "engine/pressure_response.h"
#include "sched/reclaimable.h"

namespace archimedes {
namespace {

// Standard deviations of the next usage step that overload relief keeps below the hot threshold
// when services run above their profiles (engine/surge_margin.h): 3 leaves a node-step about a
// 0.13 % chance of crossing, against a 99.9 % availability target.
constexpr double kSurgeMarginZ = 3.0;

class SlaRelief : public PressureResponse {
 public:
  void Start(EngineCore& core) override {
    if (core.predicted() != nullptr) {
      margin_.emplace(core.services(), core.options().profiles, kSurgeMarginZ);
    }
  }

  const SurgeMargin* surge_margin() const override { return margin_ ? &*margin_ : nullptr; }
  bool moves_replicas() const override { return true; }

  double Relieve(EngineCore& core, NodeId n) override {
    const double throttle = YieldBatch(core, n);
    relief_.RelieveAll(core, n, surge_margin());
    return throttle;
  }

 private:
  // Batch on node `n` yields to bursting services (sched/reclaimable.h): the fewest tasks, least
  // progress first, are evicted where memory or gpu cannot be throttled; returns the throttle the
  // survivors keep. Evicted tasks leave the node's usage list, so relief does not count them again.
  double YieldBatch(EngineCore& core, NodeId n) {
    const ClusterState& state = core.state();
    std::array<double, kNumDims> service{};
    yielding_.clear();
    yielding_ids_.clear();
    for (const auto& [id, u] : core.node_usage()) {
      const Container& c = state.container(id);
      if (c.kind == OwnerKind::kService) {
        for (int d = 0; d < kNumDims; ++d) service[d] += u[d];
        continue;
      }
      YieldingTask& y = yielding_.emplace_back();
      for (int d = 0; d < kNumDims; ++d) y.usage[d] = u[d];
      // The node shares the CPU out itself (serverless tasks first when they borrow, BatchLimits):
      // the throttle here is for disk and network.
      y.usage[static_cast<int>(Dim::kCpu)] = 0;
      y.progress = core.work(id).first;
      yielding_ids_.push_back(id);
    }
    const YieldDecision decision =
        YieldToServices(service, yielding_, state.node(n).capacity, core.policy().buffer);
    if (decision.evict.empty()) return decision.throttle;
    for (int32_t t : decision.evict) {
      const ContainerId id = yielding_ids_[t];
      core.End(id, EngineCore::Ending::kEvicted, EvictReason::kYield, core.SlaKeyOf(id));
    }
    std::erase_if(core.node_usage(), [&](const auto& entry) { return !state.alive(entry.first); });
    return decision.throttle;
  }

  NodeRelief relief_;
  std::optional<SurgeMargin> margin_;  // with profiles
  std::vector<YieldingTask> yielding_;
  std::vector<ContainerId> yielding_ids_;
};

}  // namespace

std::unique_ptr<PressureResponse> NewSlaRelief() { return std::make_unique<SlaRelief>(); }

}  // namespace archimedes
