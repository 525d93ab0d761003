// MetricsCollector on its own: a tiny run, driven second by second through a real engine, whose
// every figure is worked out by hand below.
#include "sim/metrics_collector.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <vector>

#include "engine/policy.h"
#include "sim/engine_link.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kNever = int64_t{1} << 40;
constexpr size_t kCpu = static_cast<size_t>(Dim::kCpu);
constexpr size_t kMemory = static_cast<size_t>(Dim::kMemory);

// One node of 3 cores and 8 GiB; a service of two 1-core replicas that serve 30 s after they
// start; one job of two 1-core tasks of 100 s, submitted at 20 with 30 s of tolerance. Both
// shapes are (1 core, 1 GiB).
Workload TinyWorkload() {
  Workload w;
  Service web{.name = "web", .requests = Resources::Of(1000, kGi)};
  web.limits = web.requests;
  web.replicas = 2;
  web.startup_s = 30;
  web.sla = {.availability = 0.8, .min_available = 0};
  w.services.push_back(web);
  w.jobs.push_back(BatchJob{.name = "batch",
                            .submit_time = 20,
                            .tasks = 2,
                            .task_requests = Resources::Of(1000, kGi),
                            .duration_estimate_s = 100,
                            .duration_s = 100,
                            .utilization = 1.0,
                            .delay_tolerance_s = 30});
  return w;
}

Node TheNode() {
  Node n{.name = "n", .capacity = Resources::Of(3000, 8 * kGi)};
  n.allocatable = n.capacity;
  n.zone = "z";
  n.pod = "p";
  return n;
}

// Hand-made usage ticks every 60 s from 0 to 240: CPU used of 4 cores (as the fleet reports it),
// 2 GiB of 8 used throughout, the node hot at 180 only, and the containers on it.
constexpr std::array<double, 5> kCpuUsed = {1, 2, 2, 3, 2};
constexpr std::array<bool, 5> kHot = {false, false, false, true, false};
constexpr std::array<int, 5> kContainers = {2, 3, 3, 3, 2};

