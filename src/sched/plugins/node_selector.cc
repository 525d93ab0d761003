#include "sched/plugins/node_selector.h"

namespace archimedes {

bool NodeSelector::Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const {
  if (pod.node_selector == nullptr) return true;
  const Node& n = ctx.state.node(node);
  for (const auto& [key, value] : *pod.node_selector) {
    if (!LabelMatches(n, key, value)) return false;
  }
  return true;
}

bool LabelMatches(const Node& node, const std::string& key, const std::string& value) {
  if (key == "topology.kubernetes.io/zone") return node.zone == value;
  if (key == "archimedes.io/pod") return node.pod == value;
  if (key == "kubernetes.io/hostname") return node.name == value;
  auto it = node.labels.find(key);
  return it != node.labels.end() && it->second == value;
}

}  // namespace archimedes
