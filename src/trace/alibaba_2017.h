// Readers of the Alibaba cluster trace 2017 (cluster-trace-v2017, ~1,300 machines, 24 h): the
// fleet and its soft errors from server_event.csv, the batch stream from batch_task.csv.
//
// Contract (docs/traces.md has the reasons):
//  * Machines have 64 cores; memory is normalised and 1.0 is taken to be
//    kAlibaba2017MemoryBytesPerUnit (an assumption: the trace gives no absolute size).
//  * The trace has no failure domains: zones and PODs follow AssignRackFailureDomains.
//  * A machine's first softerror becomes a NodeEvent::kFail; later ones are redundant.
//  * One BatchJob per task row that ran with a known plan; the rest are counted, not returned.
// Files are streamed; malformed rows throw TraceError naming the file and line.
#ifndef ARCHIMEDES_TRACE_ALIBABA_2017_H_
#define ARCHIMEDES_TRACE_ALIBABA_2017_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/node.h"
#include "model/workload.h"

namespace archimedes {

inline constexpr int64_t kAlibaba2017CoresPerMachine = 64;
// Bytes that a normalised memory value of 1.0 stands for: the largest machines of the trace are
// at 1.0 and most at 0.69 (then 256 GiB and ~177 GiB).
inline constexpr int64_t kAlibaba2017MemoryBytesPerUnit = int64_t{256} << 30;

// The delay tolerance given to batch work from traces that record none: ten times the run
// length, clamped to [5 min, 4 h].
int64_t BatchDelayTolerance(int64_t duration_s);

struct Alibaba2017Fleet {
  std::vector<Node> nodes;        // one per machine with an `add` event, in machine-id order
  std::vector<NodeEvent> events;  // kFail, in time order
  int soft_errors = 0;            // softerror rows read (some repeat for one machine)
};

// server_event.csv (no header): timestamp, machine_id, event_type, event_detail, cpus, memory,
// disk.
Alibaba2017Fleet ReadAlibaba2017ServerEvents(const std::string& path);

struct Alibaba2017Task {
  int64_t job_id = 0;
  int64_t task_id = 0;
  BatchJob job;  // named "j<job_id>-t<task_id>", function "alibaba-2017/j<job_id>"
};

struct Alibaba2017Batch {
  std::vector<Alibaba2017Task> tasks;  // in submit order (file order among equal times)
  int64_t rows = 0;
  int64_t skipped_waiting = 0;  // never started: no run length
  int64_t skipped_no_plan = 0;  // CPU or memory plan empty
  int64_t skipped_no_end = 0;   // end time not after max(create, 0)
};

// batch_task.csv (one header line): task_create_time, task_end_time, job_id, task_id,
// number_of_instances, status, cpus per instance (100 = one core), normalised memory per instance.
Alibaba2017Batch ReadAlibaba2017BatchTasks(const std::string& path);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_ALIBABA_2017_H_
