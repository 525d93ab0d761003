// kube-scheduler's DefaultPreemption (its PostFilter stage), for a pod that passed no node's
// filters: on the node where evicting lower-priority containers makes room with the least harm
// (lowest highest victim priority, then fewest victims), those victims, lowest priority and newest
// first, until the pod's requests fit the node's allocatable. Batch tasks on reclaimed capacity
// hold no allocatable and are never victims.
#ifndef ARCHIMEDES_SCHED_PREEMPTION_H_
#define ARCHIMEDES_SCHED_PREEMPTION_H_

#include <vector>

#include "model/cluster_state.h"
#include "sched/framework.h"

namespace archimedes {

struct Preemption {
  NodeId node = -1;  // -1: no node can make room
  std::vector<ContainerId> victims;
};

Preemption FindPreemption(const ClusterState& state, const PodRequest& pod);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PREEMPTION_H_
