#include "trace/real_scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "model/quantile.h"
#include "model/random.h"
#include "trace/alibaba_2017.h"
#include "trace/alibaba_2018.h"
#include "trace/alibaba_dlrm_2025.h"
#include "trace/alibaba_gpu_2023.h"
#include "trace/google_2019.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

constexpr int64_t kStep = 300;
constexpr int kBinsPerDay = static_cast<int>(kSecondsPerDay / kStep);
constexpr int kMaxPatternDays = 7;

uint64_t Hash(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return SplitMix64(SplitMix64(SplitMix64(seed) ^ a) ^ b);
}

// Fisher-Yates with our own generator, so the order is the same on every standard library.
template <typename T>
void Shuffle(std::vector<T>& v, uint64_t seed) {
  for (size_t i = v.size(); i > 1; --i) {
    size_t j = Hash(seed, i) % i;
    std::swap(v[i - 1], v[j]);
  }
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// The window's bins for one dimension: mean ratio per bin, gaps filled as ShapeUsage documents.
std::vector<float> BinnedRatios(const UsageSeries& series, int dim, int64_t day0, int total_days,
                                int first_day, int days) {
  const int total_bins = total_days * kBinsPerDay;
  std::vector<double> sum(total_bins, 0.0);
  std::vector<int> count(total_bins, 0);
  const double limit = series.limit[dim];
  for (size_t i = 0; i < series.times.size(); ++i) {
    int64_t bin = (series.times[i] - day0 * kSecondsPerDay) / kStep;
    sum[bin] += series.values[dim][i] / limit;
    ++count[bin];
  }
  std::vector<double> tod_sum(kBinsPerDay, 0.0);
  std::vector<int> tod_count(kBinsPerDay, 0);
  for (int b = 0; b < total_bins; ++b) {
    if (count[b] == 0) continue;
    tod_sum[b % kBinsPerDay] += sum[b] / count[b];
    ++tod_count[b % kBinsPerDay];
  }
  const int n = days * kBinsPerDay;
  std::vector<float> out(n, 0.0f);
  std::vector<bool> filled(n, false);
  for (int j = 0; j < n; ++j) {
    int b = first_day * kBinsPerDay + j;
    if (count[b] > 0) {
      out[j] = static_cast<float>(sum[b] / count[b]);
    } else if (tod_count[j % kBinsPerDay] > 0) {
      out[j] = static_cast<float>(tod_sum[j % kBinsPerDay] / tod_count[j % kBinsPerDay]);
    } else {
      continue;
    }
    filled[j] = true;
  }
  std::vector<int> present;
  for (int j = 0; j < n; ++j) {
    if (filled[j]) present.push_back(j);
  }
  if (present.empty()) return out;  // unreachable: the window holds at least one sample
  for (size_t k = 0; k < present.size(); ++k) {
    int a = present[k];
    int b = present[(k + 1) % present.size()];
    int gap = (b - a + n) % n;
    if (gap == 0) gap = n;
    for (int step = 1; step < gap; ++step) {
      double w = static_cast<double>(step) / gap;
      out[(a + step) % n] = static_cast<float>((1 - w) * out[a] + w * out[b]);
    }
  }
  return out;
}

// Hardware kind of a node: its capacity and GPU model.
using HardwareKind = std::tuple<std::array<int64_t, kNumDims>, std::string>;

HardwareKind KindOf(const Node& node) {
  auto model = node.labels.find("gpu-model");
  return {node.capacity.amount, model == node.labels.end() ? "" : model->second};
}

std::vector<Node> SampleFleet(const std::vector<Node>& all, int count, uint64_t seed) {
  std::map<HardwareKind, std::vector<size_t>> kinds;
  for (size_t i = 0; i < all.size(); ++i) kinds[KindOf(all[i])].push_back(i);
  // Largest-remainder quotas: floor of the exact share, then one more for the largest remainders.
  struct Quota {
    std::vector<size_t>* members;
    int64_t take;
    double remainder;
  };
  std::vector<Quota> quotas;
  int64_t assigned = 0;
  for (auto& [kind, members] : kinds) {
    double exact = static_cast<double>(count) * members.size() / all.size();
    int64_t take = static_cast<int64_t>(std::floor(exact));
    quotas.push_back({&members, take, exact - take});
    assigned += take;
  }
  std::vector<size_t> by_remainder(quotas.size());
  std::iota(by_remainder.begin(), by_remainder.end(), 0);
  std::stable_sort(by_remainder.begin(), by_remainder.end(),
                   [&](size_t a, size_t b) { return quotas[a].remainder > quotas[b].remainder; });
  for (size_t i = 0; assigned < count; ++i, ++assigned) ++quotas[by_remainder[i]].take;

  std::vector<std::pair<size_t, int64_t>> picked;  // (index in `all`, copy number)
  uint64_t kind_seed = Hash(seed, 0x666c656574);
  for (Quota& q : quotas) {
    std::vector<size_t> order = *q.members;
    Shuffle(order, kind_seed = SplitMix64(kind_seed));
    for (int64_t i = 0; i < q.take; ++i) {
      picked.emplace_back(order[i % order.size()], i / static_cast<int64_t>(order.size()));
    }
  }
  std::sort(picked.begin(), picked.end());
  std::vector<Node> nodes;
  nodes.reserve(picked.size());
  for (auto [index, copy] : picked) {
    Node node = all[index];
    if (copy > 0) node.name += "-c" + std::to_string(copy);
    nodes.push_back(std::move(node));
  }
  AssignRackFailureDomains(nodes);
  return nodes;
}

std::vector<UsageSeries> UsageShapes(const std::string& traces_dir, RealScenarioStats& stats) {
  namespace fs = std::filesystem;
  std::vector<UsageSeries> pool;
  const fs::path google = fs::path(traces_dir) / "google-v2019-instance-usage";
  std::vector<std::string> jobs;
  if (fs::is_directory(google)) {
    for (const auto& entry : fs::directory_iterator(google)) {
      if (entry.is_directory()) jobs.push_back(entry.path().string());
    }
  }
  if (jobs.empty()) throw TraceError(google.string(), 0, "no Google 2019 job folders");
  std::sort(jobs.begin(), jobs.end());
  for (const std::string& job : jobs) {
    for (UsageSeries& s : ReadGoogle2019Job(job)) pool.push_back(std::move(s));
  }
  stats.google_shapes = static_cast<int>(pool.size());
  for (UsageSeries& s :
       ReadAlibaba2018Usage((fs::path(traces_dir) / "alibaba-v2018/machine_usage.csv").string())) {
    pool.push_back(std::move(s));
  }
  stats.alibaba_shapes = static_cast<int>(pool.size()) - stats.google_shapes;
  return pool;
}

}  // namespace

