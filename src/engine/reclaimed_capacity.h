// Reclaimed capacity (DESIGN §4, docs/batch.md): per node, what batch may use of the capacity
// services reserve but do not use — capacity × (1 − buffer) − the services' peak usage over the
// last kPeakWindow usage rounds, in cpu and memory; a GPU a service requests is held by it, used
// or not, so batch gets only unrequested GPU. A node whose usage has not been observed yet (the
// fleet's start, a node just added) counts its services by their requests, as a service whose
// usage is unknown may use all it asked for.
#ifndef ARCHIMEDES_ENGINE_RECLAIMED_CAPACITY_H_
#define ARCHIMEDES_ENGINE_RECLAIMED_CAPACITY_H_

#include <array>
#include <span>
#include <vector>

#include "model/cluster_state.h"
#include "model/resources.h"

namespace archimedes {

class ReclaimedCapacity {
 public:
  static constexpr int kPeakWindow = 15;

  // With `buffer_only_under_services`, a node that holds no service replica keeps no buffer:
  // there is no burst to protect (archimedes); without it every node keeps it (Koordinator-style
  // reclaim).
  ReclaimedCapacity(double buffer, bool buffer_only_under_services)
      : buffer_(buffer), buffer_only_under_services_(buffer_only_under_services) {}

  void Resize(int num_nodes);
  // Nodes not observed yet: capacity × (1 − buffer) − the requests of the services on them now.
  void EstimateUnobserved(const ClusterState& state);
  // The services on node `n` use `service_usage` (cpu, memory, … in canonical units) this round.
  void Observe(const ClusterState& state, NodeId n, const std::array<float, kNumDims>& usage);
  // The round is over: the oldest round leaves the window.
  void Advance() { ring_pos_ = (ring_pos_ + 1) % kPeakWindow; }
  // Per node, what batch may use now.
  std::span<const Resources> allocatable() const { return allocatable_; }

 private:
  // Node `n`'s batch allocatable when its services use (or may use) this much cpu and memory:
  // sched/reclaimable.h's ReclaimableAmount.
  void Set(const ClusterState& state, NodeId n, double service_cpu, double service_memory);

  double buffer_;
  bool buffer_only_under_services_;
  std::vector<Resources> allocatable_;
  std::vector<std::array<float, 2>> ring_;  // node × kPeakWindow, cpu and memory
  std::vector<uint8_t> observed_;
  std::vector<NodeId> unobserved_;
  int ring_pos_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_RECLAIMED_CAPACITY_H_