TEST(MetricsCollectorTest, FiguresOfATinyRunMatchTheirHandComputedValues) {
  const Workload workload = TinyWorkload();
  const ShapeMix mix = ShapeMix::FromWorkload(workload);
  LocalEngine engine(MakePolicy("k8s-default"), {}, {TheNode()}, workload.services);
  std::vector<ContractRecord> records;
  MetricsCollector collector(workload, /*warmup_s=*/0, /*tick_s=*/60, /*burst_buffer=*/0.2,
                             &records);

  std::map<int64_t, ContainerId> ends;  // when each running task finishes
  std::vector<int64_t> starts;
  int finished = 0;
  for (int64_t t = 0; t <= 240; ++t) {
    engine.AdvanceTo(t);
    if (t == 0) {
      engine.ScaleService(0, 2);
      collector.ServiceScaled(0, 0, 0, 2);
    }
    if (t == 20) {
      engine.SubmitJob(workload.jobs[0], kNever);
      collector.JobSubmitted(workload.jobs[0]);
    }
    if (auto it = ends.find(t); it != ends.end()) {
      engine.ContainerFinished(it->second);
      collector.TaskFinished(t, 0, ++finished == 2);
    }
    engine.Schedule();
    for (const Action& a : engine.actions()) {
      if (a.kind != ActionKind::kStartTask) continue;
      collector.TaskStarted(t, a.job, a.first_start);
      ends[t + 100] = a.container;
      starts.push_back(t);
    }
    engine.ClearActions();
    if (t % 60 == 0) {
      const size_t i = t / 60;
      collector.NodeTicked(kHot[i], kContainers[i]);
      const std::array<uint8_t, 1> hot = {kHot[i]};
      collector.FleetTicked(t, {kCpuUsed[i], 2.0 * kGi, 0, 0, 0}, {4, 8.0 * kGi, 0, 0, 0}, engine,
                            hot);
    }
    // Sampled full (3 of 3 cores, 3 of 8 GiB) and after the last task (2 cores, 2 GiB).
    if (t == 20 || t == 230) collector.SampleAllocation(engine.cluster(), mix);
  }
  // The first task starts on submission; the second when the first frees its core, 100 s late.
  ASSERT_EQ(starts, (std::vector<int64_t>{20, 120}));
  ASSERT_EQ(finished, 2);
  collector.TaskKilled(200, 0, 50);  // half of a task's 100 core-seconds lost
  collector.TasksReportedLate(0, 1);
  collector.Evicted();
  collector.Migrated(/*for_health=*/true);
  collector.Migrated(/*for_health=*/false);

  const int64_t end = kSecondsPerDay;
  const std::vector<int64_t> give_up = {kNever};
  const Metrics m = collector.Finish(end, 1, engine, give_up);

  EXPECT_DOUBLE_EQ(m.measured_days, 1);
  // Utilization: mean of 1/4, 2/4, 2/4, 3/4, 2/4 for CPU; 2/8 every tick for memory.
  EXPECT_DOUBLE_EQ(m.utilization[kCpu], 0.5);
  EXPECT_DOUBLE_EQ(m.utilization[kMemory], 0.25);
  EXPECT_DOUBLE_EQ(m.cpu_utilization_of_usable, 0.5 / 0.8);  // the usable 80 % of the node
  // Allocation: CPU (3/3 + 2/3) / 2, memory (3/8 + 2/8) / 2. Fragmentation: full CPU makes the
  // free memory a fragment for the one shape (1), then the shape fits (0).
  EXPECT_DOUBLE_EQ(m.allocation_rate[kCpu], 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.allocation_rate[kMemory], 0.3125);
  EXPECT_DOUBLE_EQ(m.fragmentation_rate, 0.5);
  EXPECT_DOUBLE_EQ(m.hot_node_time, 0.2);
  // The service: 2 replicas × 5 ticks × 60 s desired; starting at 0 they were rolling out (no
  // harm); hot at 180 both are harmed for a tick: 1 − 120/600 = 0.8, its target exactly.
  EXPECT_EQ(m.services_counted, 1);
  EXPECT_DOUBLE_EQ(m.sla_services, 1);
  // The job started a task 100 s after submission, past its 30 s tolerance.
  EXPECT_EQ(m.jobs_counted, 1);
  EXPECT_DOUBLE_EQ(m.sla_jobs, 0);
  EXPECT_DOUBLE_EQ(m.sla_all, 0.5);
  // Waits 0 and 100 s: the nearest-rank p50 is the first, p99 the second; as shares of the
  // tolerance 0 and 100/30.
  EXPECT_DOUBLE_EQ(m.wait_p50_s, 0);
  EXPECT_DOUBLE_EQ(m.wait_p99_s, 100);
  EXPECT_DOUBLE_EQ(m.wait_tolerance_share_p50, 0);
  EXPECT_DOUBLE_EQ(m.wait_tolerance_share_p99, 100.0 / 30.0);
  EXPECT_DOUBLE_EQ(m.started_within_tolerance, 0.5);
  EXPECT_DOUBLE_EQ(m.started_within_tolerance_by_type[static_cast<size_t>(JobType::kOffline)], 0.5);
  EXPECT_DOUBLE_EQ(m.started_within_tolerance_by_type[static_cast<size_t>(JobType::kServerless)],
                   1);
  // Lateness: 0 s for the first start, 120 − 50 = 70 s for the second; priority 0 weighs 1.
  EXPECT_DOUBLE_EQ(m.weighted_lateness_s, 35);
  // Core-seconds: 2 tasks × 1 core × 100 s offered and done, 50 lost; over one measured day.
  EXPECT_DOUBLE_EQ(m.offered_core_hours_per_day, 200.0 / 3600.0);
  EXPECT_DOUBLE_EQ(m.batch_core_hours_per_day, 200.0 / 3600.0);
  EXPECT_DOUBLE_EQ(m.lost_core_hours_per_day, 50.0 / 3600.0);
  EXPECT_EQ(m.tasks_submitted, 2);
  EXPECT_EQ(m.tasks_finished, 2);
  EXPECT_EQ(m.tasks_running + m.tasks_queued + m.tasks_failed, 0);
  EXPECT_EQ(m.tasks_reported_late, 1);
  // 13 container-ticks of 60 s: 780 container-seconds.
  EXPECT_EQ(m.evictions, 1);
  EXPECT_EQ(m.migrations, 2);
  EXPECT_EQ(m.health_migrations, 1);
  EXPECT_DOUBLE_EQ(m.evictions_per_1000_container_days, 1000.0 * kSecondsPerDay / 780.0);
  EXPECT_DOUBLE_EQ(m.migrations_per_1000_container_days, 2000.0 * kSecondsPerDay / 780.0);

  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, "service");
  EXPECT_TRUE(records[0].honoured);
  EXPECT_NEAR(records[0].achieved, 0.8, 1e-12);
  ASSERT_EQ(records[0].breaches.size(), 1u);
  EXPECT_EQ(records[0].breaches[0].start, 180);
  EXPECT_EQ(records[0].breaches[0].end, 240);
  EXPECT_EQ(records[0].breaches[0].reason, "hot node");
  EXPECT_EQ(records[1].kind, "job");
  EXPECT_FALSE(records[1].honoured);
  EXPECT_DOUBLE_EQ(records[1].target, 30);
  EXPECT_DOUBLE_EQ(records[1].achieved, 100);
  ASSERT_EQ(records[1].breaches.size(), 1u);
  EXPECT_EQ(records[1].breaches[0].start, 50);
  EXPECT_EQ(records[1].breaches[0].reason, "started late");
}

