// Reader of Google ClusterData2019 per-replica usage extracts (google-v2019-instance-usage): one
// CSV of 40 columns per task replica, 5-minute windows, times in microseconds.
//
// Contract (docs/traces.md has the reasons): one UsageSeries per file with id = unique_id
// ("<collection>-<index>"), app = collection_id, normalized = true (CPU in NCU, memory as a share
// of the largest machine), times in whole seconds (window start), values = avg_cpu_usage and
// avg_memory_usage, window_max = max_cpu_usage and max_memory_usage (at least the average),
// limit = the largest cpu_limit / memory_limit seen in the file, largest node 1 for cpu and memory
// (the units are shares of the largest machine). A row that repeats the previous row's window
// start is dropped (the first one is kept).
// Files are streamed; malformed rows throw TraceError naming the file and line.
#ifndef ARCHIMEDES_TRACE_GOOGLE_2019_H_
#define ARCHIMEDES_TRACE_GOOGLE_2019_H_

#include <string>
#include <vector>

#include "trace/usage_series.h"

namespace archimedes {

UsageSeries ReadGoogle2019Replica(const std::string& path);

// Every *.csv of one job folder (e.g. google-v2019-instance-usage/113), in file-name order.
std::vector<UsageSeries> ReadGoogle2019Job(const std::string& dir);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_GOOGLE_2019_H_
