#include "sched/batch_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "sched/reclaimable.h"

namespace archimedes {
namespace {

constexpr int64_t kBin = 300;
constexpr int64_t kGi = int64_t{1} << 30;

// A small fleet with per-node service usage curves and the independent arithmetic the tests judge
// the planner by.
struct Instance {
  int bins = 24;  // usage bins per period (and the horizon)
  int64_t now = 0;
  std::vector<Resources> capacity;
  std::vector<float> usage;  // nodes × kNumDims × bins
  std::vector<RunningTask> running;
  std::vector<PendingJob> jobs;

  void AddNode(int64_t cpu, int64_t memory, std::vector<float> cpu_curve, float memory_used) {
    capacity.push_back(Resources::Of(cpu, memory));
    for (int d = 0; d < kNumDims; ++d) {
      for (int b = 0; b < bins; ++b) {
        usage.push_back(d == 0 ? cpu_curve[b] : d == 1 ? memory_used : 0.0f);
      }
    }
  }
  float Service(int n, int d, int64_t absolute_bin) const {
    return usage[(static_cast<size_t>(n) * kNumDims + d) * bins + absolute_bin % bins];
  }
  PlannerOptions Options() const {
    PlannerOptions o;
    o.bin_seconds = kBin;
    o.horizon_bins = bins;
    return o;
  }
  PlannerInput Input() const {
    return PlannerInput{.now = now,
                        .capacity = capacity,
                        .service_usage = usage,
                        .usage_bins = bins,
                        .running = running,
                        .pending = jobs};
  }
};

int64_t Origin(int64_t now) { return now / kBin * kBin; }

// Bins [first, end) that a task starting at `start_bin` occupies, by the contract of the header.
std::pair<int, int> RunBins(int64_t now, int start_bin, int64_t duration, int landscape) {
  const int64_t origin = Origin(now);
  const int current = static_cast<int>((now - origin) / kBin);
  const int64_t begin_time = start_bin == current ? now : origin + start_bin * kBin;
  const int64_t end = (begin_time - origin + duration + kBin - 1) / kBin;
  return {start_bin,
          static_cast<int>(std::min<int64_t>(std::max<int64_t>(end, start_bin + 1), landscape))};
}

// Load in cpu and memory per node and bin from started tasks and placements (skipping one).
struct Load {
  int nodes, bins;
  std::vector<int64_t> amount;  // [node][2][bin]
  int64_t& at(int n, int d, int b) { return amount[(static_cast<size_t>(n) * 2 + d) * bins + b]; }
};

Load LoadOf(const Instance& inst, const BatchPlanner& planner, int skip = -1) {
  Load load{static_cast<int>(inst.capacity.size()), planner.landscape_bins(), {}};
  load.amount.assign(static_cast<size_t>(load.nodes) * 2 * load.bins, 0);
  const int64_t origin = Origin(inst.now);
  for (const RunningTask& t : inst.running) {
    const int end = static_cast<int>(
        std::clamp<int64_t>((t.end_time - origin + kBin - 1) / kBin, 1, load.bins));
    for (int b = 0; b < end; ++b) {
      for (int d = 0; d < 2; ++d) load.at(t.node, d, b) += t.requests.amount[d];
    }
  }
  const auto placements = planner.placements();
  for (int i = 0; i < static_cast<int>(placements.size()); ++i) {
    if (i == skip) continue;
    const TaskPlacement& p = placements[i];
    const PendingJob& job = inst.jobs[p.job];
    auto [begin, end] = RunBins(inst.now, p.start_bin, job.duration_estimate_s, load.bins);
    for (int b = begin; b < end; ++b) {
      for (int d = 0; d < 2; ++d) load.at(p.node, d, b) += job.task_requests.amount[d];
    }
  }
  return load;
}

int64_t Reclaimable(const Instance& inst, int n, int d, int bin) {
  return ReclaimableAmount(inst.capacity[n].amount[d], kDefaultBurstBuffer,
                           inst.Service(n, d, Origin(inst.now) / kBin + bin));
}

// Brute force: does a task of `job` fit on any node at any start in [first, last] given `load`?
bool FitsSomewhere(const Instance& inst, Load& load, const PendingJob& job, int first, int last) {
  for (int n = 0; n < load.nodes; ++n) {
    for (int s = first; s <= last; ++s) {
      auto [begin, end] = RunBins(inst.now, s, job.duration_estimate_s, load.bins);
      bool fits = true;
      for (int b = begin; b < end && fits; ++b) {
        for (int d = 0; d < 2; ++d) {
          fits =
              fits && load.at(n, d, b) + job.task_requests.amount[d] <= Reclaimable(inst, n, d, b);
        }
      }
      if (fits) return true;
    }
  }
  return false;
}

int FirstBin(const Instance& inst, const PendingJob& job) {
  const int current = static_cast<int>((inst.now - Origin(inst.now)) / kBin);
  if (job.submit_time <= inst.now) return current;
  return static_cast<int>((job.submit_time - Origin(inst.now) + kBin - 1) / kBin);
}

int LastOnTimeBin(const Instance& inst, const PendingJob& job) {
  const int64_t deadline = job.submit_time + job.delay_tolerance_s;
  if (deadline < inst.now) return -1;
  return static_cast<int>(std::min<int64_t>((deadline - Origin(inst.now)) / kBin, inst.bins - 1));
}

Instance RandomInstance(std::mt19937_64& rng, int nodes, int jobs) {
  Instance inst;
  inst.now = 86'400 + std::uniform_int_distribution<int64_t>(0, 3'000)(rng);
  std::uniform_real_distribution<float> share(0.0f, 0.9f);
  for (int n = 0; n < nodes; ++n) {
    std::vector<float> cpu(inst.bins);
    for (float& c : cpu) c = share(rng) * 16'000;
    inst.AddNode(16'000, 64 * kGi, cpu, share(rng) * 64 * kGi);
  }
  std::uniform_int_distribution<int> cores(1, 6), gib(1, 16), tasks(1, 4), priority(0, 2);
  std::uniform_int_distribution<int64_t> duration(60, int64_t{3} * 3600),
      tolerance(0, int64_t{4} * 3600), age(0, 1800);
  for (int j = 0; j < jobs; ++j) {
    PendingJob job;
    job.type = rng() % 2 ? JobType::kServerless : JobType::kOffline;
    // Drawn one by one: the order in which arguments are evaluated differs between compilers,
    // and the instances must be the same under each (this order is the one g++ used).
    const int64_t memory = gib(rng) * kGi;
    const int64_t cpu = int64_t{cores(rng)} * 1000;
    job.task_requests = Resources::Of(cpu, memory);
    job.tasks = tasks(rng);
    job.gang = rng() % 5 == 0;
    job.priority = priority(rng);
    job.submit_time = inst.now - age(rng);
    job.delay_tolerance_s = tolerance(rng);
    job.duration_estimate_s = duration(rng);
    inst.jobs.push_back(job);
  }
  return inst;
}

TEST(BatchPlannerTest, PlannedUsageNeverEntersTheBuffer) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    Instance inst = RandomInstance(rng, 4, 25);
    inst.running.push_back({0, Resources::Of(2000, 4 * kGi), inst.now + 1200});
    BatchPlanner planner(inst.Options());
    planner.Replan(inst.Input());
    ASSERT_FALSE(planner.placements().empty());
    Load load = LoadOf(inst, planner);
    for (const TaskPlacement& p : planner.placements()) {
      const PendingJob& job = inst.jobs[p.job];
      auto [begin, end] = RunBins(inst.now, p.start_bin, job.duration_estimate_s, load.bins);
      for (int b = begin; b < end; ++b) {
        for (int d = 0; d < 2; ++d) {
          ASSERT_LE(load.at(p.node, d, b), Reclaimable(inst, p.node, d, b))
              << "round " << round << " node " << p.node << " dim " << d << " bin " << b;
          ASSERT_EQ(planner.Free(p.node, static_cast<Dim>(d), b),
                    Reclaimable(inst, p.node, d, b) - load.at(p.node, d, b));
        }
      }
    }
  }
}

