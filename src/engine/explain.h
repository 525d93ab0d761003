// `archimedes simulate --explain SERVICE`: why a replica went where it did. For one decision, every
// candidate node's filter verdict and score terms, the best candidates first, and how many nodes
// each filter turned away.
#ifndef ARCHIMEDES_ENGINE_EXPLAIN_H_
#define ARCHIMEDES_ENGINE_EXPLAIN_H_

#include <string>

#include "sched/framework.h"

namespace archimedes {

// `chosen` is the node the scheduler picked (-1: none). Lists at most `top` passing nodes.
std::string FormatExplanation(const Scheduler& scheduler, const SchedulingContext& ctx,
                              const PodRequest& pod, NodeId chosen, int top = 8);

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_EXPLAIN_H_
