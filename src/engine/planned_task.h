// A pending task's place in the batch plan (engine/batch_placement.h): the node and the window the
// planner holds for it. What Engine::plan() shows drivers.
#ifndef ARCHIMEDES_ENGINE_PLANNED_TASK_H_
#define ARCHIMEDES_ENGINE_PLANNED_TASK_H_

#include <cstdint>

#include "model/cluster_state.h"

namespace archimedes {

struct PlannedTask {
  int32_t job = -1;
  NodeId node = -1;
  int64_t start = 0;  // the planned start: the start of a future bin of the plan
  int64_t end = 0;    // start + the job's duration estimate: when its room is free again
  bool late = false;  // after the job's delay tolerance (best effort)
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_PLANNED_TASK_H_
