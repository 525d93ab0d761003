#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "engine/core.h"
#include "engine/health_monitor.h"
#include "engine/health_response.h"
#include "sched/migration.h"

namespace archimedes {
namespace {

class HealthMigration : public HealthResponse {
 public:
  void Stage(const EngineCore& core, NodeId n) override {
    const ClusterState& state = core.state();
    staged_from_ = samples_.size();
    for (const auto& [id, u] : core.node_usage()) {
      if (!state.alive(id) || state.container(id).node != n) continue;
      const Container& c = state.container(id);
      if (c.kind == OwnerKind::kService) {
        samples_.push_back({c.owner, {.id = id, .start_time = c.start_time, .memory = u[1]}});
      }
    }
  }

  void Removed(ContainerId id) override {
    const auto staged = samples_.begin() + static_cast<std::ptrdiff_t>(staged_from_);
    samples_.erase(std::remove_if(staged, samples_.end(),
                                  [id](const auto& sample) { return sample.second.id == id; }),
                   samples_.end());
  }

  // Feeds the round's replica memory to the health monitor, by service, and acts on its warnings.
  void Act(EngineCore& core) override {
    const ClusterState& state = core.state();
    std::stable_sort(samples_.begin(), samples_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < samples_.size();) {
      const int32_t s = samples_[i].first;
      replica_samples_.clear();
      for (; i < samples_.size() && samples_[i].first == s; ++i) {
        const ReplicaSample& r = samples_[i].second;
        // Replacements still starting are not replicas yet; the replica they replace is.
        auto move = core.FindMove(r.id);
        if (!state.alive(r.id) || state.container(r.id).start_time != r.start_time ||
            (move != core.moves().end() && move->replacement == r.id)) {
          continue;
        }
        replica_samples_.push_back(r);
      }
      findings_.clear();
      monitor_.ObserveService(core.now(), replica_samples_,
                              static_cast<double>(core.service(s).limits[Dim::kMemory]), findings_);
      ServiceRun& run = core.service_run(s);
      for (const auto& [id, finding] : findings_) {
        const std::pair<ContainerId, int64_t> incarnation{id, state.container(id).start_time};
        if (std::find(run.health_replacements.begin(), run.health_replacements.end(),
                      incarnation) != run.health_replacements.end()) {
          run.health_moves_futile = true;
        }
        if (run.health_moves_futile || run.scaled_for == id ||
            core.FindMove(id) != core.moves().end() ||
            ShouldMigrate(OwnerKind::kService, {.breach_lead_time_s = finding.lead_time_s},
                          core.migration_rule()) != MigrationTrigger::kPredictedBreach) {
          continue;
        }
        if (const ContainerId replacement = core.Migrate(id, MigrationTrigger::kPredictedBreach);
            replacement >= 0) {
          run.health_replacements.emplace_back(replacement,
                                               state.container(replacement).start_time);
        } else if (run.extra == 0) {
          core.ScaleOut(s, id);
        }
      }
    }
    samples_.clear();
    staged_from_ = 0;
  }

 private:
  HealthMonitor monitor_;
  std::vector<std::pair<int32_t, ReplicaSample>> samples_;  // (service, sample) this round
  size_t staged_from_ = 0;  // samples_ from here are the last staged node's
  std::vector<ReplicaSample> replica_samples_;
  std::vector<std::pair<ContainerId, HealthFinding>> findings_;
};

}  // namespace

std::unique_ptr<HealthResponse> NewHealthMigration() { return std::make_unique<HealthMigration>(); }

}  // namespace archimedes
