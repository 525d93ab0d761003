// The `--shrink` search (issue 4): how few nodes a policy needs to host a workload's services.
//
// The scenario is built once at its full size; smaller fleets are cut from it (ShrinkFleet), never
// re-generated, so every size and every policy sees the same services, usage and events. A fleet
// hosts the services when, over the measured period (after warm-up), every desired service
// replica ran at every usage tick, no node was ever hot and every service SLA contract held
// (HostsServices). The search bisects between a size known to fail and one known to host: it
// assumes that hosting is monotone in the fleet size, which placement heuristics do not strictly
// guarantee, so the answer is the smallest hosting size the bisection visits. Fleets whose total
// allocatable cpu or memory cannot hold the services' requests at the start of the measured
// period fail without being simulated.
#ifndef ARCHIMEDES_SIM_SHRINK_H_
#define ARCHIMEDES_SIM_SHRINK_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/workload.h"
#include "profile/profile.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

namespace archimedes {

// `scenario` with `nodes` of its initial nodes (0 < nodes ≤ its node count). Node types (equal
// capacity and allocatable) keep their shares of the fleet by the largest-remainder method (ties to
// the type seen first); within a type the kept nodes are evenly spaced in fleet order, so zones
// and PODs keep theirs. Node events naming a dropped node are dropped; nodes added by events,
// services and jobs are unchanged. Deterministic.
Scenario ShrinkFleet(const Scenario& scenario, int nodes);

// Every desired service replica ran, no hot node-time, every service contract honoured.
bool HostsServices(const Metrics& m);

struct ShrinkStep {
  int nodes = 0;
  bool hosts = false;
  bool simulated = false;  // false: ruled out by requests alone
  Metrics metrics;         // when simulated
};

struct ShrinkResult {
  std::string policy;
  int full_nodes = 0;
  int nodes_needed = -1;  // -1: even the full fleet does not host the services
  Metrics at_needed;      // the run at nodes_needed (or at the full size when none hosts)
  std::vector<ShrinkStep> steps;
};

struct ShrinkOptions {
  SimOptions sim;  // on_tick and profiles are set per run
  // The profiles every run places and is measured by (sim/peak_load.h).
  const ProfileSet* profiles = nullptr;
  // Called after every step with (policy, step).
  std::function<void(const std::string&, const ShrinkStep&)> on_step;
};

// Bisects the fleet size for `policy`. `full_run`, when given, is the policy's run at the full
// size (measured with SimulateMeasuringPeaks and the same options), which is then not repeated.
ShrinkResult FindSmallestFleet(const Scenario& scenario, const Policy& policy,
                               const ShrinkOptions& options, const Metrics* full_run = nullptr);

// policy → nodes needed and the figures at that size, as a table and as JSON.
std::string FormatShrinkTable(const std::vector<ShrinkResult>& results);
nlohmann::json ShrinkToJson(const std::vector<ShrinkResult>& results);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_SHRINK_H_
