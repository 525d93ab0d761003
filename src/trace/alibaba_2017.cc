#include "trace/alibaba_2017.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/limits.h"
#include "trace/alibaba_gpu_2023.h"
#include "trace/csv_reader.h"

namespace archimedes {
namespace {

constexpr int64_t kMinTolerance = int64_t{5} * 60;
constexpr int64_t kMaxTolerance = int64_t{4} * 3600;
constexpr int64_t kMilliPerTraceCpuUnit = 10;  // 100 = one core = 1000 millicores

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

int64_t MemoryBytes(double normalised) {
  return std::llround(normalised * static_cast<double>(kAlibaba2017MemoryBytesPerUnit));
}

}  // namespace

int64_t BatchDelayTolerance(int64_t duration_s) {
  return std::clamp(10 * duration_s, kMinTolerance, kMaxTolerance);
}

Alibaba2017Fleet ReadAlibaba2017ServerEvents(const std::string& path) {
  CsvReader csv(path);
  std::map<int64_t, Node> machines;
  std::set<int64_t> failed;
  Alibaba2017Fleet fleet;
  while (csv.Next()) {
    csv.ExpectFields(7);
    const int64_t time = csv.Int(0, "timestamp", 0, kMaxDurationSeconds);
    int64_t machine = csv.Int(1, "machine_id");
    std::string_view type = csv.field(2);
    std::string name = "m" + std::to_string(machine);
    if (type == "add") {
      int64_t cpus = csv.Int(4, "cpus");
      double memory = csv.Double(5, "memory");
      csv.Double(6, "disk");
      if (cpus != kAlibaba2017CoresPerMachine) {
        csv.Fail("expected " + std::to_string(kAlibaba2017CoresPerMachine) + " cpus, found " +
                 std::to_string(cpus));
      }
      if (memory <= 0 || memory > 1) csv.Fail("normalised memory outside (0, 1]");
      if (time != 0) csv.Fail("add event after time 0 (only the initial fleet is supported)");
      Node node;
      node.name = name;
      node.capacity = Resources::Of(cpus * 1000, MemoryBytes(memory));
      node.allocatable = node.capacity;
      if (!machines.emplace(machine, std::move(node)).second) csv.Fail("machine added twice");
    } else if (type == "softerror" || type == "harderror") {
      ++fleet.soft_errors;
      if (failed.insert(machine).second) {
        NodeEvent event;
        event.time = time;
        event.kind = NodeEvent::Kind::kFail;
        event.node = name;
        fleet.events.push_back(std::move(event));
      }
    } else if (type != "remove") {
      csv.Fail("unknown event_type \"" + std::string(type) + "\"");
    }
  }
  if (machines.empty()) throw TraceError(path, 0, "no add events");
  for (auto& [id, node] : machines) fleet.nodes.push_back(std::move(node));
  for (int64_t machine : failed) {
    if (!machines.contains(machine)) {
      throw TraceError(
          path, 0, "error event for machine " + std::to_string(machine) + " that was never added");
    }
  }
  std::stable_sort(fleet.events.begin(), fleet.events.end(),
                   [](const NodeEvent& a, const NodeEvent& b) { return a.time < b.time; });
  AssignRackFailureDomains(fleet.nodes);
  return fleet;
}

Alibaba2017Batch ReadAlibaba2017BatchTasks(const std::string& path) {
  CsvReader csv(path);
  if (!csv.Next()) csv.Fail("empty file, expected a header line");
  csv.ExpectFields(8);
  if (Trim(csv.field(0)) != "task_create_time") {
    csv.Fail("header does not start with task_create_time");
  }
  Alibaba2017Batch batch;
  while (csv.Next()) {
    csv.ExpectFields(8);
    ++batch.rows;
    // Times are seconds from the trace's start; tasks created before it have negative ones.
    const int64_t create =
        csv.Int(0, "task_create_time", -kMaxDurationSeconds, kMaxDurationSeconds);
    const int64_t end = csv.Int(1, "task_end_time", -kMaxDurationSeconds, kMaxDurationSeconds);
    int64_t job_id = csv.Int(2, "job_id");
    int64_t task_id = csv.Int(3, "task_id");
    std::string_view status = Trim(csv.field(5));
    // cpus_per_instance is in hundredths of a core; a request beyond kMaxResourceAmount is a
    // corrupt row (it would not even fit in int64 once in millicores).
    const std::optional<double> cpu = csv.OptionalDouble(
        6, "cpus_per_instance", 0,
        static_cast<double>(kMaxResourceAmount) / static_cast<double>(kMilliPerTraceCpuUnit));
    const std::optional<double> memory = csv.OptionalDouble(7, "memory_per_instance", 0, 1);
    const int64_t instances = csv.Int(4, "number_of_instances", 1, kMaxTasks);
    if (status != "Terminated" && status != "Failed" && status != "Running" &&
        status != "Waiting") {
      csv.Fail("unknown status \"" + std::string(status) + "\"");
    }
    if (status == "Waiting") {
      ++batch.skipped_waiting;
      continue;
    }
    if (!cpu || !memory) {
      ++batch.skipped_no_plan;
      continue;
    }
    int64_t submit = std::max<int64_t>(create, 0);
    if (end <= submit) {
      ++batch.skipped_no_end;
      continue;
    }
    Alibaba2017Task task;
    task.job_id = job_id;
    task.task_id = task_id;
    BatchJob& job = task.job;
    job.name = "j" + std::to_string(job_id) + "-t" + std::to_string(task_id);
    job.function = "alibaba-2017/j" + std::to_string(job_id);
    job.type = JobType::kOffline;
    job.submit_time = submit;
    job.tasks = static_cast<int>(instances);
    job.task_requests =
        Resources::Of(std::llround(*cpu * kMilliPerTraceCpuUnit), MemoryBytes(*memory));
    job.duration_s = end - submit;
    job.duration_estimate_s = job.duration_s;
    job.delay_tolerance_s = BatchDelayTolerance(job.duration_s);
    batch.tasks.push_back(std::move(task));
  }
  std::stable_sort(batch.tasks.begin(), batch.tasks.end(),
                   [](const Alibaba2017Task& a, const Alibaba2017Task& b) {
                     return a.job.submit_time < b.job.submit_time;
                   });
  return batch;
}

}  // namespace archimedes
