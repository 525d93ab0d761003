// Where a simulation's scenario comes from: the synthetic generator (the default), the real
// scenario composed from ../shared/traces, one real trace, or a scenario file. A scenario file is
// native JSON (docs/formats.md) that may also name a base to build on:
//
//   {"generator": {"nodes": 500, "batch_load": 0.8}}            generated, with overrides
//   {"real": {"nodes": 300, "traces_dir": "../shared/traces"}}   the real scenario
//   {"trace": "../shared/traces/alibaba-gpu-v2023/openb_pod_list_default.csv"}
//
// plus any native keys (nodes, services, jobs, node_events, scale_events, name, duration), which
// are added to the base. The file is read as strictly as the native format (trace/json_reader.h):
// a bad generator parameter or `real` key is a JsonError with its path (`generator.nodse`).
#ifndef ARCHIMEDES_SIM_SCENARIO_SOURCE_H_
#define ARCHIMEDES_SIM_SCENARIO_SOURCE_H_

#include <string>
#include <vector>

#include "model/workload.h"
#include "sim/generator.h"

namespace archimedes {

struct ScenarioRequest {
  std::string scenario;       // "", "real", or the path of a scenario file
  std::string trace;          // path of one real trace (empty: none)
  std::string traces_dir;     // where "real" finds the traces
  GeneratorParams generator;  // nodes, days and seed also size the real scenario and traces
  std::vector<std::string> job_files;  // native job files added to the workload
  bool gpu_packing = false;            // the trace, a GPU 2023 pod list, replayed as FGD packs it
};

// Throws TraceError or std::invalid_argument naming the bad input. Jobs of a job file, or a
// scenario file's own jobs (not those of its generated or trace base), that can never run
// (docs/formats.md: an impossible value, a task larger than every node, a gang larger than the
// fleet) are left out and their errors appended to `rejected_jobs`; when it is null they throw too.
Scenario BuildScenario(const ScenarioRequest& request,
                       std::vector<std::string>* rejected_jobs = nullptr);

// Appends `extra`'s nodes, services, jobs and events to `base` (and takes its name if it has one);
// jobs stay sorted by submit time. The duration stays the base's.
void MergeScenario(Scenario& base, Scenario extra);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_SCENARIO_SOURCE_H_
