#include "engine/reclaimed_capacity.h"

#include <algorithm>

#include "sched/reclaimable.h"

namespace archimedes {

void ReclaimedCapacity::Resize(int num_nodes) {
  for (auto n = static_cast<NodeId>(allocatable_.size()); n < num_nodes; ++n) {
    unobserved_.push_back(n);
  }
  allocatable_.resize(num_nodes);
  observed_.resize(num_nodes);
  ring_.resize(static_cast<size_t>(num_nodes) * kPeakWindow);
}

void ReclaimedCapacity::EstimateUnobserved(const ClusterState& state) {
  std::erase_if(unobserved_, [this](NodeId n) { return observed_[n] != 0; });
  for (NodeId n : unobserved_) {
    const Resources& requested = state.requested(n);
    Set(state, n, static_cast<double>(requested.cpu()), static_cast<double>(requested.memory()));
  }
}

void ReclaimedCapacity::Observe(const ClusterState& state, NodeId n,
                                const std::array<float, kNumDims>& usage) {
  observed_[n] = 1;
  std::array<float, 2>* ring = &ring_[static_cast<size_t>(n) * kPeakWindow];
  ring[ring_pos_] = {usage[0], usage[1]};
  float cpu_peak = 0, memory_peak = 0;
  for (int i = 0; i < kPeakWindow; ++i) {
    cpu_peak = std::max(cpu_peak, ring[i][0]);
    memory_peak = std::max(memory_peak, ring[i][1]);
  }
  Set(state, n, cpu_peak, memory_peak);
}

void ReclaimedCapacity::Set(const ClusterState& state, NodeId n, double service_cpu,
                            double service_memory) {
  const Resources& capacity = state.node(n).capacity;
  Resources& allocatable = allocatable_[n];
  const std::span<const ContainerId> residents = state.containers_on(n);
  const bool keeps_buffer = !buffer_only_under_services_ ||
                            std::any_of(residents.begin(), residents.end(), [&](ContainerId id) {
                              return state.container(id).kind == OwnerKind::kService;
                            });
  const double buffer = keeps_buffer ? buffer_ : 0.0;
  allocatable = capacity.Scaled(1.0 - buffer);
  allocatable[Dim::kCpu] = ReclaimableAmount(capacity.cpu(), buffer, service_cpu);
  allocatable[Dim::kMemory] = ReclaimableAmount(capacity.memory(), buffer, service_memory);
  allocatable[Dim::kGpu] = state.allocatable(n)[Dim::kGpu] - state.requested(n)[Dim::kGpu];
}

}  // namespace archimedes
