// The native workload format: one JSON document describing a fleet and its workload, mapping field
// for field onto the model structs (docs/formats.md is the full reference). A file may hold any of
// `name`, `duration`, `nodes`, `services`, `jobs`, `node_events` and `scale_events`.
//
// Resource amounts are Kubernetes quantity strings ("500m", "4Gi") or plain whole numbers in
// canonical units (millicores, bytes, ...); durations and times are whole seconds or durations
// such as "30s", "5m", "2h", "1d" or "1h30m" (model/duration.h), and are written as durations.
//
// Reading is strict (trace/json_reader.h): an unknown key, a duplicated key, a malformed quantity
// or an impossible value is a JsonError naming the file, the JSON path (`services[3].requests.cpu`)
// and the problem, so that a typo is never silently ignored. Malformed JSON is a TraceError with
// its line and column.
// References are checked too: scale events must name a service and node events a node of the same
// file (when the file has a `services` / `nodes` array), and names must be unique. Jobs, node
// events and scale events come back ordered by time (stably), so a file need not list them in
// order.
#ifndef ARCHIMEDES_TRACE_NATIVE_FORMAT_H_
#define ARCHIMEDES_TRACE_NATIVE_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/workload.h"
#include "trace/trace_error.h"

namespace archimedes {

// Reads a scenario file. Throws TraceError.
Scenario ReadScenarioFile(const std::string& path);

// Builds a scenario from an already parsed document; `source_name` is what errors call it.
// Throws TraceError. With `rejected_jobs`, jobs that cannot run are left out as ReadJobsFile
// leaves them.
Scenario ParseScenarioJson(const nlohmann::json& document, const std::string& source_name,
                           std::vector<std::string>* rejected_jobs = nullptr);

// Writes `scenario` so that ReadScenarioFile gives it back field for field (usage patterns are
// written as absolute values). Throws TraceError when the file cannot be written.
void WriteScenarioFile(const Scenario& scenario, const std::string& path);

// The document WriteScenarioFile writes, as text.
std::string FormatScenarioJson(const Scenario& scenario);

// Reads a file of batch jobs: either an object whose only key is `jobs` or a bare JSON array of
// jobs. Jobs come back in submit order. Throws TraceError. With `rejected`, a job that is well
// formed but cannot run (ValidateJob) is left out and its error (file, JSON path, why) appended
// there instead, so that one impossible job does not cost the others.
std::vector<BatchJob> ReadJobsFile(const std::string& path,
                                   std::vector<std::string>* rejected = nullptr);

// One job object of the format (what the native job API accepts). Throws TraceError.
BatchJob ParseJobJson(const nlohmann::json& job, const std::string& source_name);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_NATIVE_FORMAT_H_
