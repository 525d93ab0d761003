// Placement speed (issue 4): service replicas placed one by one onto a fleet whose services all
// have profiles (288 bins; cpu, memory, disk and network curves), with the `archimedes` service
// scheduler (time-aware fit, complementarity, fragmentation, affinity and spread) and, for
// comparison, the k8s-default one (NodeResourcesFit + LeastAllocated + BalancedAllocation). Reports
// decisions per second and the p50 / p99 wall-clock latency of one decision. BM_RefinePeaks times
// the refinement of the archimedes placement (sched/peak_refiner.h) after it. BM_ArchimedesBatch
// times the archimedes batch scheduler (TimeAwareBatchFit, BatchBestFit) on that fleet: tasks
// placed one by one until the fleet is full and most decisions find no node, as in a simulation
// whose batch stream offers more than the fleet holds.
//
//   placement_bench --benchmark_filter='/1000/'     small fleet: 1,000 nodes, 10,000 replicas
//   placement_bench --benchmark_filter='/10000/'    target: 10,000 nodes, 100,000 replicas
//   placement_bench --benchmark_filter='/24$'       10,000 nodes of 24 cores: the requests
//                                                   (250,000 cores) fill the fleet, so late
//                                                   decisions find few nodes with room
//   placement_bench --benchmark_filter=Batch        1,000 nodes, 10,000 replicas, 100,000 tasks
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "sched/archimedes_placement.h"
#include "sched/batch_schedulers.h"
#include "sched/kubernetes_scheduler.h"
#include "sched/peak_refiner.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int kReplicasPerService = 50;

struct Fleet {
  std::vector<Node> nodes;
  std::vector<Service> services;
  ProfileSet profiles;
  TaskShapeMix mix;
};

Fleet MakeFleet(int num_nodes, int replicas, int node_cores) {
  Fleet f;
  for (int i = 0; i < num_nodes; ++i) {
    Node n;
    n.name = "node-" + std::to_string(i);
    n.capacity = n.allocatable =
        Resources::Of(int64_t{1000} * node_cores, 256 * kGi, 2'000'000'000, 1'250'000'000);
    n.zone = "zone-" + std::to_string(i % 4);
    n.pod = "pod-" + std::to_string(i % 100);
    f.nodes.push_back(std::move(n));
  }
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int num_services = replicas / kReplicasPerService;
  for (int s = 0; s < num_services; ++s) {
    Service svc;
    svc.name = "svc-" + std::to_string(s);
    svc.replicas = kReplicasPerService;
    svc.requests = Resources::Of(int64_t{1000} * (1 + s % 4), kGi * (2 + 2 * (s % 5)));
    AppProfile p;
    p.app = svc.name;
    p.class_id = s % 6;
    const float phase = 2.0f * std::numbers::pi_v<float> * u(rng);
    const float cpu = 0.6f * static_cast<float>(svc.requests.cpu());
    const float memory = 0.7f * static_cast<float>(svc.requests.memory());
    for (int b = 0; b < 288; ++b) {
      const float wave =
          0.5f + 0.5f * std::sin(phase + 2.0f * std::numbers::pi_v<float> * b / 288.0f);
      p.high[0][b] = cpu * (0.3f + 0.7f * wave) * (0.95f + 0.1f * u(rng));
      p.high[1][b] = memory * (0.8f + 0.2f * wave);
      p.high[2][b] = 5e6f * (0.5f + wave);
      p.high[3][b] = 2e7f * (0.2f + wave);
    }
    f.profiles.apps.push_back(std::move(p));
    f.services.push_back(std::move(svc));
  }
  std::sort(f.profiles.apps.begin(), f.profiles.apps.end(),
            [](const AppProfile& a, const AppProfile& b) { return a.app < b.app; });
  for (int a = 0; a < 6; ++a) {
    for (int b = a; b < 6; ++b) {
      f.profiles.complementarity.push_back(
          {.a = a, .b = b, .score = 0.08f * static_cast<float>((a + 2 * b) % 6)});
    }
  }
  for (int k = 0; k < 4; ++k) f.mix.push_back({f.services[k].requests, 0.25});
  return f;
}

double ThreadCpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double P99(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, v.size() * 99 / 100)];
}

void Report(benchmark::State& state, std::vector<double>& cpu_us, std::vector<double>& wall_us,
            int placed) {
  double total = 0;
  for (double l : cpu_us) total += l;
  state.counters["decisions_per_s"] = static_cast<double>(cpu_us.size()) / (total / 1e6);
  state.counters["p99_us"] = P99(cpu_us);
  state.counters["p50_us"] = cpu_us[cpu_us.size() / 2];
  state.counters["wall_p99_us"] = P99(wall_us);
  state.counters["placed"] = placed;
}

