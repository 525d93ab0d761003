// One entry point for `archimedes simulate --trace PATH`: recognise which real trace a path is and
// build the Scenario it describes on its own (docs/traces.md lists what each path gives).
//
//   shared/traces (the folder of all traces)  the real scenario (real_scenario.h)
//   openb_pod_list_*.csv                      its services and BE jobs on the fleet of
//                                             openb_node_list_all_node.csv beside it
//   openb_node_list_*.csv                     that fleet, no workload
//   disaggregated_DLRM_trace.csv              its replica groups over a month, on the fleet of
//                                             LoadOptions::node_list or of the 2023 node list
//                                             in the sibling alibaba-gpu-v2023 folder
//   alibaba-v2017/, batch_task.csv,           the 2017 fleet, its soft errors and batch stream
//     server_event.csv
//   alibaba-v2018/, machine_meta.csv          the 2018 fleet, no workload
//   alibaba-gpu-v2023/, alibaba-gpu-v2025/    as their default file (pod list "default", DLRM)
//
// Anything else (usage series, aggregates, unknown files) throws TraceError saying what is
// accepted.
#ifndef ARCHIMEDES_TRACE_TRACE_LOADER_H_
#define ARCHIMEDES_TRACE_TRACE_LOADER_H_

#include <cstdint>
#include <string>

#include "model/workload.h"
#include "trace/real_scenario.h"

namespace archimedes {

struct LoadOptions {
  // Size of the real scenario, used when the path is the folder of all traces.
  int nodes = 1000;
  int days = 2;
  uint64_t seed = 1;
  // The real scenario's placement check (RealScenarioOptions::places_every_replica).
  PlacementCheck places_every_replica;
  // A 2023 node-list CSV as the fleet of traces that have none (DLRM); empty = look beside it.
  std::string node_list;
  // A GPU 2023 pod list replayed as the FGD paper packs it (Gpu2023PackingWorkload, pods in the
  // order `seed` shuffles): the scenario lasts a day of arrivals and an hour of the fleet full.
  // Any other trace is refused with it.
  bool gpu_packing = false;
};

Scenario LoadTrace(const std::string& path, const LoadOptions& options = {});

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_TRACE_LOADER_H_
