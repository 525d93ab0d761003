// Filter: a pod with a node selector goes only to nodes carrying every label in it (Kubernetes'
// nodeSelector, which its NodeAffinity plugin enforces). Every service scheduler has it, the
// baselines' as well as Archimedes'.
#ifndef ARCHIMEDES_SCHED_PLUGINS_NODE_SELECTOR_H_
#define ARCHIMEDES_SCHED_PLUGINS_NODE_SELECTOR_H_

#include <string>

#include "sched/framework.h"

namespace archimedes {

class NodeSelector : public FilterPlugin {
 public:
  std::string_view name() const override { return "NodeSelector"; }
  bool node_local() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  bool AppliesTo(const SchedulingContext&, const PodRequest& pod) const override {
    return pod.node_selector != nullptr;
  }
};

// Whether `node` carries label `key` = `value`. The keys "topology.kubernetes.io/zone",
// "archimedes.io/pod" and "kubernetes.io/hostname" match the node's zone, POD and name.
bool LabelMatches(const Node& node, const std::string& key, const std::string& value);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_NODE_SELECTOR_H_