// Only a node where services run keeps the burst buffer: nothing bursts on the others.
TEST(BatchPlannerTest, ANodeWithoutServicesKeepsNoBurstBuffer) {
  Instance inst;
  inst.AddNode(10'000, 10 * kGi, std::vector<float>(inst.bins, 0.0f), 0.0f);
  inst.AddNode(10'000, 10 * kGi, std::vector<float>(inst.bins, 2'000.0f), 0.0f);
  inst.AddNode(10'000, 10 * kGi, std::vector<float>(inst.bins, 0.0f), 0.0f);
  PlannerOptions options = inst.Options();
  options.buffer = 0.1;
  const std::vector<uint8_t> hosts_services = {1, 1, 0};
  PlannerInput input = inst.Input();
  input.hosts_services = hosts_services;
  BatchPlanner planner(options);
  planner.Replan(input);
  for (int b = 0; b < inst.bins; ++b) {
    EXPECT_EQ(planner.Free(0, Dim::kCpu, b), 9'000) << "services, idle now: buffer kept";
    EXPECT_EQ(planner.Free(1, Dim::kCpu, b), 7'000);
    EXPECT_EQ(planner.Free(2, Dim::kCpu, b), 10'000) << "no service: no buffer";
  }
  BatchPlanner everywhere(options);
  everywhere.Replan(inst.Input());  // no hosts_services: every node keeps it
  EXPECT_EQ(everywhere.Free(2, Dim::kCpu, 0), 9'000);
}

// Skipping the jobs known to find no start changes nothing in the plan, on queues far larger than
// the fleet can hold (where it skips most of them).
TEST(BatchPlannerTest, SkippingKnownFailuresGivesTheSamePlan) {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 20; ++round) {
    const Instance inst = RandomInstance(rng, 3, 300);
    PlannerOptions scan_all = inst.Options();
    scan_all.skip_known_failures = false;
    BatchPlanner fast(inst.Options()), full(scan_all);
    fast.Replan(inst.Input());
    full.Replan(inst.Input());
    ASSERT_EQ(fast.placements().size(), full.placements().size()) << "round " << round;
    for (size_t i = 0; i < full.placements().size(); ++i) {
      const TaskPlacement& a = fast.placements()[i];
      const TaskPlacement& b = full.placements()[i];
      ASSERT_EQ(std::tie(a.job, a.node, a.start_bin, a.start_time, a.late),
                std::tie(b.job, b.node, b.start_bin, b.start_time, b.late))
          << "round " << round << " placement " << i;
    }
    int unplaced = 0;
    for (size_t j = 0; j < inst.jobs.size(); ++j) {
      const JobOutcome& a = fast.outcomes()[j];
      const JobOutcome& b = full.outcomes()[j];
      ASSERT_EQ(std::tie(a.planned, a.late, a.unplaced, a.tolerance_missed),
                std::tie(b.planned, b.late, b.unplaced, b.tolerance_missed));
      unplaced += a.unplaced;
    }
    EXPECT_EQ(fast.late_jobs().size(), full.late_jobs().size());
    EXPECT_GT(unplaced, 100) << "the queue overflows the horizon";
  }
}

TEST(BatchPlannerTest, NoTaskMissesItsDeadlineWhileRoomExistedInItsWindow) {
  std::mt19937_64 rng(11);
  int missed = 0, on_time = 0;
  for (int round = 0; round < 40; ++round) {
    Instance inst = RandomInstance(rng, 3, 30);
    BatchPlanner planner(inst.Options());
    planner.Replan(inst.Input());
    const auto placements = planner.placements();
    for (int i = 0; i < static_cast<int>(placements.size()); ++i) {
      const TaskPlacement& p = placements[i];
      const PendingJob& job = inst.jobs[p.job];
      ASSERT_GE(p.start_time, std::max(inst.now, job.submit_time));
      if (!p.late) {
        ASSERT_LE(p.start_time, job.submit_time + job.delay_tolerance_s);
        ++on_time;
        continue;
      }
      if (job.gang) continue;  // a gang needs room for all its tasks at once; checked below
      ++missed;
      Load load = LoadOf(inst, planner, i);
      EXPECT_FALSE(FitsSomewhere(inst, load, job, FirstBin(inst, job), LastOnTimeBin(inst, job)))
          << "round " << round << ": job " << p.job << " reported late but had room";
    }
    Load load = LoadOf(inst, planner);
    for (size_t j = 0; j < inst.jobs.size(); ++j) {
      const JobOutcome& o = planner.outcomes()[j];
      ASSERT_EQ(o.planned + o.unplaced, inst.jobs[j].tasks);
      if (o.unplaced > 0 && !inst.jobs[j].gang) {
        EXPECT_FALSE(
            FitsSomewhere(inst, load, inst.jobs[j], FirstBin(inst, inst.jobs[j]), inst.bins - 1));
      }
      if (o.tolerance_missed) {
        EXPECT_NE(std::find(planner.late_jobs().begin(), planner.late_jobs().end(), j),
                  planner.late_jobs().end());
      }
    }
  }
  EXPECT_GT(missed, 0) << "the random instances should be tight enough to make some task late";
  EXPECT_GT(on_time, 0);
}

TEST(BatchPlannerTest, ServerlessTasksGetTheEarliestFeasibleStart) {
  std::mt19937_64 rng(13);
  int delayed = 0;
  for (int round = 0; round < 40; ++round) {
    Instance inst = RandomInstance(rng, 3, 30);
    BatchPlanner planner(inst.Options());
    planner.Replan(inst.Input());
    const auto placements = planner.placements();
    for (int i = 0; i < static_cast<int>(placements.size()); ++i) {
      const TaskPlacement& p = placements[i];
      const PendingJob& job = inst.jobs[p.job];
      if (job.type != JobType::kServerless || job.gang || p.late) continue;
      const int first = FirstBin(inst, job);
      if (p.start_bin == first) continue;
      ++delayed;
      Load load = LoadOf(inst, planner, i);
      EXPECT_FALSE(FitsSomewhere(inst, load, job, first, p.start_bin - 1))
          << "round " << round << ": serverless job " << p.job << " planned at bin " << p.start_bin
          << " though an earlier start had room";
    }
  }
  EXPECT_GT(delayed, 0);
}

TEST(BatchPlannerTest, GangJobsStartAllOrNothingAtOneTime) {
  Instance inst;
  std::vector<float> busy_then_idle(inst.bins, 0.0f);
  for (int b = 0; b < 6; ++b) busy_then_idle[b] = 7'000;  // 16 × 0.9 − 7 = 7.4 cores free
  inst.AddNode(16'000, 64 * kGi, busy_then_idle, 0);
  inst.AddNode(16'000, 64 * kGi, busy_then_idle, 0);
  // Four 4-core tasks: two nodes hold one each while busy (bins 0–5), three each afterwards.
  PendingJob gang{.type = JobType::kServerless,
                  .task_requests = Resources::Of(4000, kGi),
                  .tasks = 4,
                  .gang = true,
                  .delay_tolerance_s = 24 * kBin};
  PendingJob too_big = gang;
  too_big.tasks = 7;
  too_big.delay_tolerance_s = 20 * kBin;
  inst.jobs = {gang, too_big};
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  std::vector<int> starts;
  for (const TaskPlacement& p : planner.placements()) {
    if (p.job == 0) starts.push_back(p.start_bin);
  }
  ASSERT_EQ(starts.size(), 4u);
  EXPECT_TRUE(std::all_of(starts.begin(), starts.end(), [](int s) { return s == 6; }));
  EXPECT_EQ(planner.outcomes()[1].planned, 0);
  EXPECT_EQ(planner.outcomes()[1].unplaced, 7);
  EXPECT_TRUE(planner.outcomes()[1].tolerance_missed);

  std::mt19937_64 rng(17);
  for (int round = 0; round < 30; ++round) {
    Instance random = RandomInstance(rng, 3, 20);
    BatchPlanner p2(random.Options());
    p2.Replan(random.Input());
    for (size_t j = 0; j < random.jobs.size(); ++j) {
      if (!random.jobs[j].gang) continue;
      const JobOutcome& o = p2.outcomes()[j];
      EXPECT_TRUE(o.planned == 0 || o.planned == random.jobs[j].tasks);
      std::vector<int> gang_starts;
      for (const TaskPlacement& p : p2.placements()) {
        if (p.job == static_cast<int32_t>(j)) gang_starts.push_back(p.start_bin);
      }
      EXPECT_TRUE(std::adjacent_find(gang_starts.begin(), gang_starts.end(),
                                     std::not_equal_to<>()) == gang_starts.end());
    }
  }
}

// A day/night service curve: busy for the first half of the horizon, idle for the second.
std::vector<float> DayNight(int bins, float day, float night) {
  std::vector<float> curve(bins, night);
  std::fill(curve.begin(), curve.begin() + bins / 2, day);
  return curve;
}

TEST(BatchPlannerTest, OfflineTasksPreferValleysServerlessStartNow) {
  Instance inst;
  inst.AddNode(16'000, 64 * kGi, DayNight(inst.bins, 8'000, 1'000), 8 * kGi);
  PendingJob offline{.type = JobType::kOffline,
                     .task_requests = Resources::Of(2000, 2 * kGi),
                     .tasks = 2,
                     .delay_tolerance_s = 24 * kBin,
                     .duration_estimate_s = 3 * kBin};
  PendingJob serverless = offline;
  serverless.type = JobType::kServerless;
  inst.jobs = {offline, serverless};
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  ASSERT_EQ(planner.placements().size(), 4u);
  for (const TaskPlacement& p : planner.placements()) {
    if (p.job == 0) {
      EXPECT_GE(p.start_bin, inst.bins / 2) << "offline task planned at the day peak";
    } else {
      EXPECT_EQ(p.start_bin, 0);
      EXPECT_EQ(p.start_time, inst.now);
    }
  }
  EXPECT_EQ(planner.start_now().size(), 2u);

  // Two nodes in opposite phases: the offline task runs now on the node in its valley.
  Instance two;
  two.AddNode(16'000, 64 * kGi, DayNight(two.bins, 9'000, 1'000), 8 * kGi);
  two.AddNode(16'000, 64 * kGi, DayNight(two.bins, 1'000, 9'000), 8 * kGi);
  offline.tasks = 1;
  offline.delay_tolerance_s = 2 * kBin;
  two.jobs = {offline};
  BatchPlanner p2(two.Options());
  p2.Replan(two.Input());
  ASSERT_EQ(p2.placements().size(), 1u);
  EXPECT_EQ(p2.placements()[0].node, 1);
}

// With a late window of one bin, the on-time plan and the late reports are the same; late tasks
// are planned only where they can start now.
TEST(BatchPlannerTest, ALateWindowOfOneBinPlansLateTasksOnlyNow) {
  std::mt19937_64 rng(29);
  int late_now = 0;
  for (int round = 0; round < 20; ++round) {
    const Instance inst = RandomInstance(rng, 3, 300);
    PlannerOptions one_bin = inst.Options();
    one_bin.late_window_bins = 1;
    BatchPlanner window(one_bin), horizon(inst.Options());
    window.Replan(inst.Input());
    horizon.Replan(inst.Input());
    std::vector<TaskPlacement> on_time_window, on_time_horizon;
    const int current = static_cast<int>((inst.now - Origin(inst.now)) / kBin);
    for (const TaskPlacement& p : window.placements()) {
      if (p.late) {
        ASSERT_EQ(p.start_bin, current) << "round " << round;
        ++late_now;
      } else {
        on_time_window.push_back(p);
      }
    }
    for (const TaskPlacement& p : horizon.placements()) {
      if (!p.late) on_time_horizon.push_back(p);
    }
    ASSERT_EQ(on_time_window.size(), on_time_horizon.size()) << "round " << round;
    for (size_t i = 0; i < on_time_window.size(); ++i) {
      const TaskPlacement& a = on_time_window[i];
      const TaskPlacement& b = on_time_horizon[i];
      ASSERT_EQ(std::tie(a.job, a.node, a.start_bin), std::tie(b.job, b.node, b.start_bin));
    }
    EXPECT_EQ(std::vector<int32_t>(window.late_jobs().begin(), window.late_jobs().end()),
              std::vector<int32_t>(horizon.late_jobs().begin(), horizon.late_jobs().end()));
  }
  EXPECT_GT(late_now, 0) << "some late task should find room now";
}

TEST(BatchPlannerTest, ReportsTasksWhoseToleranceCannotBeMet) {
  Instance inst;
  inst.AddNode(16'000, 64 * kGi, DayNight(inst.bins, 12'000, 0), 0);  // 2.4 cores free by day
  PendingJob waits{.type = JobType::kOffline,
                   .task_requests = Resources::Of(8000, kGi),
                   .delay_tolerance_s = 3 * kBin,
                   .duration_estimate_s = kBin};
  PendingJob never = waits;
  never.task_requests = Resources::Of(20'000, kGi);
  PendingJob beyond = never;
  beyond.delay_tolerance_s = int64_t{48} * 3600;
  PendingJob fits_now = waits;
  fits_now.task_requests = Resources::Of(2000, kGi);
  inst.jobs = {waits, never, beyond, fits_now};
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  const auto outcomes = planner.outcomes();
  EXPECT_TRUE(outcomes[0].tolerance_missed);
  EXPECT_EQ(outcomes[0].late, 1);
  EXPECT_TRUE(outcomes[1].tolerance_missed);
  EXPECT_EQ(outcomes[1].unplaced, 1);
  EXPECT_FALSE(outcomes[2].tolerance_missed) << "deadline lies beyond the horizon";
  EXPECT_EQ(outcomes[2].unplaced, 1);
  EXPECT_FALSE(outcomes[3].tolerance_missed);
  EXPECT_EQ(std::vector<int32_t>(planner.late_jobs().begin(), planner.late_jobs().end()),
            (std::vector<int32_t>{0, 1}));
  for (const TaskPlacement& p : planner.placements()) {
    if (p.job == 0) {
      EXPECT_TRUE(p.late);
      EXPECT_EQ(p.start_bin, inst.bins / 2);  // first bin of the night
    }
  }
}

TEST(BatchPlannerTest, HigherPriorityTakesTheScarceSlotFirst) {
  Instance inst;
  inst.AddNode(16'000, 64 * kGi, std::vector<float>(inst.bins, 8'000), 0);  // 6.4 cores free
  PendingJob low{.type = JobType::kServerless,
                 .task_requests = Resources::Of(4000, kGi),
                 .delay_tolerance_s = 24 * kBin,
                 .duration_estimate_s = 2 * kBin};
  PendingJob high = low;
  high.priority = 5;
  high.submit_time = 100;  // later deadline: priority alone decides
  inst.jobs = {low, high};
  inst.now = 200;
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  ASSERT_EQ(planner.start_now().size(), 1u);
  EXPECT_EQ(planner.start_now()[0].job, 1);
}

TEST(BatchPlannerTest, ReplanKeepsStartedTasksAndDoesNotDoubleCount) {
  Instance inst;
  inst.AddNode(16'000, 64 * kGi, std::vector<float>(inst.bins, 4'000), 0);  // 10.4 cores free
  PendingJob job{.type = JobType::kServerless,
                 .task_requests = Resources::Of(5000, kGi),
                 .tasks = 4,
                 .delay_tolerance_s = 24 * kBin,
                 .duration_estimate_s = 2 * kBin};
  inst.jobs = {job};
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  ASSERT_EQ(planner.start_now().size(), 2u);
  ASSERT_EQ(planner.placements().size(), 4u);
  EXPECT_EQ(planner.placements()[2].start_bin, 2);  // when the first two end
  EXPECT_EQ(planner.placements()[3].start_bin, 2);

  // The two started tasks become running load; one cycle later the other two still wait.
  for (const TaskPlacement& p : planner.start_now()) {
    inst.running.push_back({p.node, job.task_requests, p.start_time + job.duration_estimate_s});
  }
  inst.jobs[0].tasks = 2;
  inst.now += 60;
  planner.Replan(inst.Input());
  ASSERT_EQ(planner.placements().size(), 2u);
  for (const TaskPlacement& p : planner.placements()) EXPECT_EQ(p.start_bin, 2);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 0), Reclaimable(inst, 0, 0, 0) - 10'000);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 2), Reclaimable(inst, 0, 0, 2) - 10'000);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 4), Reclaimable(inst, 0, 0, 4));

  // Jobs added within the same horizon fill what is left without moving the plan.
  PendingJob small = job;
  small.tasks = 1;
  small.task_requests = Resources::Of(400, kGi);
  small.submit_time = inst.now;
  planner.PlanAdditional(inst.now + 30, std::span<const PendingJob>(&small, 1));
  ASSERT_EQ(planner.start_now().size(), 1u);
  EXPECT_EQ(planner.start_now()[0].start_time, inst.now + 30);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 0), Reclaimable(inst, 0, 0, 0) - 10'400);
}

TEST(BatchPlannerTest, ATaskStartedOutsideThePlanKeepsItsRoomFromPlanAdditional) {
  Instance inst;
  inst.AddNode(16'000, 64 * kGi, std::vector<float>(inst.bins, 4'000), 0);  // 10.4 cores free
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  // Started by someone else for two bins: 8 of the 10.4 cores.
  planner.AddRunning({.node = 0, .requests = Resources::Of(8000, kGi), .end_time = 2 * kBin});
  planner.AddRunning({.node = 7, .requests = Resources::Of(8000, kGi), .end_time = kBin});
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 1), Reclaimable(inst, 0, 0, 1) - 8000);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 2), Reclaimable(inst, 0, 0, 2));
  PendingJob job{.type = JobType::kServerless,
                 .task_requests = Resources::Of(4000, kGi),
                 .delay_tolerance_s = 24 * kBin,
                 .duration_estimate_s = kBin};
  planner.PlanAdditional(60, std::span<const PendingJob>(&job, 1));
  EXPECT_TRUE(planner.start_now().empty());
  ASSERT_EQ(planner.placements().size(), 1u);
  EXPECT_EQ(planner.placements()[0].start_bin, 2);  // when the other task ends
}

