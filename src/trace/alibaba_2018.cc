#include "trace/alibaba_2018.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "trace/csv_reader.h"

namespace archimedes {
namespace {

constexpr int kCpu = static_cast<int>(Dim::kCpu);
constexpr int kMemory = static_cast<int>(Dim::kMemory);
constexpr int kDisk = static_cast<int>(Dim::kDisk);
constexpr int kNetwork = static_cast<int>(Dim::kNetwork);

double Percent(const CsvReader& csv, int i, std::string_view column) {
  return csv.Double(i, column, 0, 100);
}

}  // namespace

std::vector<Node> ReadAlibaba2018Machines(const std::string& machine_meta_path) {
  CsvReader csv(machine_meta_path);
  std::map<std::string, size_t> index;
  std::vector<Node> nodes;
  std::vector<int64_t> latest;
  while (csv.Next()) {
    csv.ExpectFields(7);
    std::string id(csv.field(0));
    if (id.empty()) csv.Fail("column machine_id is empty");
    int64_t time = csv.Int(1, "time_stamp");
    std::optional<int64_t> fd1 = csv.OptionalInt(2, "failure_domain_1");
    std::optional<int64_t> fd2 = csv.OptionalInt(3, "failure_domain_2");
    int64_t cpus = csv.Int(4, "cpu_num");
    double memory = csv.Double(5, "mem_size");
    std::string status(csv.field(6));
    if (cpus != kAlibaba2018CoresPerMachine) {
      csv.Fail("expected " + std::to_string(kAlibaba2018CoresPerMachine) + " cores, found " +
               std::to_string(cpus));
    }
    if (memory <= 0 || memory > 100) csv.Fail("normalised mem_size outside (0, 100]");
    if (status.empty()) csv.Fail("column status is empty");
    auto [it, added] = index.try_emplace(id, nodes.size());
    if (added) {
      nodes.emplace_back();
      latest.push_back(time);
    } else if (time < latest[it->second]) {
      continue;  // an older status event than one already seen
    }
    Node& node = nodes[it->second];
    latest[it->second] = time;
    node.name = id;
    node.capacity = Resources::Of(
        cpus * 1000,
        std::llround(memory / 100 * static_cast<double>(kAlibaba2018MachineMemoryBytes)));
    node.allocatable = node.capacity;
    // A few status rows leave a failure domain empty; the machine keeps the one it had.
    if (fd1) node.pod = "fd1-" + std::to_string(*fd1);
    if (fd2) node.zone = "fd2-" + std::to_string(*fd2);
    node.labels["status"] = status;
    node.condition = status == "USING" ? NodeCondition::kReady : NodeCondition::kNotReady;
  }
  if (nodes.empty()) throw TraceError(machine_meta_path, 0, "no machines");
  for (Node& node : nodes) {
    if (node.pod.empty()) node.pod = "fd1-unknown";
    if (node.zone.empty()) node.zone = "fd2-unknown";
  }
  return nodes;
}

std::vector<UsageSeries> ReadAlibaba2018Usage(const std::string& machine_usage_path) {
  CsvReader csv(machine_usage_path);
  std::map<std::string, size_t> index;
  std::vector<UsageSeries> series;
  // Per series: rows whose disk reading was invalid and still wait for a first valid one.
  std::vector<size_t> leading_invalid_disk;
  while (csv.Next()) {
    csv.ExpectFields(9);
    std::string id(csv.field(0));
    if (id.empty()) csv.Fail("column machine_id is empty");
    int64_t time = csv.Int(1, "time_stamp");
    double cpu = Percent(csv, 2, "cpu_util_percent");
    double memory = Percent(csv, 3, "mem_util_percent");
    csv.OptionalDouble(4, "mem_gps");
    csv.OptionalDouble(5, "mkpi");
    double net_in = Percent(csv, 6, "net_in");
    double net_out = Percent(csv, 7, "net_out");
    double disk = csv.Double(8, "disk_io_percent");
    bool disk_valid = disk >= 0 && disk <= 100;
    if (!disk_valid && disk != -1 && disk != 101) csv.Fail("disk_io_percent outside 0-100");

    auto [it, added] = index.try_emplace(id, series.size());
    if (added) {
      UsageSeries s;
      s.id = id;
      s.app = id;
      s.normalized = true;
      for (Dim d : {Dim::kCpu, Dim::kMemory, Dim::kDisk, Dim::kNetwork}) {
        s.limit[static_cast<int>(d)] = 1.0;
        s.largest_node[static_cast<int>(d)] = 1.0;
      }
      series.push_back(std::move(s));
      leading_invalid_disk.push_back(0);
    }
    UsageSeries& s = series[it->second];
    if (!s.times.empty() && time <= s.times.back()) {
      csv.Fail("time_stamp " + std::to_string(time) + " not after the machine's previous row");
    }
    s.times.push_back(time);
    s.values[kCpu].push_back(static_cast<float>(cpu / 100));
    s.values[kMemory].push_back(static_cast<float>(memory / 100));
    s.values[kNetwork].push_back(static_cast<float>(std::max(net_in, net_out) / 100));
    std::vector<float>& disks = s.values[kDisk];
    size_t& pending = leading_invalid_disk[it->second];
    if (disk_valid) {
      float value = static_cast<float>(disk / 100);
      // Rows before the machine's first valid reading take that reading.
      std::fill(disks.end() - static_cast<std::ptrdiff_t>(pending), disks.end(), value);
      pending = 0;
      disks.push_back(value);
    } else if (disks.size() > pending) {
      disks.push_back(disks.back());
    } else {
      disks.push_back(0.0f);
      ++pending;
    }
  }
  for (size_t i = 0; i < series.size(); ++i) {
    // A machine without one valid disk reading has no disk series.
    if (leading_invalid_disk[i] == series[i].times.size()) series[i].values[kDisk].clear();
  }
  return series;
}

}  // namespace archimedes
