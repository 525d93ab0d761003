// Readers of the Alibaba GPU cluster trace 2023 (cluster-trace-gpu-v2023, "openb"): node lists
// (openb_node_list_*.csv) and pod lists (openb_pod_list_*.csv, 11 columns, or 5 for multigpu*).
//
// Contract (docs/traces.md has the reasons):
//  * Nodes: capacity = allocatable = cpu_milli millicores, memory_mib MiB, gpu × 1000 milli-GPUs;
//    label "gpu-model" on GPU nodes; failure domains from AssignRackFailureDomains.
//  * Pods are returned as read (trace times); Gpu2023ToWorkload turns them into services (LS,
//    Guaranteed, Burstable) and batch jobs (BE) on a clock that starts at the list's window.
// Files are streamed; malformed rows throw TraceError naming the file and line.
#ifndef ARCHIMEDES_TRACE_ALIBABA_GPU_2023_H_
#define ARCHIMEDES_TRACE_ALIBABA_GPU_2023_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/node.h"
#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

// For traces without failure domains: nodes in list order fill racks (PODs) of 32, named
// "pod-<k>", and rack k lies in zone "zone-<k mod 3>", so every zone gets every hardware kind
// that spans a few racks.
void AssignRackFailureDomains(std::vector<Node>& nodes);

std::vector<Node> ReadAlibabaGpu2023Nodes(const std::string& path);

struct Gpu2023Pod {
  std::string name;
  Resources requests;    // cpu, memory, gpu (num_gpu × 1000, or gpu_milli for one shared GPU)
  std::string gpu_spec;  // allowed GPU models separated by '|'; empty = any
  std::string qos;       // LS, BE, Burstable, Guaranteed; empty in 5-column lists
  std::string phase;     // Running, Succeeded, Failed, Pending; empty in 5-column lists
  std::optional<int64_t> creation_time;  // seconds from the trace origin
  std::optional<int64_t> deletion_time;
  std::optional<int64_t> scheduled_time;  // empty for Pending pods
};

std::vector<Gpu2023Pod> ReadAlibabaGpu2023Pods(const std::string& path);

struct Gpu2023Workload {
  Workload workload;
  // Trace time that became 0 (the earliest deletion: every pod alive from then on is listed)
  // and the length of the window after it; both 0 for lists without times.
  int64_t window_start = 0;
  int64_t window_length = 0;
  int dropped_pending_batch = 0;  // BE pods that never ran: no run length
  // BE pods naming GPU models: they become jobs, which carry no node constraints, so the models
  // are not enforced. (Services keep theirs: one model as a node selector, several as a required
  // node affinity `gpu-model In (…)`.)
  int unenforced_batch_gpu_specs = 0;
};

Gpu2023Workload Gpu2023ToWorkload(const std::vector<Gpu2023Pod>& pods);

// The packing replay of the FGD paper (Weng et al., ATC '23; its simulator inflates each list to
// 1.3× the fleet's GPUs, pods in a seeded random order, none leaving): every pod of `pods` arrives
// after the one before, in an order shuffled by `seed`, and stays; the list is drawn again in a
// new order, copies named "<pod>-<k>", until the pods arrived request kPackingInflation ×
// `fleet_gpu` (milli-GPUs). Arrivals are spread evenly over the first kPackingArrivals seconds.
// Every pod is a one-replica service (BE pods too, as Burstable: in this replay none ends), with
// its GPU models as written. The scenario then measures the fleet full: unplaced pods and
// unallocated GPUs.
inline constexpr double kPackingInflation = 1.3;
inline constexpr int64_t kPackingArrivals = int64_t{20} * 3600;
Workload Gpu2023PackingWorkload(const std::vector<Gpu2023Pod>& pods, int64_t fleet_gpu,
                                uint64_t seed);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_ALIBABA_GPU_2023_H_