// A started task that ends gives its room back at once, to the unit, in the bins it held; a new
// job then starts now instead of after the task's estimated end.
TEST(BatchPlannerTest, ATaskThatEndsGivesItsRoomBackAtOnce) {
  Instance inst;
  inst.AddNode(16'000, 64 * kGi, std::vector<float>(inst.bins, 4'000), 0);  // 10.4 cores free
  inst.running = {{.node = 0, .requests = Resources::Of(8000, kGi), .end_time = 2 * kBin}};
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 1), Reclaimable(inst, 0, 0, 1) - 8000);
  planner.AddRunning({.node = 0, .requests = Resources::Of(1000, kGi), .end_time = kBin});
  planner.RemoveRunning(inst.running[0]);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 0), Reclaimable(inst, 0, 0, 0) - 1000);
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 1), Reclaimable(inst, 0, 0, 1));
  EXPECT_EQ(planner.Free(0, Dim::kMemory, 0), Reclaimable(inst, 0, 1, 0) - kGi);
  PendingJob job{.type = JobType::kOffline,
                 .task_requests = Resources::Of(8000, kGi),
                 .delay_tolerance_s = kBin,
                 .duration_estimate_s = kBin};
  planner.PlanAdditional(60, std::span<const PendingJob>(&job, 1));
  ASSERT_EQ(planner.start_now().size(), 1u);
}

