// Faults for the fault simulation (sim/fault_sim.h): node crashes and partial network faults as
// timed events, read from a JSON fault-scenario file (docs/faults.md) or drawn at random.
//
// Contract:
//  - A fault starts at `at` and ends at `at + duration`; a duration of kForever means it lasts to
//    the end of the run (a crashed node that never comes back).
//  - ReadFaultsFile / ParseFaults read strictly (trace/json_reader.h) and check every fault
//    against the fleet; they throw a JsonError naming the file, the JSON path of the value at
//    fault (`faults[3].node`) and the problem (unknown node, POD, kind or link, a bad time, a key
//    the kind does not take). ReadFaultsFile throws TraceError for unreadable or malformed JSON.
//  - GenerateFaults is a pure function of its arguments: the same fleet, rates and seed give the
//    same faults on every platform. Every kind whose rate is positive occurs at least once, so a
//    short run still exercises every kind.
#ifndef ARCHIMEDES_SIM_FAULT_SCENARIO_H_
#define ARCHIMEDES_SIM_FAULT_SCENARIO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/node.h"
#include "model/workload.h"

namespace archimedes {

enum class FaultKind : uint8_t {
  kCrash,        // the node is really down: its containers die, nobody reaches it
  kApiCut,       // the node cannot reach the API server: heartbeats stop, containers keep serving
  kPodCut,       // the members of one POD cannot reach the node; everyone else can
  kPodIsolated,  // a whole POD is cut from everything outside it (API server included)
  kFlap,         // a link goes down and up periodically
};

// The link a flap toggles.
enum class FlapLink : uint8_t {
  kApi,   // node ↔ API server, as kApiCut
  kPod,   // one POD ↔ node, as kPodCut
  kNode,  // every link of the node (its NIC or top-of-rack port)
};

// "crash", "api-cut", "pod-cut", "pod-isolated", "flap".
std::string_view FaultKindName(FaultKind kind);
std::optional<FaultKind> ParseFaultKind(std::string_view name);
// "api", "pod", "node".
std::string_view FlapLinkName(FlapLink link);
std::optional<FlapLink> ParseFlapLink(std::string_view name);

struct Fault {
  FaultKind kind = FaultKind::kCrash;
  int64_t at = 0;
  int64_t duration = kForever;
  std::string node;                // every kind but kPodIsolated
  std::string pod;                 // kPodCut, kPodIsolated, and kFlap over FlapLink::kPod
  FlapLink link = FlapLink::kApi;  // kFlap only
  int64_t period = 0;              // kFlap: seconds from one down phase to the next
  int64_t down = 0;                // kFlap: seconds each down phase lasts (0 < down < period)
};

// A one-line description for logs and tables, e.g. "api-cut node-00012 at 2h for 15m".
std::string DescribeFault(const Fault& fault);

// Parses {"faults": [...]} (or a bare array) as docs/faults.md describes, checking nodes and PODs
// against `nodes`. `source_name` is the file errors name.
std::vector<Fault> ParseFaults(const nlohmann::json& document, const std::vector<Node>& nodes,
                               const std::string& source_name);
std::vector<Fault> ReadFaultsFile(const std::string& path, const std::vector<Node>& nodes);
// The inverse of ParseFaults: {"faults": [...]} with times in seconds.
nlohmann::json FaultsToJson(const std::vector<Fault>& faults);

// Rates of the random fault generator. Counts are Poisson with mean rate × exposure; durations
// are lognormal with the given median and sigma 1, at least 1 s.
struct FaultRates {
  double crashes_per_node_day = 0.003;
  double crash_recover_share = 0.6;  // crashes that are reboots; the rest never recover
  int64_t reboot_median_s = 600;
  double api_cuts_per_node_day = 0.003;
  int64_t api_cut_median_s = 600;
  double pod_cuts_per_node_day = 0.003;
  int64_t pod_cut_median_s = 900;
  double pod_isolations_per_pod_day = 0.02;
  int64_t pod_isolation_median_s = 600;
  double member_pod_isolation_share = 0.5;  // isolations that hit a POD hosting a MAGI member
  double flaps_per_node_day = 0.003;
  int64_t flap_median_s = 1800;
  int64_t flap_period_min_s = 60;  // uniform per flap
  int64_t flap_period_max_s = 300;
  double flap_down_share_min = 0.5;  // down ÷ period, uniform per flap
  double flap_down_share_max = 0.8;
};

// Random faults over [0, duration_s) for the fleet. Flaps toggle the API or a POD link. POD
// isolations pick among `member_pods` with probability member_pod_isolation_share. Throws
// std::invalid_argument for negative rates, shares outside [0, 1] or bad flap bounds.
std::vector<Fault> GenerateFaults(const std::vector<Node>& nodes,
                                  const std::vector<std::string>& member_pods,
                                  const FaultRates& rates, int64_t duration_s, uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_FAULT_SCENARIO_H_
