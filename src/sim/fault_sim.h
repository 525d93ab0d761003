// The fault simulation: MAGI against a single-observer node controller on the same fleet, the
// same placement and the same fault timeline (docs/faults.md).
//
// Time advances in 1 s steps. The world is the ground truth: which nodes are up, which links are
// cut (sim/fault_scenario.h), when each node's heartbeat last reached the API server. Controllers
// only see it through their channels:
//  - "single-observer" is Kubernetes' node lifecycle controller: every node_monitor_period it
//    marks a node NotReady whose heartbeat is older than node_monitor_grace_period, and the
//    NoExecute taint evicts the node's pods `toleration` seconds later unless the heartbeat
//    returns first (then the node is Ready again and the eviction is cancelled).
//  - "single-observer+review" is the same controller whose evictions first pass ReviewMigration
//    (sim/fault_review.h) by the MAGI members; a rejected eviction is asked again every
//    node_monitor_period while the node stays NotReady.
//  - "magi" is five real MAGI members (magi/member.h) in five PODs over one in-memory store
//    (store/memory_store.h) on the simulation's clock; the controller only acts on what they
//    record. Each member probes every node every probe_period; a probe fails iff the node is down
//    or a fault cuts the member's POD from it, and its result lands ceil(probe_timeout) later.
//    Members read heartbeat ages from the API server unless their POD is isolated; the store sits
//    outside every POD too, so the member of an isolated POD cannot vote. Members whose rounds
//    land in the same second act as at one instant. A node the members record offline is
//    declared and its containers migrate once ReviewMigration approves; it is readmitted, its
//    decisions cleared as an operator would, when its heartbeat is fresh again (younger than
//    heartbeat_grace).
//
// Metrics (per controller): a declaration is false when the node was *serving* at that moment
// (up, its network up, its POD not isolated: clients elsewhere still reach it); a migration is
// needless when it moves a container off a serving node. Container-time lost adds, each second,
// the containers on non-serving nodes and the containers waiting for a place, plus restart_s for
// every container restarted (migrated, or restarted in place when a crashed node comes back).
// Real failures are crash episodes lasting at least min_failure_s (to the end of the run
// included); the detection delay is from the crash to the controller's declaration (0 if the node
// was already declared), and a real failure never declared while down is missed.
//
// The run is a pure function of its inputs: the same state, faults and params give the same
// result.
#ifndef ARCHIMEDES_SIM_FAULT_SIM_H_
#define ARCHIMEDES_SIM_FAULT_SIM_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "magi/quorum.h"
#include "model/cluster_state.h"
#include "model/workload.h"
#include "sim/fault_scenario.h"

