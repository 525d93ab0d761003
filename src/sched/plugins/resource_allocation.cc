#include "sched/plugins/resource_allocation.h"

#include <cmath>

namespace archimedes {
namespace {

constexpr int64_t kDefaultMilliCpuRequest = 100;
constexpr int64_t kDefaultMemoryRequest = int64_t{200} * 1024 * 1024;

// Requested cpu and memory on `node` once `pod` is added, with kube-scheduler's non-zero defaults
// for the pod.
struct CpuMemory {
  int64_t cpu;
  int64_t memory;
};

CpuMemory RequestedWith(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) {
  const Resources& requested = ctx.state.requested(node);
  int64_t cpu = pod.requests.cpu() > 0 ? pod.requests.cpu() : kDefaultMilliCpuRequest;
  int64_t memory = pod.requests.memory() > 0 ? pod.requests.memory() : kDefaultMemoryRequest;
  return {requested.cpu() + cpu, requested.memory() + memory};
}

}  // namespace

int64_t LeastAllocated::Score(const SchedulingContext& ctx, const PodRequest& pod,
                              NodeId node) const {
  CpuMemory r = RequestedWith(ctx, pod, node);
  const Resources& alloc = ctx.state.allocatable(node);
  return (LeastRequestedScore(r.cpu, alloc.cpu()) + LeastRequestedScore(r.memory, alloc.memory())) /
         2;
}

int64_t MostAllocated::Score(const SchedulingContext& ctx, const PodRequest& pod,
                             NodeId node) const {
  CpuMemory r = RequestedWith(ctx, pod, node);
  const Resources& alloc = ctx.state.allocatable(node);
  return (MostRequestedScore(r.cpu, alloc.cpu()) + MostRequestedScore(r.memory, alloc.memory())) /
         2;
}

int64_t BalancedAllocation::Score(const SchedulingContext& ctx, const PodRequest& pod,
                                  NodeId node) const {
  CpuMemory r = RequestedWith(ctx, pod, node);
  const Resources& alloc = ctx.state.allocatable(node);
  if (alloc.cpu() == 0 || alloc.memory() == 0) return kMaxNodeScore;  // one fraction: std = 0
  double cpu = std::min(1.0, static_cast<double>(r.cpu) / static_cast<double>(alloc.cpu()));
  double memory =
      std::min(1.0, static_cast<double>(r.memory) / static_cast<double>(alloc.memory()));
  double std_dev = std::abs((cpu - memory) / 2);
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

}  // namespace archimedes
