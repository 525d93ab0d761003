// A policy is a named composition of schedulers and settings that the simulator (and later the
// service) drives. Every policy of DESIGN §6 is built here from the plugins in plugins/.
#ifndef ARCHIMEDES_SCHED_POLICY_H_
#define ARCHIMEDES_SCHED_POLICY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sched/framework.h"

namespace archimedes {

struct Policy {
  std::string name;
  std::string description;
  Scheduler services;  // places long-running service replicas
  Scheduler batch;     // places batch and serverless tasks
};

// Names accepted by MakePolicy, in the order reports list them.
std::vector<std::string> PolicyNames();

// Throws std::invalid_argument naming the unknown policy and the known ones.
Policy MakePolicy(std::string_view name, uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_POLICY_H_