struct Placed {
  std::vector<double> cpu_us, wall_us;  // per decision
  std::vector<ContainerId> ids;
  std::vector<PodRequest> pods;
};

// Places every replica of every service, round-robin over the services, timing each decision.
template <typename Decide>
Placed PlaceAll(const Fleet& fleet, ClusterState& cluster, Decide decide, PredictedLoad* load) {
  Placed placed;
  placed.cpu_us.reserve(static_cast<size_t>(fleet.services.size()) * kReplicasPerService);
  placed.wall_us.reserve(placed.cpu_us.capacity());
  for (int r = 0; r < kReplicasPerService; ++r) {
    for (size_t s = 0; s < fleet.services.size(); ++s) {
      const PodRequest pod{.requests = fleet.services[s].requests,
                           .kind = OwnerKind::kService,
                           .owner = static_cast<int32_t>(s)};
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = ThreadCpuMicros();
      const NodeId node = decide(pod);
      placed.cpu_us.push_back(ThreadCpuMicros() - cpu_start);
      placed.wall_us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      if (node < 0) continue;
      Container c{.kind = OwnerKind::kService,
                  .owner = pod.owner,
                  .index = r,
                  .node = node,
                  .requests = pod.requests};
      placed.ids.push_back(cluster.Add(c));
      placed.pods.push_back(pod);
      if (load != nullptr) load->AddContainer(c);
    }
  }
  return placed;
}

void ReportDecisions(benchmark::State& state, Placed& placed) {
  Report(state, placed.cpu_us, placed.wall_us, static_cast<int>(placed.ids.size()));
}

// The archimedes service scheduler with every third service spread over zones.
struct ArchimedesPlacer {
  explicit ArchimedesPlacer(const Fleet& fleet,
                            TaskAccounting accounting = TaskAccounting::kAllocatable)
      : cluster(fleet.nodes, accounting),
        load(BuildPredictedLoad(cluster, fleet.services, fleet.profiles, PlacementSettings{})),
        scheduler(MakeScheduler(fleet, load)) {}

  static Scheduler MakeScheduler(const Fleet& fleet, const PredictedLoad& load) {
    const PlacementSettings settings;
    PlacementInputs inputs =
        PlacementInputs::From(fleet.services, fleet.profiles, load, settings, fleet.mix);
    for (size_t s = 0; s < inputs.rules.size(); s += 3) inputs.rules[s].spread = true;
    return MakeArchimedesServiceScheduler(settings, inputs);
  }

  Placed PlaceAll(const Fleet& fleet) {
    return archimedes::PlaceAll(
        fleet, cluster,
        [&](const PodRequest& pod) {
          return scheduler.Schedule(SchedulingContext{cluster, &load}, pod);
        },
        &load);
  }

  ClusterState cluster;
  PredictedLoad load;
  Scheduler scheduler;
};

void BM_ArchimedesPlacement(benchmark::State& state) {
  const Fleet fleet = MakeFleet(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                static_cast<int>(state.range(2)));
  for (auto _ : state) {
    state.PauseTiming();
    ArchimedesPlacer placer(fleet);
    state.ResumeTiming();
    Placed placed = placer.PlaceAll(fleet);
    ReportDecisions(state, placed);
  }
}

// RefinePeaks (sched/peak_refiner.h) over every replica the greedy decisions placed, as the
// simulator runs it when a cycle places a whole fleet's services: time per pass, moves, and the
// sums of predicted cpu and memory peaks before and after.
void BM_RefinePeaks(benchmark::State& state) {
  const Fleet fleet = MakeFleet(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                static_cast<int>(state.range(2)));
  for (auto _ : state) {
    state.PauseTiming();
    ArchimedesPlacer placer(fleet);
    Placed placed = placer.PlaceAll(fleet);
    auto peak_sum = [&](Dim d) {
      double sum = 0;
      for (NodeId n = 0; n < placer.cluster.num_nodes(); ++n) sum += placer.load.peak(n, d);
      return sum;
    };
    const double cpu_before = peak_sum(Dim::kCpu), memory_before = peak_sum(Dim::kMemory);
    auto move = [&](ContainerId id, NodeId to) {
      Container c = placer.cluster.container(id);
      placer.load.RemoveContainer(c);
      placer.cluster.Remove(id);
      c.node = to;
      placer.load.AddContainer(c);
      return placer.cluster.Add(c);
    };
    state.ResumeTiming();
    const double cpu_start = ThreadCpuMicros();
    const RefineResult result =
        RefinePeaks(placer.scheduler, SchedulingContext{placer.cluster, &placer.load}, placed.ids,
                    placed.pods, move);
    state.counters["cpu_s_per_pass"] = (ThreadCpuMicros() - cpu_start) / 1e6 / result.passes;
    state.counters["passes"] = result.passes;
    state.counters["moves"] = result.moves;
    state.counters["replicas"] = static_cast<double>(placed.ids.size());
    state.counters["cpu_peaks_change_pct"] = 100 * (peak_sum(Dim::kCpu) / cpu_before - 1);
    state.counters["memory_peaks_change_pct"] = 100 * (peak_sum(Dim::kMemory) / memory_before - 1);
  }
}

