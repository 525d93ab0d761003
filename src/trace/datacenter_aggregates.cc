#include "trace/datacenter_aggregates.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <utility>
#include <vector>

#include "model/curve.h"
#include "model/limits.h"
#include "trace/csv_reader.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kBucket = 300;
constexpr int kBucketsPerDay = static_cast<int>(kSecondsPerDay / kBucket);
constexpr int64_t kSecondsPerWeek = 7 * kSecondsPerDay;
constexpr int kCpu = static_cast<int>(Dim::kCpu);
constexpr int kMemory = static_cast<int>(Dim::kMemory);
constexpr int kDisk = static_cast<int>(Dim::kDisk);
constexpr int kNetwork = static_cast<int>(Dim::kNetwork);

// The sub-folders `<prefix><N>` of `dir` with their number N, in increasing N, each with the one
// CSV file it holds.
std::vector<std::pair<int64_t, std::string>> NumberedFiles(const std::string& dir,
                                                           const std::string& prefix) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw TraceError(dir, 0, "not a directory");
  std::vector<std::pair<int64_t, std::string>> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_directory() || !name.starts_with(prefix)) continue;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(name.data() + prefix.size(), name.data() + name.size(), n);
    if (ec != std::errc() || end != name.data() + name.size() || n < 1) continue;
    std::vector<std::string> csvs;
    for (const auto& file : fs::directory_iterator(entry.path())) {
      if (file.is_regular_file() && file.path().extension() == ".csv") {
        csvs.push_back(file.path().string());
      }
    }
    if (csvs.size() != 1) {
      throw TraceError(entry.path().string(), 0, "expected exactly one .csv file");
    }
    files.emplace_back(n, csvs.front());
  }
  if (files.empty()) throw TraceError(dir, 0, "no " + prefix + "<N> folders");
  std::sort(files.begin(), files.end());
  return files;
}

UsageSeries NewSeries(const std::string& id) {
  UsageSeries s;
  s.id = id;
  s.app = id;
  s.normalized = true;
  return s;
}

void Append(const CsvReader& csv, UsageSeries& s, int64_t time) {
  if (!s.times.empty() && time <= s.times.back()) csv.Fail("time not after the previous row's");
  s.times.push_back(time);
}

float Fraction(const CsvReader& csv, int i, std::string_view column) {
  return static_cast<float>(csv.Double(i, column, 0, 100) / 100);
}

// A usage in the trace's own unit: non-negative and, as canonical units would be, within
// kMaxResourceAmount.
float NonNegative(const CsvReader& csv, int i, std::string_view column) {
  return static_cast<float>(csv.Double(i, column, 0, static_cast<double>(kMaxResourceAmount)));
}

}  // namespace

UsageSeries ReadAlibaba2018Aggregate(const std::string& dir) {
  UsageSeries s = NewSeries("alibaba2018");
  for (int d : {kCpu, kMemory, kDisk, kNetwork}) s.limit[d] = 1.0;
  for (const auto& [day, path] : NumberedFiles(dir, "day_")) {
    CsvReader csv(path);
    csv.ExpectHeader(
        {"cpu_util_percent", "mem_util_percent", "net_in", "net_out", "disk_io_percent"});
    for (int64_t row = 0; csv.Next(); ++row) {
      csv.ExpectFields(5);
      float cpu = Fraction(csv, 0, "cpu_util_percent");
      float memory = Fraction(csv, 1, "mem_util_percent");
      float network = std::max(Fraction(csv, 2, "net_in"), Fraction(csv, 3, "net_out"));
      float disk = Fraction(csv, 4, "disk_io_percent");
      if (row >= kBucketsPerDay) continue;  // a day holds 288 buckets; day 1 lists one more
      Append(csv, s, (day - 1) * kSecondsPerDay + row * kBucket);
      s.values[kCpu].push_back(cpu);
      s.values[kMemory].push_back(memory);
      s.values[kNetwork].push_back(network);
      s.values[kDisk].push_back(disk);
    }
  }
  return s;
}

UsageSeries ReadGoogle2019Aggregate(const std::string& dir) {
  UsageSeries s = NewSeries("google2019");
  for (const auto& [week, path] : NumberedFiles(dir, "week")) {
    CsvReader csv(path);
    csv.ExpectHeader({"avg_cpu", "avg_mem", "avg_assigned_mem", "avg_cycles_per_instruction"});
    for (int64_t row = 0; csv.Next(); ++row) {
      csv.ExpectFields(4);
      float cpu = NonNegative(csv, 0, "avg_cpu");
      float memory = NonNegative(csv, 1, "avg_mem");
      NonNegative(csv, 2, "avg_assigned_mem");
      NonNegative(csv, 3, "avg_cycles_per_instruction");
      Append(csv, s, (week - 1) * kSecondsPerWeek + row * kBucket);
      s.values[kCpu].push_back(cpu);
      s.values[kMemory].push_back(memory);
    }
  }
  return s;
}

UsageSeries ReadAzure2019Aggregate(const std::string& dir) {
  UsageSeries s = NewSeries("azure2019");
  for (const auto& [week, path] : NumberedFiles(dir, "week")) {
    // Microsoft publishes these files without a line end after the last row, so a file cut inside
    // its last value cannot be told from a whole one.
    CsvReader csv(path, CsvReader::LastLineEnd::kOptional);
    csv.ExpectHeader({"timestamp", "cpu_usage", "assigned_mem"});
    while (csv.Next()) {
      csv.ExpectFields(3);
      int64_t time = csv.Int(0, "timestamp");
      if (time < 0) csv.Fail("column timestamp is negative");
      float cpu = NonNegative(csv, 1, "cpu_usage");
      float memory = NonNegative(csv, 2, "assigned_mem");
      Append(csv, s, time);
      s.values[kCpu].push_back(cpu);
      s.values[kMemory].push_back(memory);
    }
  }
  for (int d : {kCpu, kMemory}) {
    if (!s.values[d].empty()) {
      s.limit[d] = *std::max_element(s.values[d].begin(), s.values[d].end());
    }
  }
  return s;
}

}  // namespace archimedes
