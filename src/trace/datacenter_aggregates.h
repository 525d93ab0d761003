// Readers of the whole-datacentre load curves in datacenter-aggregates/ (derived by a third party
// from Alibaba 2018, Google 2019 and Azure 2019 into 300-s buckets). Each gives one UsageSeries
// of load *shape* (normalized = true); docs/traces.md states the time rules.
//
//  * Alibaba 2018 (alibaba2018/day_N/*.csv): fleet-mean percent / 100 for CPU, memory and disk;
//    network = the busier of net_in and net_out / 100; limit 1. Row i of day N is at
//    (N-1)·86,400 + 300·i s; a day's rows beyond 288 are dropped (day 1 has 289).
//  * Google 2019 (google2019/weekN/*.csv): avg_cpu (NCU) and avg_mem (normalised) at
//    (N-1)·604,800 + 300·i s; limit 0 (none recorded).
//  * Azure 2019 (azure_v2/weekN/*.csv): cpu_usage and assigned_mem sums at `timestamp`; only
//    meaningful relatively, so limit = the series' maximum per dimension.
// Files are streamed; malformed rows throw TraceError naming the file and line.
#ifndef ARCHIMEDES_TRACE_DATACENTER_AGGREGATES_H_
#define ARCHIMEDES_TRACE_DATACENTER_AGGREGATES_H_

#include <string>

#include "trace/usage_series.h"

namespace archimedes {

// `dir` is the provider folder (…/datacenter-aggregates/alibaba2018, google2019 or azure_v2).
UsageSeries ReadAlibaba2018Aggregate(const std::string& dir);
UsageSeries ReadGoogle2019Aggregate(const std::string& dir);
UsageSeries ReadAzure2019Aggregate(const std::string& dir);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_DATACENTER_AGGREGATES_H_
