// The real usage traces `archimedes profile --trace SPEC` learns from (docs/profiles.md), named by
// SPEC:
//
//   google2019:DIR     a job folder of google-v2019-instance-usage, or the folder of such jobs
//   alibaba2018:FILE   alibaba-v2018/machine_usage.csv
//   aggregates:DIR     datacenter-aggregates: each provider's whole-fleet load as one series
//
// or a path whose kind is recognised: machine_usage.csv or a folder holding it, a folder holding
// azure_v2/ (the aggregates), any other folder (Google 2019).
//
// ReadUsageTrace hands the series to `consume` in batches, so that memory holds one batch at a
// time: one per Google job folder (in name order), the whole Alibaba file, the three aggregates
// together. Throws TraceError for an unknown SPEC or a bad file.
#ifndef ARCHIMEDES_TRACE_USAGE_TRACE_H_
#define ARCHIMEDES_TRACE_USAGE_TRACE_H_

#include <functional>
#include <string>
#include <vector>

#include "trace/usage_series.h"

namespace archimedes {

void ReadUsageTrace(const std::string& spec,
                    const std::function<void(const std::vector<UsageSeries>&)>& consume);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_USAGE_TRACE_H_
