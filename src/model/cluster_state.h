// The fleet as the scheduler sees it: nodes, the containers placed on them, and per node the sum of
// the placed containers' requests. Adding or removing a container is O(1); per-node totals live in
// contiguous arrays because every scheduling decision reads them for every candidate node.
//
// The candidate index: node ids are grouped in blocks of kIndexBlock consecutive ids, and per
// block the state keeps the most unrequested allocatable any of its nodes has in each of
// kIndexedDims. A scan for nodes that can hold some requests skips every block whose maxima fall
// short without reading its nodes, and still visits the rest in id order (so round-robin scans
// keep their order). Kept exact on every Add / Remove / AddNode: O(kIndexBlock) when a node's
// unrequested allocatable shrinks, O(1) when it grows.
#ifndef ARCHIMEDES_MODEL_CLUSTER_STATE_H_
#define ARCHIMEDES_MODEL_CLUSTER_STATE_H_

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "model/node.h"
#include "model/resources.h"

namespace archimedes {

using ContainerId = int32_t;
using NodeId = int32_t;

enum class OwnerKind : uint8_t { kService, kTask };

// One placed instance of a service replica or a batch task.
struct Container {
  OwnerKind kind = OwnerKind::kService;
  int32_t owner = 0;  // index of the service or the job in the workload
  int32_t index = 0;  // replica or task number within its owner
  NodeId node = -1;
  Resources requests;
  int priority = 0;
  int64_t start_time = 0;
};

// How batch tasks count: as ordinary pods against allocatable (Kubernetes), or on capacity
// reclaimed from services' unused reservations, outside allocatable (co-location: Koordinator's
// batch resources, Archimedes).
enum class TaskAccounting : uint8_t { kAllocatable, kReclaimed };

class ClusterState {
 public:
  explicit ClusterState(std::vector<Node> nodes,
                        TaskAccounting accounting = TaskAccounting::kAllocatable);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(NodeId n) const { return nodes_[n]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  NodeId AddNode(Node node);
  void SetCondition(NodeId n, NodeCondition condition);
  void SetLabels(NodeId n, std::map<std::string, std::string> labels);
  bool ready(NodeId n) const { return ready_[n] != 0; }
  // Nodes added with at least one taint (taints are fixed when a node is added; a node taken out
  // of service still counts, which only keeps TaintToleration from skipping).
  int tainted_nodes() const { return tainted_nodes_; }
  const Resources& allocatable(NodeId n) const { return allocatable_[n]; }

  // Sum of the requests that count against node `n`'s allocatable (every container's, or only the
  // services' when tasks use reclaimed capacity), and what is left of its allocatable.
  const Resources& requested(NodeId n) const { return requested_[n]; }
  // Sum of the requests of the batch tasks on node `n`, however they are accounted.
  const Resources& task_requested(NodeId n) const { return task_requested_[n]; }
  TaskAccounting accounting() const { return accounting_; }
  Resources unrequested(NodeId n) const { return allocatable_[n] - requested_[n]; }
  std::span<const Resources> requested_all() const { return requested_; }

  static constexpr int kIndexBlock = 64;
  static constexpr std::array<Dim, 3> kIndexedDims = {Dim::kCpu, Dim::kMemory, Dim::kGpu};
  // False when no node of block `block` (ids [block × kIndexBlock, +kIndexBlock)) can hold `need`:
  // in some indexed dimension d with need[d] > 0, none has need[d] unrequested allocatable. True
  // does not promise a node that holds all of it (the maxima may be on different nodes). Other
  // dimensions of `need` are ignored.
  bool BlockMayHold(int block, const Resources& need) const {
    const std::array<int64_t, kIndexedDims.size()>& most = block_most_unrequested_[block];
    for (size_t i = 0; i < kIndexedDims.size(); ++i) {
      const int64_t want = need[kIndexedDims[i]];
      if (want > 0 && most[i] < want) return false;
    }
    return true;
  }
  // True when node `n`'s unrequested allocatable holds `need` in every indexed dimension.
  bool Holds(NodeId n, const Resources& need) const {
    for (Dim d : kIndexedDims) {
      if (need[d] > 0 && allocatable_[n][d] - requested_[n][d] < need[d]) return false;
    }
    return true;
  }

  // Places `c` on `c.node`; the id stays valid until Remove.
  ContainerId Add(const Container& c);
  // Places `c` under `id`, which must not be alive: for a copy that follows another state's ids
  // (a remote engine's, as its actions name them).
  void AddWithId(ContainerId id, const Container& c);
  void Remove(ContainerId id);
  bool alive(ContainerId id) const { return id >= 0 && id < id_limit() && slot_on_node_[id] >= 0; }
  const Container& container(ContainerId id) const { return containers_[id]; }
  std::span<const ContainerId> containers_on(NodeId n) const { return on_node_[n]; }
  int num_containers() const { return live_; }
  // One past the largest id ever handed out: ids are in [0, id_limit()).
  int id_limit() const { return static_cast<int>(containers_.size()); }

 private:
  std::vector<Node> nodes_;
  // Copies of what every decision reads for every node, kept contiguous (a Node is large).
  std::vector<Resources> allocatable_;
  std::vector<uint8_t> ready_;
  int tainted_nodes_ = 0;
  std::vector<Resources> requested_;
  std::vector<Resources> task_requested_;
  // Per block of kIndexBlock nodes, the most unrequested allocatable in each indexed dimension.
  std::vector<std::array<int64_t, kIndexedDims.size()>> block_most_unrequested_;
  TaskAccounting accounting_;
  std::vector<std::vector<ContainerId>> on_node_;
  std::vector<Container> containers_;
  std::vector<int32_t> slot_on_node_;  // position of each container in on_node_[node]; -1 if dead
  std::vector<ContainerId> free_ids_;
  int live_ = 0;

  void Place(ContainerId id, const Container& c);
  void RecomputeBlock(int block);
  void GrowBlockMost(NodeId n);
};

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_CLUSTER_STATE_H_
