#include "engine/reclaimed_capacity.h"

#include <algorithm>

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
    Resources allocatable = state.node(n).capacity.Scaled(1.0 - buffer_);
    allocatable[Dim::kCpu] -= state.requested(n)[Dim::kCpu];
    allocatable[Dim::kMemory] -= state.requested(n)[Dim::kMemory];
    allocatable[Dim::kGpu] = state.allocatable(n)[Dim::kGpu] - state.requested(n)[Dim::kGpu];
    allocatable_[n] = allocatable;
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
  Resources allocatable = state.node(n).capacity.Scaled(1.0 - buffer_);
  allocatable[Dim::kCpu] -= static_cast<int64_t>(cpu_peak);
  allocatable[Dim::kMemory] -= static_cast<int64_t>(memory_peak);
  allocatable[Dim::kGpu] = state.allocatable(n)[Dim::kGpu] - state.requested(n)[Dim::kGpu];
  allocatable_[n] = allocatable;
}

}  // namespace archimedes