ShapedUsage ShapeUsage(const UsageSeries& series, const Resources& requests, int max_days) {
  if (series.times.empty()) throw std::invalid_argument("usage series " + series.id + " is empty");
  if (max_days < 1) throw std::invalid_argument("max_days must be at least 1");
  const int64_t day0 = FloorDiv(series.times.front(), kSecondsPerDay);
  const int total_days = static_cast<int>(FloorDiv(series.times.back(), kSecondsPerDay) - day0 + 1);
  const int days = std::min(total_days, max_days);
  // The `days` consecutive days with the most samples.
  std::vector<int> per_day(total_days, 0);
  for (int64_t t : series.times) ++per_day[FloorDiv(t, kSecondsPerDay) - day0];
  int first_day = 0;
  int best = -1;
  for (int d = 0; d + days <= total_days; ++d) {
    int covered = std::accumulate(per_day.begin() + d, per_day.begin() + d + days, 0);
    if (covered > best) {
      best = covered;
      first_day = d;
    }
  }
  ShapedUsage shaped;
  shaped.pattern.step_seconds = kStep;
  for (Dim dim : {Dim::kCpu, Dim::kMemory}) {
    const int d = static_cast<int>(dim);
    if (series.limit[d] <= 0 || series.values[d].size() != series.times.size()) continue;
    std::vector<float> ratios = BinnedRatios(series, d, day0, total_days, first_day, days);
    float p99 = Quantile(ratios, 0.99);
    double scale = static_cast<double>(requests[dim]);
    if (p99 > 1.0f) {
      scale /= p99;
      (dim == Dim::kCpu ? shaped.cpu_capped : shaped.memory_capped) = true;
    }
    for (float& r : ratios) r = static_cast<float>(r * scale);
    shaped.pattern.values[d] = std::move(ratios);
  }
  return shaped;
}

void AssignRealUsageShapes(Workload& workload, const std::string& traces_dir, uint64_t seed,
                           RealScenarioStats* stats) {
  RealScenarioStats local;
  RealScenarioStats& out = stats != nullptr ? *stats : local;
  std::vector<UsageSeries> shapes = UsageShapes(traces_dir, out);
  Shuffle(shapes, Hash(seed, 0x7368617065));
  size_t next = 0;
  for (Service& s : workload.services) {
    if (s.usage.samples() > 0) continue;
    ShapedUsage shaped = ShapeUsage(shapes[next++ % shapes.size()], s.requests, kMaxPatternDays);
    s.usage = std::move(shaped.pattern);
    out.cpu_capped += shaped.cpu_capped;
    out.memory_capped += shaped.memory_capped;
  }
}

