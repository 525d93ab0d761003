#include "model/cluster_state.h"

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
  }
}

void ClusterState::SetCondition(NodeId n, NodeCondition condition) {
  nodes_[n].condition = condition;
  ready_[n] = condition == NodeCondition::kReady;
}

NodeId ClusterState::AddNode(Node node) {
  allocatable_.push_back(node.allocatable);
  ready_.push_back(node.condition == NodeCondition::kReady);
  nodes_.push_back(std::move(node));
  requested_.emplace_back();
  task_requested_.emplace_back();
  on_node_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

ContainerId ClusterState::Add(const Container& c) {
  if (c.node < 0 || c.node >= num_nodes()) {
    throw std::out_of_range("container placed on unknown node " + std::to_string(c.node));
  }
  ContainerId id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
    containers_[id] = c;
  } else {
    id = static_cast<ContainerId>(containers_.size());
    containers_.push_back(c);
    slot_on_node_.push_back(-1);
  }
  std::vector<ContainerId>& list = on_node_[c.node];
  slot_on_node_[id] = static_cast<int32_t>(list.size());
  list.push_back(id);
  if (c.kind == OwnerKind::kTask) task_requested_[c.node] += c.requests;
  if (c.kind == OwnerKind::kService || accounting_ == TaskAccounting::kAllocatable) {
    requested_[c.node] += c.requests;
  }
  ++live_;
  return id;
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
  }
  free_ids_.push_back(id);
  --live_;
}

bool ClusterState::alive(ContainerId id) const {
  return id >= 0 && id < id_limit() && slot_on_node_[id] >= 0;
}

}  // namespace archimedes