// Nothing before the warm-up counts but what ends after it, and the measured days start there.
TEST(MetricsCollectorTest, TheWarmUpIsLeftOut) {
  Workload workload = TinyWorkload();
  workload.services.clear();
  workload.jobs[0].submit_time = 50;
  LocalEngine engine(MakePolicy("k8s-default"), {}, {TheNode()}, {});
  MetricsCollector collector(workload, /*warmup_s=*/100, /*tick_s=*/60, /*burst_buffer=*/0.1,
                             nullptr);
  collector.JobSubmitted(workload.jobs[0]);  // before the warm-up: not offered
  collector.TaskStarted(60, 0, true);        // its wait is not measured
  collector.TaskKilled(90, 0, 100);          // lost during the warm-up: not counted
  collector.TaskFinished(160, 0, false);     // done after it: counted
  collector.TasksReportedLate(0, 2);         // a warm-up job: not counted
  const Metrics m = collector.Finish(100 + kSecondsPerDay / 2, 0, engine, {});
  EXPECT_DOUBLE_EQ(m.measured_days, 0.5);
  EXPECT_DOUBLE_EQ(m.offered_core_hours_per_day, 0);
  EXPECT_DOUBLE_EQ(m.lost_core_hours_per_day, 0);
  EXPECT_DOUBLE_EQ(m.batch_core_hours_per_day, 100.0 / 3600.0 / 0.5);
  EXPECT_DOUBLE_EQ(m.wait_p99_s, 0);
  EXPECT_DOUBLE_EQ(m.started_within_tolerance, 1);
  EXPECT_EQ(m.tasks_reported_late, 0);
  EXPECT_EQ(m.services_counted + m.jobs_counted, 0);
  EXPECT_DOUBLE_EQ(m.sla_all, 1);
}

// Lateness is weighted by priority, and a task that never started counts until its submitter gave
// up or, if it has not, until the end of the run.
TEST(MetricsCollectorTest, LatenessIsWeightedByPriorityAndCountsTasksNeverStarted) {
  Workload workload;
  auto job = [](const char* name, int priority, int64_t cpu) {
    return BatchJob{.name = name,
                    .tasks = 1,
                    .task_requests = Resources::Of(cpu, kGi),
                    .duration_estimate_s = 500,
                    .duration_s = 500,
                    .delay_tolerance_s = 10,
                    .priority = priority};
  };
  workload.jobs = {job("starts", 5, 1000), job("gives-up", 3, 2500), job("still-waits", 1, 2500)};
  const std::vector<int64_t> give_up = {kNever, 100, kNever};
  LocalEngine engine(MakePolicy("k8s-default"), {}, {TheNode()}, {});
  MetricsCollector collector(workload, /*warmup_s=*/0, /*tick_s=*/60, /*burst_buffer=*/0.1,
                             nullptr);
  for (int32_t j = 0; j < 3; ++j) {
    engine.SubmitJob(workload.jobs[j], give_up[j]);
    collector.JobSubmitted(workload.jobs[j]);
  }
  engine.Schedule();
  int started = 0;
  for (const Action& a : engine.actions()) {
    if (a.kind != ActionKind::kStartTask) continue;
    ASSERT_EQ(a.job, 0);  // first by priority; the others need 2.5 of the 2 cores left
    collector.TaskStarted(0, a.job, a.first_start);
    ++started;
  }
  ASSERT_EQ(started, 1);
  const Metrics m = collector.Finish(1000, 3, engine, give_up);
  // (5 × 0 + 3 × (100 − 10) + 1 × (1000 − 10)) ÷ (5 + 3 + 1).
  EXPECT_DOUBLE_EQ(m.weighted_lateness_s, (3.0 * 90 + 990) / 9);
}

}  // namespace
}  // namespace archimedes
