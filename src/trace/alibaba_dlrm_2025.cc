#include "trace/alibaba_dlrm_2025.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "model/limits.h"
#include "trace/csv_reader.h"

namespace archimedes {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int kServicePriority = 100;

const std::vector<std::string> kColumns = {"instance_sn",   "role",
                                           "app_name",      "cpu_request",
                                           "cpu_limit",     "gpu_request",
                                           "gpu_limit",     "rdma_request",
                                           "rdma_limit",    "memory_request",
                                           "memory_limit",  "disk_request",
                                           "disk_limit",    "max_instance_per_node",
                                           "creation_time", "scheduled_time",
                                           "deletion_time"};

// A request in the trace's unit (cores, GPUs, GiB, percent), non-negative and, in canonical units,
// within kMaxResourceAmount.
double Request(const CsvReader& csv, int i, std::string_view column, double canonical_per_unit) {
  return csv.Double(i, column, 0, static_cast<double>(kMaxResourceAmount) / canonical_per_unit);
}

std::optional<int64_t> OptionalTime(const CsvReader& csv, int i, std::string_view column) {
  std::optional<double> v =
      csv.OptionalDouble(i, column, 0, static_cast<double>(kMaxDurationSeconds));
  if (!v) return std::nullopt;
  return std::llround(*v);
}

}  // namespace

std::vector<DlrmInstance> ReadAlibabaDlrm2025(const std::string& path) {
  CsvReader csv(path);
  if (!csv.Next()) csv.Fail("empty file, expected a header line");
  const int columns = static_cast<int>(kColumns.size());
  csv.ExpectFields(columns);
  for (int i = 0; i < columns; ++i) {
    if (csv.field(i) != kColumns[i]) {
      csv.Fail("header column " + std::to_string(i + 1) + " is \"" + std::string(csv.field(i)) +
               "\", expected \"" + kColumns[i] + "\"");
    }
  }
  std::vector<DlrmInstance> instances;
  std::map<std::string, int64_t> line_of;  // instance_sn → its line
  while (csv.Next()) {
    csv.ExpectFields(columns);
    DlrmInstance in;
    in.id = std::string(csv.field(0));
    in.role = std::string(csv.field(1));
    in.app = std::string(csv.field(2));
    if (in.id.empty() || in.app.empty()) csv.Fail("instance_sn and app_name are required");
    if (auto [it, added] = line_of.emplace(in.id, csv.line()); !added) {
      csv.Fail("instance \"" + in.id + "\" appears twice (first on line " +
               std::to_string(it->second) + ")");
    }
    if (in.role != "CN" && in.role != "HN") csv.Fail("unknown role \"" + in.role + "\"");
    const double cpu = Request(csv, 3, "cpu_request", 1000);
    Request(csv, 4, "cpu_limit", 1000);
    const double gpu = Request(csv, 5, "gpu_request", 1000);
    Request(csv, 6, "gpu_limit", 1000);
    const double rdma = csv.Double(7, "rdma_request", 0, 100);
    csv.Double(8, "rdma_limit", 0, 100);
    const double memory = Request(csv, 9, "memory_request", kGiB);
    Request(csv, 10, "memory_limit", kGiB);
    const double disk = Request(csv, 11, "disk_request", kGiB);
    Request(csv, 12, "disk_limit", kGiB);
    const int64_t max_per_node = csv.Int(13, "max_instance_per_node", -1, kMaxReplicas);
    if (max_per_node == 0) csv.Fail("max_instance_per_node must be -1 or > 0");
    in.requests = Resources::Of(std::llround(cpu * 1000), std::llround(memory * kGiB), 0, 0,
                                std::llround(gpu * 1000));
    in.disk_request_bytes = std::llround(disk * kGiB);
    in.rdma_percent = static_cast<int>(std::lround(rdma));
    in.max_per_node = max_per_node < 0 ? 0 : static_cast<int>(max_per_node);
    in.creation_time = OptionalTime(csv, 14, "creation_time");
    in.scheduled_time = OptionalTime(csv, 15, "scheduled_time");
    in.deletion_time = OptionalTime(csv, 16, "deletion_time");
    if (in.creation_time && in.deletion_time && *in.deletion_time < *in.creation_time) {
      csv.Fail("deletion_time before creation_time");
    }
    instances.push_back(std::move(in));
  }
  return instances;
}

std::vector<DlrmGroup> GroupDlrmInstances(const std::vector<DlrmInstance>& instances) {
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<std::vector<const DlrmInstance*>> members;
  for (const DlrmInstance& in : instances) {
    auto [it, added] = index.try_emplace({in.app, in.role}, members.size());
    if (added) members.emplace_back();
    members[it->second].push_back(&in);
  }
  std::vector<DlrmGroup> groups;
  groups.reserve(members.size());
  for (const std::vector<const DlrmInstance*>& group : members) {
    DlrmGroup g;
    Service& s = g.service;
    s.name = group.front()->app + "-" + group.front()->role;
    s.app = s.name;
    s.qos = QosClass::kGuaranteed;
    s.priority = kServicePriority;
    s.start_time = kForever;
    s.end_time = 0;
    // Alive-count changes: +1 at creation, -1 at deletion; a missing time is outside the window.
    std::map<int64_t, int> delta;
    for (const DlrmInstance* in : group) {
      s.requests = Max(s.requests, in->requests);
      if (in->max_per_node > 0) {
        s.max_per_node =
            s.max_per_node == 0 ? in->max_per_node : std::min(s.max_per_node, in->max_per_node);
      }
      int64_t created = in->creation_time.value_or(0);
      int64_t deleted = in->deletion_time.value_or(kForever);
      s.start_time = std::min(s.start_time, created);
      s.end_time = std::max(s.end_time, deleted);
      ++delta[created];
      if (deleted != kForever) --delta[deleted];
    }
    s.limits = s.requests;
    g.instances = static_cast<int>(group.size());
    int alive = 0;
    for (const auto& [time, change] : delta) {
      alive += change;
      g.peak_replicas = std::max(g.peak_replicas, alive);
      if (time == s.start_time) {
        s.replicas = alive;
      } else if (time < s.end_time && change != 0) {
        g.scale_events.push_back(ScaleEvent{time, s.name, alive});
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace archimedes
