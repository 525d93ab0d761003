#include "engine/reclaimed_capacity.h"

#include <algorithm>

namespace archimedes {

void ReclaimedCapacity::Resize(int num_nodes) {
  allocatable_.resize(num_nodes);
  ring_.resize(static_cast<size_t>(num_nodes) * kPeakWindow);
}

void ReclaimedCapacity::Observe(const ClusterState& state, NodeId n,
                                const std::array<float, kNumDims>& usage) {
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
