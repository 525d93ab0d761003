// Readers of the Alibaba cluster trace 2018 (cluster-trace-v2018, ~4,000 machines, 8 days): the
// fleet from machine_meta.csv and per-machine usage series from machine_usage.csv (both without a
// header line).
//
// Contract (docs/traces.md has the reasons):
//  * Machines have 96 cores; memory is normalised to 100 and 100 is taken to be
//    kAlibaba2018MachineMemoryBytes (an assumption: the trace gives no absolute size).
//  * failure_domain_1 becomes the node's POD ("fd1-<n>"), failure_domain_2 its zone ("fd2-<n>");
//    the latest status row of a machine wins, except that an empty domain keeps the earlier one.
//  * Usage series are fractions of the machine (normalized = true, limit and largest node 1 per
//    dimension): CPU, memory and disk I/O percent / 100; network = the busier of net_in and
//    net_out / 100. Invalid disk readings (-1, 101) take the machine's nearest earlier valid
//    reading (the first valid one at the start). Irregular sampling is kept.
// Files are streamed; malformed rows throw TraceError naming the file and line.
#ifndef ARCHIMEDES_TRACE_ALIBABA_2018_H_
#define ARCHIMEDES_TRACE_ALIBABA_2018_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/node.h"
#include "trace/usage_series.h"

namespace archimedes {

inline constexpr int64_t kAlibaba2018CoresPerMachine = 96;
inline constexpr int64_t kAlibaba2018MachineMemoryBytes = int64_t{512} << 30;

// One node per machine, in order of first appearance; a machine whose latest status is not
// USING (e.g. IMPORT_INSTALLING) is NotReady. The latest row's status is also label "status".
std::vector<Node> ReadAlibaba2018Machines(const std::string& machine_meta_path);

// One series per machine (id = app = machine_id), in order of first appearance.
std::vector<UsageSeries> ReadAlibaba2018Usage(const std::string& machine_usage_path);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_ALIBABA_2018_H_
