#include "trace/alibaba_gpu_2023.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "model/limits.h"
#include "model/random.h"
#include "trace/alibaba_2017.h"
#include "trace/csv_reader.h"

namespace archimedes {
namespace {

constexpr int kRackSize = 32;
constexpr int kZones = 3;
constexpr int64_t kMiB = int64_t{1} << 20;

constexpr int kServicePriority = 100;
constexpr int kBurstablePriority = 50;

// Packing replay: at most this many passes over a list (a list whose GPU requests are tiny against
// the fleet stops there).
constexpr int kPackingMaxPasses = 100;

// Trace times are seconds from the trace's start.
constexpr int64_t kMaxTime = kMaxDurationSeconds;

std::optional<int64_t> OptionalTime(const CsvReader& csv, int i, std::string_view column) {
  return csv.OptionalInt(i, column, 0, kMaxTime);
}

int64_t CpuMilli(const CsvReader& csv) { return csv.Int(1, "cpu_milli", 0, kMaxResourceAmount); }

int64_t MemoryBytes(const CsvReader& csv) {
  return csv.Int(2, "memory_mib", 0, kMaxResourceAmount / kMiB) * kMiB;
}

// The models of a `gpu_spec` such as "P100|V100M16" (the reader refuses empty ones).
std::vector<std::string_view> SplitGpuSpec(std::string_view spec) {
  std::vector<std::string_view> models;
  for (size_t bar = spec.find('|'); bar != std::string_view::npos; bar = spec.find('|')) {
    models.push_back(spec.substr(0, bar));
    spec.remove_prefix(bar + 1);
  }
  models.push_back(spec);
  return models;
}

// A pod as a one-replica service: its QoS (LS, Guaranteed and unlabelled pods Guaranteed,
// Burstable and BE Burstable) and its GPU models as written.
Service ServiceOf(const Gpu2023Pod& pod) {
  Service service;
  service.name = pod.name;
  service.app = pod.name;
  service.requests = pod.requests;
  if (pod.qos == "Burstable" || pod.qos == "BE") {
    service.qos = QosClass::kBurstable;
    service.priority = kBurstablePriority;
  } else {
    // LS, Guaranteed, and the unlabelled pods of 5-column lists (mostly LS in the default mix).
    service.qos = QosClass::kGuaranteed;
    service.limits = pod.requests;
    service.priority = kServicePriority;
  }
  if (!pod.gpu_spec.empty()) {
    if (pod.gpu_spec.find('|') == std::string::npos) {
      service.node_selector["gpu-model"] = pod.gpu_spec;
    } else {
      // Any of the models: kube-scheduler's required node affinity, `gpu-model In (a, b)`.
      NodeSelectorRequirement any_model{.key = "gpu-model", .op = SelectorOp::kIn};
      for (std::string_view model : SplitGpuSpec(pod.gpu_spec)) {
        any_model.values.emplace_back(model);
      }
      service.node_affinity.push_back(NodeSelectorTerm{.match_expressions = {any_model}});
    }
  }
  return service;
}

}  // namespace

void AssignRackFailureDomains(std::vector<Node>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    size_t rack = i / kRackSize;
    nodes[i].pod = "pod-" + std::to_string(rack);
    nodes[i].zone = "zone-" + std::to_string(rack % kZones);
  }
}

