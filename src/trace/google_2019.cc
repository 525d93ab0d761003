#include "trace/google_2019.h"

#include <algorithm>
#include <filesystem>

#include "model/limits.h"
#include "trace/csv_reader.h"

namespace archimedes {
namespace {

constexpr int kColumns = 40;
constexpr int kTime = 0;
constexpr int kUniqueId = 1;
constexpr int kCollectionId = 2;
constexpr int kAvgCpu = 10;
constexpr int kAvgMemory = 11;
constexpr int kMaxCpu = 12;
constexpr int kMaxMemory = 13;
constexpr int kMemoryLimit = 36;
constexpr int kCpuLimit = 37;
constexpr int64_t kMicrosPerSecond = 1'000'000;

// A usage or a limit, normalised to the largest machine: non-negative and, as canonical units
// would be, within kMaxResourceAmount.
double NonNegative(const CsvReader& csv, int i, std::string_view column) {
  return csv.Double(i, column, 0, static_cast<double>(kMaxResourceAmount));
}

}  // namespace

UsageSeries ReadGoogle2019Replica(const std::string& path) {
  CsvReader csv(path);
  if (!csv.Next()) csv.Fail("empty file, expected a header line");
  csv.ExpectFields(kColumns);
  const std::pair<int, std::string_view> expected[] = {{kTime, "time"},
                                                       {kUniqueId, "unique_id"},
                                                       {kCollectionId, "collection_id"},
                                                       {kAvgCpu, "avg_cpu_usage"},
                                                       {kAvgMemory, "avg_memory_usage"},
                                                       {kMaxCpu, "max_cpu_usage"},
                                                       {kMaxMemory, "max_memory_usage"},
                                                       {kMemoryLimit, "memory_limit"},
                                                       {kCpuLimit, "cpu_limit"}};
  for (const auto& [i, name] : expected) {
    if (csv.field(i) != name) {
      csv.Fail("header column " + std::to_string(i + 1) + " is \"" + std::string(csv.field(i)) +
               "\", expected \"" + std::string(name) + "\"");
    }
  }
  constexpr int cpu = static_cast<int>(Dim::kCpu);
  constexpr int memory = static_cast<int>(Dim::kMemory);
  UsageSeries series;
  series.normalized = true;
  // The trace's units are shares of its largest machine.
  series.largest_node[cpu] = series.largest_node[memory] = 1.0;
  while (csv.Next()) {
    csv.ExpectFields(kColumns);
    const int64_t micros = csv.Int(kTime, "time", 0, CsvReader::kMaxInt);
    if (series.times.empty()) {
      series.id = std::string(csv.field(kUniqueId));
      series.app = std::string(csv.field(kCollectionId));
      if (series.id.empty() || series.app.empty()) csv.Fail("unique_id or collection_id empty");
    } else if (csv.field(kUniqueId) != series.id) {
      csv.Fail("unique_id \"" + std::string(csv.field(kUniqueId)) + "\" differs from \"" +
               series.id + "\" of the file's first row");
    }
    int64_t time = micros / kMicrosPerSecond;
    if (!series.times.empty() && time <= series.times.back()) {
      // The extracts hold one second row for an already seen window start (a sliver of a window
      // where the replica moved); the first row is the window's.
      if (time == series.times.back()) continue;
      csv.Fail("time not after the previous row's");
    }
    // Every remaining column is numeric; a truncated or corrupted row shows up here.
    for (int i = 2; i < kColumns; ++i) csv.Double(i, "#" + std::to_string(i + 1));
    series.times.push_back(time);
    series.values[cpu].push_back(static_cast<float>(NonNegative(csv, kAvgCpu, "avg_cpu_usage")));
    series.values[memory].push_back(
        static_cast<float>(NonNegative(csv, kAvgMemory, "avg_memory_usage")));
    // A window's maximum is at least its average (the extracts round them separately).
    series.window_max[cpu].push_back(std::max(
        series.values[cpu].back(), static_cast<float>(NonNegative(csv, kMaxCpu, "max_cpu_usage"))));
    series.window_max[memory].push_back(
        std::max(series.values[memory].back(),
                 static_cast<float>(NonNegative(csv, kMaxMemory, "max_memory_usage"))));
    series.limit[cpu] = std::max(series.limit[cpu], NonNegative(csv, kCpuLimit, "cpu_limit"));
    series.limit[memory] =
        std::max(series.limit[memory], NonNegative(csv, kMemoryLimit, "memory_limit"));
  }
  if (series.times.empty()) throw TraceError(path, 0, "no usage rows");
  return series;
}

std::vector<UsageSeries> ReadGoogle2019Job(const std::string& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) throw TraceError(dir, 0, "not a directory");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".csv") {
      files.push_back(entry.path().string());
    }
  }
  if (files.empty()) throw TraceError(dir, 0, "no .csv replica files");
  std::sort(files.begin(), files.end());
  std::vector<UsageSeries> series;
  series.reserve(files.size());
  for (const std::string& file : files) series.push_back(ReadGoogle2019Replica(file));
  return series;
}

}  // namespace archimedes
