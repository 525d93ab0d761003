#include "trace/usage_trace.h"

#include <algorithm>
#include <filesystem>

#include "trace/alibaba_2018.h"
#include "trace/datacenter_aggregates.h"
#include "trace/google_2019.h"
#include "trace/trace_error.h"

namespace archimedes {

void ReadUsageTrace(const std::string& spec,
                    const std::function<void(const std::vector<UsageSeries>&)>& consume) {
  namespace fs = std::filesystem;
  std::string kind, path = spec;
  if (size_t colon = spec.find(':'); colon != std::string::npos && !fs::exists(spec)) {
    kind = spec.substr(0, colon);
    path = spec.substr(colon + 1);
  }
  if (kind.empty()) {
    if (fs::is_regular_file(path) && fs::path(path).filename() == "machine_usage.csv") {
      kind = "alibaba2018";
    } else if (fs::is_directory(path) && fs::exists(fs::path(path) / "machine_usage.csv")) {
      kind = "alibaba2018";
      path = (fs::path(path) / "machine_usage.csv").string();
    } else if (fs::is_directory(fs::path(path) / "azure_v2")) {
      kind = "aggregates";
    } else if (fs::is_directory(path)) {
      kind = "google2019";
    }
  }
  if (kind == "aggregates") {
    const fs::path dir(path);
    consume({ReadAlibaba2018Aggregate((dir / "alibaba2018").string()),
             ReadGoogle2019Aggregate((dir / "google2019").string()),
             ReadAzure2019Aggregate((dir / "azure_v2").string())});
    return;
  }
  if (kind == "alibaba2018") {
    consume(ReadAlibaba2018Usage(path));
    return;
  }
  if (kind == "google2019") {
    if (!fs::is_directory(path)) throw TraceError(path, 0, "google2019 needs a folder");
    std::vector<std::string> jobs;
    for (const fs::directory_entry& e : fs::directory_iterator(path)) {
      if (e.is_directory()) jobs.push_back(e.path().string());
    }
    std::sort(jobs.begin(), jobs.end());
    if (jobs.empty()) jobs.push_back(path);
    for (const std::string& job : jobs) consume(ReadGoogle2019Job(job));
    return;
  }
  throw TraceError(spec, 0,
                   "unknown usage trace; use google2019:DIR (a job folder of "
                   "google-v2019-instance-usage, or the folder of jobs) or "
                   "alibaba2018:FILE (alibaba-v2018/machine_usage.csv) or aggregates:DIR "
                   "(datacenter-aggregates)");
}

}  // namespace archimedes
