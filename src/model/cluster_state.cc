#include "model/cluster_state.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace archimedes {

ClusterState::ClusterState(std::vector<Node> nodes, TaskAccounting accounting)
    : nodes_(std::move(nodes)),
      requested_(nodes_.size()),
      task_requested_(nodes_.size()),
      accounting_(accounting),
      on_node_(nodes_.size()) {
  for (const Node& n : nodes_) {
    allocatable_.push_back(n.allocatable);
    ready_.push_back(n.condition == NodeCondition::kReady);
    tainted_nodes_ += !n.taints.empty();
  }
  block_most_unrequested_.resize((nodes_.size() + kIndexBlock - 1) / kIndexBlock);
  for (size_t b = 0; b < block_most_unrequested_.size(); ++b) RecomputeBlock(static_cast<int>(b));
}

void ClusterState::RecomputeBlock(int block) {
  const NodeId first = block * kIndexBlock;
  const NodeId end = std::min(first + kIndexBlock, num_nodes());
  std::array<int64_t, kIndexedDims.size()>& most = block_most_unrequested_[block];
  most.fill(std::numeric_limits<int64_t>::min());
  for (NodeId n = first; n < end; ++n) {
    for (size_t i = 0; i < kIndexedDims.size(); ++i) {
      const Dim d = kIndexedDims[i];
      most[i] = std::max(most[i], allocatable_[n][d] - requested_[n][d]);
    }
  }
}

void ClusterState::GrowBlockMost(NodeId n) {
  std::array<int64_t, kIndexedDims.size()>& most = block_most_unrequested_[n / kIndexBlock];
  for (size_t i = 0; i < kIndexedDims.size(); ++i) {
    const Dim d = kIndexedDims[i];
    most[i] = std::max(most[i], allocatable_[n][d] - requested_[n][d]);
  }
}

void ClusterState::SetLabels(NodeId n, std::map<std::string, std::string> labels) {
  nodes_[n].labels = std::move(labels);
}

void ClusterState::SetCondition(NodeId n, NodeCondition condition) {
  nodes_[n].condition = condition;
  ready_[n] = condition == NodeCondition::kReady;
}

NodeId ClusterState::AddNode(Node node) {
  allocatable_.push_back(node.allocatable);
  ready_.push_back(node.condition == NodeCondition::kReady);
  tainted_nodes_ += !node.taints.empty();
  nodes_.push_back(std::move(node));
  requested_.emplace_back();
  task_requested_.emplace_back();
  on_node_.emplace_back();
  const NodeId n = static_cast<NodeId>(nodes_.size() - 1);
  if (n % kIndexBlock == 0) {
    block_most_unrequested_.emplace_back();
    block_most_unrequested_.back().fill(std::numeric_limits<int64_t>::min());
  }
  GrowBlockMost(n);
  return n;
}

ContainerId ClusterState::Add(const Container& c) {
  if (c.node < 0 || c.node >= num_nodes()) {
    throw std::out_of_range("container placed on unknown node " + std::to_string(c.node));
  }
  ContainerId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<ContainerId>(containers_.size());
    containers_.emplace_back();
    slot_on_node_.push_back(-1);
  }
  Place(id, c);
  return id;
}

void ClusterState::AddWithId(ContainerId id, const Container& c) {
  if (c.node < 0 || c.node >= num_nodes()) {
    throw std::out_of_range("container placed on unknown node " + std::to_string(c.node));
  }
  if (id < 0 || alive(id)) {
    throw std::out_of_range("container id " + std::to_string(id) + " is taken or negative");
  }
  if (id >= id_limit()) {
    for (ContainerId unused = id_limit(); unused < id; ++unused) free_ids_.push_back(unused);
    containers_.resize(id + 1);
    slot_on_node_.resize(id + 1, -1);
  } else {
    std::erase(free_ids_, id);
  }
  Place(id, c);
}

void ClusterState::Place(ContainerId id, const Container& c) {
  containers_[id] = c;
  std::vector<ContainerId>& list = on_node_[c.node];
  slot_on_node_[id] = static_cast<int32_t>(list.size());
  list.push_back(id);
  if (c.kind == OwnerKind::kTask) task_requested_[c.node] += c.requests;
  if (c.kind == OwnerKind::kService || accounting_ == TaskAccounting::kAllocatable) {
    requested_[c.node] += c.requests;
    RecomputeBlock(c.node / kIndexBlock);
  }
  ++live_;
}

void ClusterState::Remove(ContainerId id) {
  if (!alive(id)) throw std::out_of_range("removing unknown container " + std::to_string(id));
  const Container& c = containers_[id];
  std::vector<ContainerId>& list = on_node_[c.node];
  int32_t slot = slot_on_node_[id];
  ContainerId moved = list.back();
  list[slot] = moved;
  slot_on_node_[moved] = slot;
  list.pop_back();
  slot_on_node_[id] = -1;
  if (c.kind == OwnerKind::kTask) task_requested_[c.node] -= c.requests;
  if (c.kind == OwnerKind::kService || accounting_ == TaskAccounting::kAllocatable) {
    requested_[c.node] -= c.requests;
    GrowBlockMost(c.node);
  }
  free_ids_.push_back(id);
  --live_;
}

}  // namespace archimedes
