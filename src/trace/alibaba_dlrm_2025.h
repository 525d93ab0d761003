// Reader of the Alibaba DLRM inference trace 2025 (cluster-trace-gpu-v2025,
// disaggregated_DLRM_trace.csv): one row per latency-sensitive instance, grouped by app and role
// into replica groups.
//
// Contract (docs/traces.md has the reasons):
//  * Requests: vCPU → millicores, GiB → bytes, GPU count → milli-GPUs. Disk capacity (GiB) and
//    the RDMA share are kept on the instance; the resource vector has no dimension for them (its
//    disk dimension is I/O bandwidth).
//  * Empty creation time = existed before the window (alive at 0); empty deletion = outlived it.
// The file is streamed; malformed rows throw TraceError naming the file and line.
#ifndef ARCHIMEDES_TRACE_ALIBABA_DLRM_2025_H_
#define ARCHIMEDES_TRACE_ALIBABA_DLRM_2025_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

struct DlrmInstance {
  std::string id;    // instance_sn
  std::string app;   // app_name
  std::string role;  // CN (CPU node) or HN (GPU node)
  Resources requests;
  int64_t disk_request_bytes = 0;
  int rdma_percent = 0;
  int max_per_node = 0;  // 0 = no limit (the trace's -1)
  std::optional<int64_t> creation_time;
  std::optional<int64_t> scheduled_time;
  std::optional<int64_t> deletion_time;
};

std::vector<DlrmInstance> ReadAlibabaDlrm2025(const std::string& path);

// One app+role replica group as a Service named "<app>-<role>":
//  * requests = limits = the per-dimension maximum over the group's instances (Guaranteed);
//  * max_per_node = the strictest positive limit of the group;
//  * start_time = earliest creation (0 if any instance predates the window), end_time = latest
//    deletion (kForever if any outlives it); replicas = instances alive at start_time, and
//    scale_events follow the alive count after that;
//  * peak_replicas = the most instances alive at once.
struct DlrmGroup {
  Service service;
  std::vector<ScaleEvent> scale_events;
  int instances = 0;
  int peak_replicas = 0;
};

// Groups in order of first appearance in `instances`.
std::vector<DlrmGroup> GroupDlrmInstances(const std::vector<DlrmInstance>& instances);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_ALIBABA_DLRM_2025_H_
