// A policy is a named composition of four strategies (DESIGN §4, §6): where service replicas go,
// where batch goes, what happens under pressure, what happens on health warnings. It is a recipe:
// the engine builds fresh strategy objects from it for each run, so running a Policy never changes
// it and one Policy can drive any number of engines. Every policy lives in its own file under
// engine/policies/, which defines its factory (`Policy XPolicy()`); policy.cc declares and
// registers it, a line each. Nothing else names it.
#ifndef ARCHIMEDES_ENGINE_POLICY_H_
#define ARCHIMEDES_ENGINE_POLICY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/batch_placement.h"
#include "engine/health_response.h"
#include "engine/pressure_response.h"
#include "engine/service_placement.h"

namespace archimedes {

// What a driver may know of a policy: all it reads of one, so that no driver builds or inspects
// the strategies. Computed once, by MakePolicy.
struct PolicyTraits {
  double buffer = 0.10;  // Policy::buffer
  // The strategies place by profiles: the driver gives the engine some (EngineOptions::profiles),
  // or they predict every application by its requests.
  bool uses_profiles = false;
  // How batch tasks count against a node: a driver that keeps its own view of the engine's fleet
  // (replay/remote_engine.h) counts them alike.
  TaskAccounting batch_accounting = TaskAccounting::kAllocatable;
};

struct Policy {
  std::string name;
  std::string description;
  // The burst buffer: share of each node's capacity kept free of batch for services' peaks.
  // Policies that do not keep one (kube-scheduler's) ignore it.
  double buffer = 0.10;
  bool keeps_buffer = false;
  // Each builds a fresh strategy for one engine, from the engine's seed (and, for batch, the
  // buffer above).
  std::function<std::unique_ptr<ServicePlacement>(uint64_t seed)> services;
  std::function<std::unique_ptr<BatchPlacement>(uint64_t seed, double buffer)> batch;
  // Null: nothing beyond the kernel's OOM killer.
  std::function<std::unique_ptr<PressureResponse>()> pressure;
  // Null: warnings are not acted on.
  std::function<std::unique_ptr<HealthResponse>()> health;
  // Set by MakePolicy from the above; the engine reads the recipe, drivers only this.
  PolicyTraits traits;
};

// The policies of the default comparison (DESIGN §6), in the order reports list them.
std::vector<std::string> PolicyNames();

// Every registered policy's name: PolicyNames() and the variants that switch one capability of
// archimedes off, for measuring what it changes.
std::vector<std::string> AllPolicyNames();

// The largest burst buffer a policy takes: above it, nothing is left for batch below the hot
// threshold.
inline constexpr double kMaxBuffer = 0.9;

// The policy with its traits, with `buffer` instead of its own burst buffer when given. Throws
// std::invalid_argument naming the unknown policy and the known ones, for a buffer outside
// [0, kMaxBuffer], and for a buffer given to a policy that keeps none.
Policy MakePolicy(std::string_view name, std::optional<double> buffer = std::nullopt);

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_POLICY_H_
