// Filter: the container's requests fit what is left of the node's allocatable, in the dimensions
// the scheduler manages (kube-scheduler's NodeResourcesFit knows cpu, memory and extended
// resources such as GPUs; it has no notion of disk or network bandwidth).
#ifndef ARCHIMEDES_SCHED_PLUGINS_NODE_RESOURCES_FIT_H_
#define ARCHIMEDES_SCHED_PLUGINS_NODE_RESOURCES_FIT_H_

#include <vector>

#include "sched/framework.h"

namespace archimedes {

class NodeResourcesFit : public FilterPlugin {
 public:
  explicit NodeResourcesFit(std::vector<Dim> dims = {Dim::kCpu, Dim::kMemory, Dim::kGpu})
      : dims_(std::move(dims)) {}
  std::string_view name() const override { return "NodeResourcesFit"; }
  bool node_local() const override { return true; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override;
  std::span<const Dim> guaranteed_dims() const override { return dims_; }

 private:
  std::vector<Dim> dims_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PLUGINS_NODE_RESOURCES_FIT_H_
