#include <memory>
#include <vector>

#include "engine/batch_placement.h"
#include "engine/core.h"
#include "engine/reclaimed_capacity.h"
#include "sched/batch_schedulers.h"

namespace archimedes {
namespace {

class ReclaimedBatch final : public BatchPlacement {
 public:
  ReclaimedBatch(double buffer, uint64_t seed)
      : buffer_(buffer),
        capacity_(buffer, /*buffer_only_under_services=*/false),
        scheduler_(MakeReclaimedBatchScheduler(seed)) {}

  TaskAccounting accounting() const override { return TaskAccounting::kReclaimed; }
  Scheduler& scheduler() override { return scheduler_; }
  void Start(EngineCore& core) override { capacity_.Resize(core.state().num_nodes()); }
  void NodeAdded(NodeId n) override { capacity_.Resize(n + 1); }

  void Plan(EngineCore& core) override { capacity_.EstimateUnobserved(core.state()); }

  void FillContext(SchedulingContext& ctx) const override {
    ctx.batch_allocatable = capacity_.allocatable();
  }

  Resources TaskRoom(const EngineCore& core, NodeId n) const override {
    return capacity_.allocatable()[n] - core.state().task_requested(n);
  }

  Resources Envelope(const EngineCore& core) const override {
    return RoomEnvelope(core.state(), [&](NodeId n) { return TaskRoom(core, n); });
  }

  bool observes_services() const override { return true; }
  void ObserveServices(EngineCore& core, NodeId n, const Usage& usage) override {
    if (core.state().ready(n)) capacity_.Observe(core.state(), n, usage);
  }
  void EndUsageRound() override { capacity_.Advance(); }

  // Batch CPU stops at the buffer: services keep their share, batch slows down.
  BatchLimits Limits(const EngineCore& core, NodeId n) const override {
    return {.cpu = static_cast<double>(core.state().node(n).capacity.cpu()) * (1.0 - buffer_)};
  }

 private:
  double buffer_;
  ReclaimedCapacity capacity_;
  Scheduler scheduler_;
};

}  // namespace

std::unique_ptr<BatchPlacement> NewReclaimedBatch(double buffer, uint64_t seed) {
  return std::make_unique<ReclaimedBatch>(buffer, seed);
}

}  // namespace archimedes
