// Small fleets, services and jobs for the engine's tests, and the actions it takes, by kind.
#ifndef ARCHIMEDES_TESTS_SUPPORT_ENGINE_EVENTS_H_
#define ARCHIMEDES_TESTS_SUPPORT_ENGINE_EVENTS_H_

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace archimedes::testing {

constexpr int64_t kGi = int64_t{1} << 30;

inline Node MakeNode(const std::string& name, int64_t cpu, int64_t memory) {
  Node n{.name = name, .capacity = Resources::Of(cpu, memory)};
  n.allocatable = n.capacity;
  n.zone = "z";
  n.pod = "p-" + name;
  return n;
}

inline std::vector<Node> Nodes(int count, int64_t cpu, int64_t memory) {
  std::vector<Node> nodes;
  nodes.reserve(count);
  for (int i = 0; i < count; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), cpu, memory));
  return nodes;
}

// Limits equal to the requests; ready as soon as it starts.
inline Service MakeService(const std::string& name, int64_t cpu, int64_t memory) {
  Service s{.name = name, .requests = Resources::Of(cpu, memory)};
  s.limits = s.requests;
  s.startup_s = 0;
  return s;
}

// Tasks of 600 s (estimated alike), submitted at 0, tolerating a 300-s wait.
inline BatchJob MakeJob(const std::string& name, int tasks, int64_t cpu, int64_t memory) {
  return BatchJob{.name = name,
                  .tasks = tasks,
                  .task_requests = Resources::Of(cpu, memory),
                  .duration_estimate_s = 600,
                  .duration_s = 600,
                  .delay_tolerance_s = 300};
}

// The engine's actions so far, cleared.
inline std::vector<Action> Take(Engine& engine) {
  std::vector<Action> taken(engine.actions().begin(), engine.actions().end());
  engine.ClearActions();
  return taken;
}

inline std::vector<Action> OfKind(const std::vector<Action>& actions, ActionKind kind) {
  std::vector<Action> out;
  std::copy_if(actions.begin(), actions.end(), std::back_inserter(out),
               [kind](const Action& a) { return a.kind == kind; });
  return out;
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_ENGINE_EVENTS_H_