// Batch tasks placed one by one by the archimedes batch scheduler beside the services placed as
// above, at noon: every tenth a one-hour offline task (2 cores, 8 GiB) that keeps a serverless
// reserve of 1 core and 4 GiB per node free, the others serverless (1 core, 2 GiB, one minute).
// The batch allocatable is what the services' predicted usage now leaves under the buffer.
void BM_ArchimedesBatch(benchmark::State& state) {
  const Fleet fleet = MakeFleet(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                static_cast<int>(state.range(2)));
  const int tasks = static_cast<int>(state.range(3));
  const int64_t noon = kSecondsPerDay / 2;
  for (auto _ : state) {
    state.PauseTiming();
    ArchimedesPlacer placer(fleet, TaskAccounting::kReclaimed);
    placer.PlaceAll(fleet);
    const int bin = placer.load.BinAt(noon);
    std::vector<Resources> batch_allocatable(fleet.nodes.size());
    for (NodeId n = 0; n < placer.cluster.num_nodes(); ++n) {
      for (Dim d : {Dim::kCpu, Dim::kMemory}) {
        batch_allocatable[n][d] = static_cast<int64_t>(placer.load.FreeAt(n, d, bin));
      }
    }
    const std::vector<Resources> reserve(fleet.nodes.size(), Resources::Of(1000, 4 * kGi));
    // archimedes places batch with seed + 1.
    Scheduler batch = MakeTimeAwareBatchScheduler(2);
    const SchedulingContext ctx{.state = placer.cluster,
                                .predicted = &placer.load,
                                .batch_allocatable = batch_allocatable,
                                .serverless_reserve = reserve,
                                .now = noon};
    std::vector<double> cpu_us, wall_us;
    cpu_us.reserve(tasks);
    wall_us.reserve(tasks);
    int placed = 0;
    state.ResumeTiming();
    for (int t = 0; t < tasks; ++t) {
      const bool offline = t % 10 == 0;
      const PodRequest pod{
          .requests = offline ? Resources::Of(2000, 8 * kGi) : Resources::Of(1000, 2 * kGi),
          .kind = OwnerKind::kTask,
          .owner = t,
          .duration_estimate_s = offline ? 3600 : 60,
          .serverless = !offline};
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = ThreadCpuMicros();
      const NodeId node = batch.Schedule(ctx, pod);
      cpu_us.push_back(ThreadCpuMicros() - cpu_start);
      wall_us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      if (node < 0) continue;
      placer.cluster.Add(
          {.kind = OwnerKind::kTask, .owner = t, .node = node, .requests = pod.requests});
      ++placed;
    }
    Report(state, cpu_us, wall_us, placed);
  }
}

void BM_KubernetesDefaultPlacement(benchmark::State& state) {
  const Fleet fleet = MakeFleet(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                static_cast<int>(state.range(2)));
  for (auto _ : state) {
    state.PauseTiming();
    ClusterState cluster(fleet.nodes);
    Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
    state.ResumeTiming();
    Placed placed = PlaceAll(
        fleet, cluster,
        [&](const PodRequest& pod) { return scheduler.Schedule(SchedulingContext{cluster}, pod); },
        nullptr);
    ReportDecisions(state, placed);
  }
}

BENCHMARK(BM_ArchimedesPlacement)
    ->Args({1000, 10000, 64})
    ->Args({10000, 100000, 64})
    ->Args({10000, 100000, 24})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_RefinePeaks)
    ->Args({1000, 10000, 64})
    ->Args({10000, 100000, 64})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_ArchimedesBatch)
    ->Args({1000, 10000, 64, 100000})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_KubernetesDefaultPlacement)
    ->Args({1000, 10000, 64})
    ->Args({10000, 100000, 64})
    ->Args({10000, 100000, 24})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace archimedes

BENCHMARK_MAIN();