std::vector<Node> ReadAlibabaGpu2023Nodes(const std::string& path) {
  CsvReader csv(path);
  csv.ExpectHeader({"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  std::vector<Node> nodes;
  std::map<std::string, int64_t> line_of;  // node name → its line
  while (csv.Next()) {
    csv.ExpectFields(5);
    Node node;
    node.name = std::string(csv.field(0));
    if (node.name.empty()) csv.Fail("column sn is empty");
    if (auto [it, added] = line_of.emplace(node.name, csv.line()); !added) {
      csv.Fail("node \"" + node.name + "\" appears twice (first on line " +
               std::to_string(it->second) + ")");
    }
    const int64_t gpus = csv.Int(3, "gpu", 0, kMaxResourceAmount / 1000);
    node.capacity = Resources::Of(CpuMilli(csv), MemoryBytes(csv), 0, 0, gpus * 1000);
    node.allocatable = node.capacity;
    if (gpus > 0) {
      if (csv.field(4).empty()) csv.Fail("GPU node without a model");
      node.labels["gpu-model"] = std::string(csv.field(4));
    }
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) throw TraceError(path, 0, "no nodes");
  AssignRackFailureDomains(nodes);
  return nodes;
}

std::vector<Gpu2023Pod> ReadAlibabaGpu2023Pods(const std::string& path) {
  CsvReader csv(path);
  if (!csv.Next()) csv.Fail("empty file, expected a header line");
  const std::vector<std::string> full = {
      "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
      "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
  const int columns = csv.size() == 5 ? 5 : 11;
  csv.ExpectFields(columns);
  for (int i = 0; i < columns; ++i) {
    if (csv.field(i) != full[i]) {
      csv.Fail("header column " + std::to_string(i + 1) + " is \"" + std::string(csv.field(i)) +
               "\", expected \"" + full[i] + "\"");
    }
  }
  std::vector<Gpu2023Pod> pods;
  std::map<std::string, int64_t> line_of;  // pod name → its line
  while (csv.Next()) {
    csv.ExpectFields(columns);
    Gpu2023Pod pod;
    pod.name = std::string(csv.field(0));
    if (pod.name.empty()) csv.Fail("column name is empty");
    if (auto [it, added] = line_of.emplace(pod.name, csv.line()); !added) {
      csv.Fail("pod \"" + pod.name + "\" appears twice (first on line " +
               std::to_string(it->second) + ")");
    }
    const int64_t num_gpu = csv.Int(3, "num_gpu", 0, kMaxResourceAmount / 1000);
    const int64_t gpu_milli = csv.Int(4, "gpu_milli", 0, 1000);
    const int64_t gpu = num_gpu == 1 ? gpu_milli : num_gpu * 1000;
    pod.requests = Resources::Of(CpuMilli(csv), MemoryBytes(csv), 0, 0, gpu);
    if (columns == 11) {
      pod.gpu_spec = std::string(csv.field(5));
      if (!pod.gpu_spec.empty() && (pod.gpu_spec.front() == '|' || pod.gpu_spec.back() == '|' ||
                                    pod.gpu_spec.find("||") != std::string::npos)) {
        csv.Fail("gpu_spec \"" + pod.gpu_spec + "\" names an empty GPU model");
      }
      pod.qos = std::string(csv.field(6));
      if (pod.qos != "LS" && pod.qos != "BE" && pod.qos != "Burstable" && pod.qos != "Guaranteed") {
        csv.Fail("unknown qos \"" + pod.qos + "\"");
      }
      pod.phase = std::string(csv.field(7));
      if (pod.phase != "Running" && pod.phase != "Succeeded" && pod.phase != "Failed" &&
          pod.phase != "Pending") {
        csv.Fail("unknown pod_phase \"" + pod.phase + "\"");
      }
      pod.creation_time = OptionalTime(csv, 8, "creation_time");
      pod.deletion_time = OptionalTime(csv, 9, "deletion_time");
      pod.scheduled_time = OptionalTime(csv, 10, "scheduled_time");
      if (!pod.creation_time || !pod.deletion_time) {
        csv.Fail("creation_time and deletion_time are required");
      }
      if (*pod.deletion_time < *pod.creation_time) csv.Fail("deletion_time before creation_time");
      if (pod.scheduled_time &&
          (*pod.scheduled_time < *pod.creation_time || *pod.scheduled_time > *pod.deletion_time)) {
        csv.Fail("scheduled_time outside [creation_time, deletion_time]");
      }
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

Gpu2023Workload Gpu2023ToWorkload(const std::vector<Gpu2023Pod>& pods) {
  Gpu2023Workload out;
  bool timed = false;
  int64_t window_end = 0;
  for (const Gpu2023Pod& pod : pods) {
    if (!pod.deletion_time) continue;
    out.window_start = timed ? std::min(out.window_start, *pod.deletion_time) : *pod.deletion_time;
    window_end = std::max(window_end, *pod.deletion_time);
    timed = true;
  }
  out.window_length = window_end - out.window_start;
  auto rebase = [&](int64_t t) { return std::max<int64_t>(0, t - out.window_start); };

  for (const Gpu2023Pod& pod : pods) {
    if (pod.qos == "BE") {
      if (!pod.scheduled_time) {
        ++out.dropped_pending_batch;
        continue;
      }
      BatchJob job;
      job.name = pod.name;
      job.submit_time = rebase(*pod.creation_time);
      job.type = JobType::kOffline;
      job.function = "alibaba-gpu-2023/" + pod.name;
      job.task_requests = pod.requests;
      // A pod that started before the window only has its remaining run inside it.
      int64_t start = std::max(*pod.scheduled_time, out.window_start);
      job.duration_s = std::max<int64_t>(1, *pod.deletion_time - start);
      job.duration_estimate_s = job.duration_s;
      job.delay_tolerance_s = BatchDelayTolerance(job.duration_s);
      if (!pod.gpu_spec.empty()) ++out.unenforced_batch_gpu_specs;
      out.workload.jobs.push_back(std::move(job));
      continue;
    }
    Service service = ServiceOf(pod);
    if (timed) {
      service.start_time = rebase(*pod.creation_time);
      service.end_time = rebase(*pod.deletion_time);
    }
    out.workload.services.push_back(std::move(service));
  }
  std::stable_sort(
      out.workload.jobs.begin(), out.workload.jobs.end(),
      [](const BatchJob& a, const BatchJob& b) { return a.submit_time < b.submit_time; });
  return out;
}

Workload Gpu2023PackingWorkload(const std::vector<Gpu2023Pod>& pods, int64_t fleet_gpu,
                                uint64_t seed) {
  int64_t list_gpu = 0;
  for (const Gpu2023Pod& pod : pods) list_gpu += pod.requests[Dim::kGpu];
  // Whole passes over the list until the pods arrived request the target; a list without GPU
  // requests arrives once.
  const auto target = static_cast<int64_t>(kPackingInflation * static_cast<double>(fleet_gpu));
  std::vector<size_t> order(pods.size());
  std::vector<const Gpu2023Pod*> arrivals;
  Random rng(seed);
  int64_t arrived_gpu = 0;
  for (int pass = 0; !pods.empty() && pass < kPackingMaxPasses; ++pass) {
    std::iota(order.begin(), order.end(), 0);
    for (size_t i = order.size(); i > 1; --i) {
      std::swap(order[i - 1], order[static_cast<size_t>(rng.UniformInt(0, i - 1))]);
    }
    for (size_t i : order) {
      if (list_gpu > 0 && arrived_gpu >= target) break;
      arrivals.push_back(&pods[i]);
      arrived_gpu += pods[i].requests[Dim::kGpu];
    }
    if (list_gpu == 0 || arrived_gpu >= target) break;
  }
  Workload workload;
  workload.services.reserve(arrivals.size());
  std::map<std::string_view, int> copies;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    Service service = ServiceOf(*arrivals[i]);
    if (const int copy = copies[arrivals[i]->name]++; copy > 0) {
      service.name += "-" + std::to_string(copy);
      service.app = service.name;
    }
    service.start_time =
        static_cast<int64_t>(i) * kPackingArrivals / static_cast<int64_t>(arrivals.size());
    // Placement by requests is all this replay measures: every pod ranks the same, so none
    // preempts another, and uses nothing, so no node runs hot and nothing is evicted or moved for
    // pressure.
    service.priority = kServicePriority;
    service.usage.step_seconds = kSecondsPerDay;
    for (std::vector<float>& values : service.usage.values) values.assign(1, 0.0f);
    workload.services.push_back(std::move(service));
  }
  return workload;
}

}  // namespace archimedes