Scenario BuildRealScenario(const RealScenarioOptions& options, RealScenarioStats* stats_out) {
  namespace fs = std::filesystem;
  if (options.nodes < 1 || options.nodes > kMaxRealNodes) {
    throw std::invalid_argument("real scenario: nodes must be in 1.." +
                                std::to_string(kMaxRealNodes));
  }
  if (options.days < 1 || options.days > kMaxRealDays) {
    throw std::invalid_argument("real scenario: days must be in 1.." +
                                std::to_string(kMaxRealDays));
  }
  if (!(options.service_cpu_share > 0 && options.service_cpu_share <= 1) ||
      !(options.service_memory_cap > 0 && options.service_memory_cap <= 1)) {
    throw std::invalid_argument("real scenario: service shares must be in (0, 1]");
  }
  const fs::path dir(options.traces_dir);
  RealScenarioStats stats;
  Scenario scenario;
  scenario.name = "real-" + std::to_string(options.nodes) + "n-" + std::to_string(options.days) +
                  "d-seed" + std::to_string(options.seed);
  scenario.duration_s = options.days * kSecondsPerDay;

  scenario.nodes = SampleFleet(
      ReadAlibabaGpu2023Nodes((dir / "alibaba-gpu-v2023/openb_node_list_all_node.csv").string()),
      options.nodes, options.seed);
  Resources fleet;
  for (const Node& node : scenario.nodes) fleet += node.allocatable;

  // Services: whole CN app groups, in a seeded order, while the request budget holds.
  std::vector<DlrmGroup> groups;
  for (DlrmGroup& g : GroupDlrmInstances(ReadAlibabaDlrm2025(
           (dir / "alibaba-gpu-v2025/disaggregated_DLRM_trace.csv").string()))) {
    if (!g.service.name.ends_with("-CN") || g.peak_replicas == 0) continue;
    bool fits = std::any_of(scenario.nodes.begin(), scenario.nodes.end(), [&](const Node& node) {
      return g.service.requests.FitsIn(node.allocatable);
    });
    if (fits) groups.push_back(std::move(g));
  }
  Shuffle(groups, Hash(options.seed, 0x7365727669636573));
  const double cpu_budget = options.service_cpu_share * static_cast<double>(fleet.cpu());
  const double memory_budget = options.service_memory_cap * static_cast<double>(fleet.memory());
  double cpu = 0;
  double memory = 0;
  for (int copy = 0;; ++copy) {
    bool added = false;
    for (const DlrmGroup& g : groups) {
      double group_cpu = static_cast<double>(g.service.requests.cpu()) * g.peak_replicas;
      double group_memory = static_cast<double>(g.service.requests.memory()) * g.peak_replicas;
      if (cpu + group_cpu > cpu_budget || memory + group_memory > memory_budget) continue;
      std::vector<Service>& services = scenario.workload.services;
      Service& s = services.emplace_back(g.service);
      if (copy > 0) {
        s.name += "-c" + std::to_string(copy);
        s.app = s.name;
      }
      s.replicas = g.peak_replicas;
      s.start_time = 0;
      s.end_time = kForever;
      if (options.places_every_replica && !options.places_every_replica(scenario.nodes, services)) {
        services.pop_back();
        ++stats.refused_groups;
        continue;
      }
      cpu += group_cpu;
      memory += group_memory;
      stats.replicas += g.peak_replicas;
      added = true;
    }
    if (!added) break;
  }
  stats.service_groups = static_cast<int>(scenario.workload.services.size());
  stats.requested_cpu_share = cpu / static_cast<double>(fleet.cpu());
  stats.requested_memory_share = memory / static_cast<double>(fleet.memory());

  AssignRealUsageShapes(scenario.workload, options.traces_dir, options.seed, &stats);

  // Batch: whole 2017 jobs drawn with probability nodes / 1313, the same draw every day.
  Alibaba2017Batch batch =
      ReadAlibaba2017BatchTasks((dir / "alibaba-v2017/batch_task.csv").string());
  const double rate = static_cast<double>(options.nodes) / kAlibaba2017Machines;
  const int64_t whole = static_cast<int64_t>(std::floor(rate));
  const double fraction = rate - static_cast<double>(whole);
  std::vector<BatchJob>& jobs = scenario.workload.jobs;
  for (int day = 0; day < options.days; ++day) {
    for (const Alibaba2017Task& task : batch.tasks) {
      uint64_t draw = Hash(options.seed, 0x6a6f62, static_cast<uint64_t>(task.job_id));
      int64_t copies = whole + (UnitInterval(draw) < fraction ? 1 : 0);
      for (int64_t c = 0; c < copies; ++c) {
        BatchJob job = task.job;
        if (c > 0) job.name += "-c" + std::to_string(c);
        job.name += "-d" + std::to_string(day);
        job.submit_time += day * kSecondsPerDay;
        stats.tasks += job.tasks;
        jobs.push_back(std::move(job));
      }
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.submit_time < b.submit_time;
  });
  stats.jobs = static_cast<int64_t>(jobs.size());
  if (stats_out != nullptr) *stats_out = stats;
  return scenario;
}

}  // namespace archimedes