namespace archimedes {

// Kubernetes' defaults: kubelet renews its node Lease every 10 s; kube-controller-manager's
// --node-monitor-period 5 s and --node-monitor-grace-period 40 s (50 s from Kubernetes 1.32);
// the DefaultTolerationSeconds admission plugin gives every pod a 300 s toleration of the
// not-ready and unreachable NoExecute taints.
struct SingleObserverParams {
  int64_t heartbeat_interval_s = 10;
  int64_t node_monitor_period_s = 5;
  int64_t node_monitor_grace_period_s = 40;
  int64_t toleration_s = 300;
};

struct MagiSimParams {
  // PODs of the members, one member each (ids 1..n); empty: ChooseMemberPods(nodes, 5).
  std::vector<std::string> member_pods;
  int64_t probe_period_s = 1;
  int64_t probe_timeout_ms = 500;
  magi::JudgePolicy judge;
  magi::QuorumRule rule;
};

struct FaultSimParams {
  int64_t duration_s = kSecondsPerDay;
  int64_t restart_s = 30;              // a restarted container serves again after this long
  int64_t min_failure_s = 120;         // shorter crashes are not counted as real failures
  int64_t retry_period_s = 10;         // containers waiting for a place are retried this often
  uint64_t seed = 1;                   // tie-breaking of the k8s-default scheduler that re-places
  bool review_single_observer = true;  // also run "single-observer+review"
  SingleObserverParams single;
  MagiSimParams magi;
  // Called with (now, duration_s) every kProgressInterval simulated seconds and at the end.
  static constexpr int64_t kProgressInterval = 600;
  std::function<void(int64_t, int64_t)> progress;
};

enum class ControllerEventKind : uint8_t {
  kDeclared,           // NotReady / recorded offline
  kReadmitted,         // Ready again / offline record cleared
  kMigrated,           // the node's containers were moved off
  kMigrationRejected,  // MAGI review vetoed the migration
};
std::string_view ControllerEventKindName(ControllerEventKind kind);

struct ControllerEvent {
  int64_t time = 0;
  ControllerEventKind kind = ControllerEventKind::kDeclared;
  std::string node;
  int containers = 0;         // kMigrated: how many moved
  bool node_serving = false;  // ground truth at `time`
  bool node_up = false;
  // MAGI's quorum decision (kDeclared by "magi") or the review's vote (kMigrated,
  // kMigrationRejected after a review).
  std::optional<magi::Decision> decision;
};

struct ControllerReport {
  std::string name;
  int declarations = 0;
  int false_declarations = 0;
  int64_t needed_migrations = 0;    // containers moved off non-serving nodes
  int64_t needless_migrations = 0;  // containers moved off serving nodes
  int migrations_rejected = 0;      // review vetoes (each node episode counted once)
  int64_t container_seconds_lost = 0;
  int64_t waiting_at_end = 0;  // containers migrated that no node could take by the end
  int real_failures = 0;
  int missed_failures = 0;
  std::vector<int64_t> detection_delays_s;  // of detected real failures, sorted
  std::vector<ControllerEvent> events;      // in time order
};

struct FaultSimResult {
  int nodes = 0;
  int pods = 0;
  int containers = 0;
  int64_t duration_s = 0;
  std::vector<magi::Member> members;
  std::vector<Fault> faults;
  // "single-observer", ["single-observer+review",] "magi".
  std::vector<ControllerReport> controllers;
  const ControllerReport& controller(std::string_view name) const;  // throws std::out_of_range
};

// `count` PODs, spread round-robin over the zones (the first POD of each zone, then the second…),
// in name order within a zone. Throws std::invalid_argument when the fleet has fewer PODs.
std::vector<std::string> ChooseMemberPods(const std::vector<Node>& nodes, int count);

struct PlacedFleet {
  ClusterState state;
  int unplaced = 0;  // replicas no node could hold
};

// Every replica of every service of `scenario`, placed in order by the k8s-default scheduler.
PlacedFleet PlaceServices(const Scenario& scenario, uint64_t seed);

// `services` is the workload the service containers of `placed` belong to (Container::owner
// indexes it): containers re-placed after a migration keep their node selector and per-node limit.
// Empty when the containers need only their requests.
// Throws std::invalid_argument when params are not positive where they must be, the member PODs
// are unknown or repeated, the quorum rule cannot be met, or a fault names an unknown node/POD.
FaultSimResult RunFaultSim(const ClusterState& placed, const std::vector<Fault>& faults,
                           const FaultSimParams& params, std::span<const Service> services = {});

// The latest MAGI can declare a crashed node under `params` when nothing else is wrong: the
// heartbeat must age past heartbeat_grace (it was up to one interval old at the crash), then the
// next probe round lands, and the yes votes meet the quorum in that round.
int64_t MagiDetectionBound(const FaultSimParams& params);

// Nearest-rank percentile of sorted values (0 when empty).
int64_t Percentile(const std::vector<int64_t>& sorted, double q);

// The controllers side by side.
std::string FormatFaultTable(const FaultSimResult& result);
nlohmann::json FaultSimToJson(const FaultSimResult& result);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_FAULT_SIM_H_