TEST(BatchPlannerTest, BinsOfThePeriodicProfileFollowTheClock) {
  Instance inst;
  std::vector<float> curve(inst.bins, 0.0f);
  curve[5] = 15'000;  // the service peaks in the sixth bin of every period
  inst.AddNode(16'000, 64 * kGi, curve, 0);
  inst.now = 3 * kBin + 10;  // bin 0 of the plan is bin 3 of the period
  PendingJob job{.type = JobType::kServerless,
                 .task_requests = Resources::Of(4000, kGi),
                 .delay_tolerance_s = 24 * kBin,
                 .duration_estimate_s = kBin};
  inst.jobs = {job};
  BatchPlanner planner(inst.Options());
  planner.Replan(inst.Input());
  EXPECT_EQ(planner.Free(0, Dim::kCpu, 2), Reclaimable(inst, 0, 0, 2));
  EXPECT_LT(planner.Free(0, Dim::kCpu, 2), 0);
  // Starting now (10 s into the bin) the run spills into bin 1, which is free.
  ASSERT_EQ(planner.start_now().size(), 1u);
}

TEST(YieldTest, ThrottlesCpuAndEvictsFewestTasksLeastProgressFirst) {
  const Resources capacity = Resources::Of(10'000, 100 * kGi);
  // Services burst to 7 cores and 70 GiB: batch may keep 2 cores and 20 GiB.
  const std::array<double, kNumDims> service = {7000, 70.0 * kGi, 0, 0, 0};
  std::vector<YieldingTask> tasks = {
      {{1000, 4.0 * kGi, 0, 0, 0}, 50},    // small, little progress
      {{1000, 12.0 * kGi, 0, 0, 0}, 900},  // large, much progress
      {{1000, 12.0 * kGi, 0, 0, 0}, 300},  // large, some progress
      {{1000, 3.0 * kGi, 0, 0, 0}, 10},    // small, least progress
  };
  // 31 GiB of batch against 20 allowed: one 12 GiB task suffices; the one with less progress goes.
  YieldDecision d = YieldToServices(service, tasks, capacity);
  EXPECT_EQ(d.evict, (std::vector<int32_t>{2}));
  EXPECT_DOUBLE_EQ(d.throttle, 2000.0 / 3000.0);

  // No memory pressure: throttling alone.
  const std::array<double, kNumDims> calm = {8500, 10.0 * kGi, 0, 0, 0};
  d = YieldToServices(calm, tasks, capacity);
  EXPECT_TRUE(d.evict.empty());
  EXPECT_DOUBLE_EQ(d.throttle, 500.0 / 4000.0);

  // Room for everything: nothing yields.
  const std::array<double, kNumDims> idle = {1000, 10.0 * kGi, 0, 0, 0};
  d = YieldToServices(idle, tasks, capacity);
  EXPECT_TRUE(d.evict.empty());
  EXPECT_DOUBLE_EQ(d.throttle, 1.0);

  // Two victims needed (deficit 24 GiB): the two large tasks are the only pair that covers it.
  const std::array<double, kNumDims> worse = {7000, 83.0 * kGi, 0, 0, 0};
  d = YieldToServices(worse, tasks, capacity);
  EXPECT_EQ(d.evict, (std::vector<int32_t>{1, 2}));
}

}  // namespace
}  // namespace archimedes
