#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/batch_placement.h"
#include "engine/core.h"
#include "engine/reclaimed_capacity.h"
#include "sched/batch_planner.h"
#include "sched/batch_schedulers.h"
#include "sched/plugins/time_aware_batch_fit.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

using Clock = std::chrono::steady_clock;

// The serverless reserve: the peak, over the last hour, of the requests of serverless tasks
// running or waiting, spread over the ready nodes in proportion to their capacity.
constexpr int64_t kServerlessWindow = 3600;

// The planner plans cpu and memory; tasks that request a GPU go the greedy way, whose filter
// checks unrequested GPU (GPUs are not reclaimed).
bool Planned(const BatchJob& job) { return job.task_requests[Dim::kGpu] == 0; }

class PlannedBatch final : public BatchPlacement {
 public:
  PlannedBatch(double buffer, double serverless_cpu_borrow, uint64_t seed)
      : buffer_(buffer),
        borrow_(serverless_cpu_borrow),
        capacity_(buffer, /*buffer_only_under_services=*/true),
        scheduler_(MakeTimeAwareBatchScheduler(seed)) {
    // A task that starts must take more CPU than it lets serverless tasks borrow: the batch
    // queue's room (SchedulingContext::batch_room) relies on room only shrinking as tasks start.
    if (!(serverless_cpu_borrow >= 0 && serverless_cpu_borrow <= 1)) {
      throw std::invalid_argument("serverless CPU borrow must be within [0, 1], got " +
                                  std::to_string(serverless_cpu_borrow));
    }
  }

  TaskAccounting accounting() const override { return TaskAccounting::kReclaimed; }
  bool uses_profiles() const override { return true; }
  RunNeeds RunNeedsOf(const EngineCore& core, const BatchJob& job) const override {
    return {.bins = RunBins(*core.predicted(), job.duration_estimate_s),
            .serverless = job.type == JobType::kServerless};
  }
  Scheduler& scheduler() override { return scheduler_; }

  void Start(EngineCore& core) override {
    const int nodes = core.state().num_nodes();
    capacity_.Resize(nodes);
    offline_cpu_.resize(nodes);
    borrowable_cpu_.resize(nodes);
    // One planner bin per profile bin, so the predicted curve is read bin for bin over a day.
    const int64_t bin_seconds = kSecondsPerDay / core.predicted()->bins();
    planner_.emplace(PlannerOptions{.bin_seconds = bin_seconds,
                                    .horizon_bins = static_cast<int>(kSecondsPerDay / bin_seconds),
                                    .buffer = buffer_,
                                    // Re-planned every bin: only late starts now are acted on.
                                    .late_window_bins = 1});
    replan_ = true;
  }

  void NodeAdded(NodeId n) override {
    capacity_.Resize(n + 1);
    offline_cpu_.push_back(0);
    borrowable_cpu_.push_back(0);
  }
  void FleetChanged() override { replan_ = true; }

  void FillContext(SchedulingContext& ctx) const override {
    ctx.batch_allocatable = capacity_.allocatable();
    ctx.serverless_reserve = serverless_reserve_;
    ctx.borrowable_cpu = borrowable_cpu_;
  }

  Resources TaskRoom(const EngineCore& core, NodeId n) const override {
    Resources room = core.state().node(n).capacity - core.state().task_requested(n);
    room[Dim::kCpu] += borrowable_cpu_[n];
    return room;
  }

  Resources Envelope(const EngineCore& core) const override {
    return RoomEnvelope(core.state(), [&](NodeId n) { return TaskRoom(core, n); });
  }

  // Serverless tasks tolerate seconds: they cannot wait for the next re-plan.
  bool Greedy(const BatchJob& job) const override {
    return job.type == JobType::kServerless || !Planned(job);
  }

  // Room freed between re-plans goes first to what would be lost before the next re-plan could
  // plan it; a late task never takes it from one that can still start in time unless its
  // submitter is about to give up on it.
  int64_t UrgencyWindow() const override { return planner_->options().bin_seconds; }

  bool Due(const EngineCore& core) const override {
    return replan_ || PlanBin(core.now()) != planned_bin_;
  }

  // A full re-plan at every bin boundary and whenever the fleet changed (planned tasks that have
  // not started move as reality diverges from the prediction); in between, only the tasks the plan
  // does not hold yet are added to it. The tasks planned to start now start now.
  void Plan(EngineCore& core) override {
    capacity_.EstimateUnobserved(core.state());
    ReportPassedDeadlines(core);
    const bool full = Due(core);
    CollectPending(core, full);
    if (!full && pending_.empty()) return;
    const auto start = Clock::now();
    if (full) {
      planner_->Replan(InputNow(core));
      planned_bin_ = PlanBin(core.now());
      replan_ = false;
    } else {
      planner_->PlanAdditional(core.now(), pending_);
    }
    core.TimePlan(std::chrono::duration<double, std::micro>(Clock::now() - start).count(), full);
    placed_owner_.assign(pending_owner_.begin(), pending_owner_.end());
    KeepPlan(core, full);
    // Lateness is reported whenever a plan puts a start past its tolerance (issue 15), before any
    // task starts late — also by PlanAdditional, which fits new jobs into what the plan leaves,
    // though the next full re-plan, planning every pending job by deadline, may then find one a
    // start in time after all.
    ReportLate(core);
    StartPlanned(core);
  }

  std::span<const PlannedTask> plan() const override { return plan_; }

  // Started outside the plan: counted in it, so that PlanAdditional does not give their room away.
  void StartedGreedily(EngineCore& core, const BatchJob& job,
                       std::span<const ContainerId> started) override {
    for (ContainerId id : started) {
      planner_->AddRunning(RunningTask{.node = core.state().container(id).node,
                                       .requests = job.task_requests,
                                       .end_time = core.now() + job.duration_estimate_s});
    }
  }

  // Keeps the tallies by task type: serverless demand, and the CPU serverless tasks may borrow.
  void CountTask(const BatchJob& job, NodeId n, int sign) override {
    if (job.type == JobType::kServerless) {
      if (sign > 0) {
        serverless_running_ += job.task_requests;
        serverless_peak_ = Max(serverless_peak_, serverless_running_);
      } else {
        serverless_running_ -= job.task_requests;
      }
      return;
    }
    offline_cpu_[n] += sign * job.task_requests.cpu();
    borrowable_cpu_[n] = static_cast<int64_t>(static_cast<double>(offline_cpu_[n]) * borrow_);
  }

  // Its room is free for the rest of its estimated run: a task that ends early does not hold it
  // until the next re-plan.
  void TaskEnded(const BatchJob& job, const Container& c) override {
    planner_->RemoveRunning(RunningTask{.node = c.node,
                                        .requests = c.requests,
                                        .end_time = c.start_time + job.duration_estimate_s});
  }

  void BeginUsageRound(EngineCore& core) override { SampleServerlessDemand(core); }

  bool observes_services() const override { return true; }
  void ObserveServices(EngineCore& core, NodeId n, const Usage& usage) override {
    if (core.state().ready(n)) capacity_.Observe(core.state(), n, usage);
    observed_service_.resize(static_cast<size_t>(core.state().num_nodes()) * kNumDims);
    std::copy(usage.begin(), usage.end(), &observed_service_[static_cast<size_t>(n) * kNumDims]);
  }

  void EndUsageRound() override { capacity_.Advance(); }

  // Batch CPU stops at the buffer; serverless tasks that borrow CPU from offline ones are served
  // first, and the offline tasks get the rest.
  BatchLimits Limits(const EngineCore& core, NodeId n) const override {
    return {.cpu = static_cast<double>(core.state().node(n).capacity.cpu()) * (1.0 - buffer_),
            .serverless_first = borrow_ > 0};
  }

 private:
  int64_t PlanBin(int64_t t) const { return t / planner_->options().bin_seconds; }

  // The jobs to plan: every pending task for a full re-plan, else those the plan does not hold.
  void CollectPending(EngineCore& core, bool full) {
    pending_.clear();
    pending_owner_.clear();
    for (const auto& [priority, queue] : core.job_queue()) {
      for (int32_t j : queue) {
        JobRun& run = core.job_run(j);
        Watch(core, j);
        core.ExpireJob(j);
        const int tasks = full ? run.pending : std::min(run.unplanned, run.pending);
        run.unplanned = 0;
        if (tasks <= 0) continue;
        const BatchJob& job = core.job(j);
        if (!Planned(job)) continue;
        const bool gang = job.gang && run.running == 0 && run.finished == 0 && tasks == run.pending;
        pending_.push_back(PendingJob::From(job, tasks, gang));
        pending_owner_.push_back(j);
      }
    }
  }

  PlannerInput InputNow(const EngineCore& core) {
    const ClusterState& state = core.state();
    const int nodes = state.num_nodes();
    plan_capacity_.resize(nodes);
    plan_schedulable_.resize(nodes);
    plan_hosts_services_.assign(nodes, 0);
    observed_service_.resize(static_cast<size_t>(nodes) * kNumDims);
    plan_running_.clear();
    for (NodeId n = 0; n < nodes; ++n) {
      plan_capacity_[n] = state.node(n).capacity;
      plan_schedulable_[n] = state.ready(n);
      for (ContainerId id : state.containers_on(n)) {
        const Container& c = state.container(id);
        if (c.kind != OwnerKind::kTask) {
          plan_hosts_services_[n] = 1;
          continue;
        }
        plan_running_.push_back(
            RunningTask{.node = n,
                        .requests = c.requests,
                        .end_time = c.start_time + core.job(c.owner).duration_estimate_s});
      }
    }
    UpdateServerlessReserve(state);
    // The node-level quantile (PredictedLoad keeps it as one contiguous nodes × kNumDims × bins
    // array, the layout the planner reads): batch needs the node's total under the buffer, not
    // each resident at its own high quantile at once.
    const PredictedLoad& predicted = *core.predicted();
    return PlannerInput{.now = core.now(),
                        .capacity = plan_capacity_,
                        .schedulable = plan_schedulable_,
                        .hosts_services = plan_hosts_services_,
                        .service_usage = predicted.node_quantiles(),
                        .usage_bins = predicted.bins(),
                        .observed_service_usage = observed_service_,
                        .serverless_reserve = serverless_reserve_,
                        .running = plan_running_,
                        .pending = pending_};
  }

  void SampleServerlessDemand(const EngineCore& core) {
    Resources demand = serverless_running_;
    for (const auto& [priority, queue] : core.job_queue()) {
      for (int32_t j : queue) {
        const BatchJob& job = core.job(j);
        if (job.type != JobType::kServerless) continue;
        for (int d = 0; d < kNumDims; ++d) {
          demand.amount[d] += job.task_requests.amount[d] * core.job_run(j).pending;
        }
      }
    }
    const int64_t now = core.now();
    while (!serverless_demand_.empty() &&
           serverless_demand_.front().first <= now - kServerlessWindow) {
      serverless_demand_.pop_front();
    }
    serverless_demand_.emplace_back(now, Max(demand, serverless_peak_));
    serverless_peak_ = serverless_running_;
  }

  void UpdateServerlessReserve(const ClusterState& state) {
    Resources peak;
    for (const auto& [time, demand] : serverless_demand_) peak = Max(peak, demand);
    Resources ready_capacity;
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      if (state.ready(n)) ready_capacity += state.node(n).capacity;
    }
    serverless_reserve_.assign(state.num_nodes(), Resources{});
    // Serverless tasks that borrow CPU from offline ones find the reserve's CPU by throttling
    // them: offline tasks then keep only the rest of the reserve free.
    const bool borrowing = borrow_ > 0;
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      if (!state.ready(n)) continue;
      for (Dim d : kAllDims) {
        if (ready_capacity[d] <= 0 || (borrowing && d == Dim::kCpu)) continue;
        serverless_reserve_[n][d] = static_cast<int64_t>(std::ceil(
            static_cast<double>(peak[d]) * static_cast<double>(state.node(n).capacity[d]) /
            static_cast<double>(ready_capacity[d])));
      }
    }
  }

  // The places of the tasks that do not start now: a full re-plan replaces them all, a
  // PlanAdditional adds those of the jobs it planned.
  void KeepPlan(const EngineCore& core, bool full) {
    if (full) plan_.clear();
    for (const TaskPlacement& p : planner_->placements()) {
      if (p.start_time <= core.now()) continue;
      const int32_t j = pending_owner_[p.job];
      plan_.push_back(PlannedTask{.job = j,
                                  .node = p.node,
                                  .start = p.start_time,
                                  .end = p.start_time + core.job(j).duration_estimate_s,
                                  .late = p.late});
    }
  }

  // Gang jobs are planned at one start bin or not at all, so their tasks start here all together.
  void StartPlanned(EngineCore& core) {
    const std::span<const TaskPlacement> starts = planner_->start_now();
    for (size_t i = 0; i < starts.size();) {
      const int32_t j = pending_owner_[starts[i].job];
      const JobRun& run = core.job_run(j);
      for (; i < starts.size() && pending_owner_[starts[i].job] == j; ++i) {
        if (run.pending > 0) core.StartTask(j, starts[i].node);
      }
    }
  }

  // Late jobs still run, best effort; the report comes once per job, as early as the plan knows,
  // with when the plan now starts the first of their late tasks.
  void ReportLate(EngineCore& core) {
    const std::span<const int32_t> late = planner_->late_jobs();
    if (late.empty()) return;
    const std::span<const int64_t> expected = ExpectedStarts(/*late_only=*/true);
    for (int32_t p : late) {
      const int32_t j = pending_owner_[p];
      JobRun& run = core.job_run(j);
      if (run.reported_late) continue;
      run.reported_late = true;
      const JobOutcome& outcome = planner_->outcomes()[p];
      core.ReportLate(j, outcome.late + outcome.unplaced, expected[p]);
    }
  }

  // Per job of the last planner call, the earliest start the plan gives its tasks, or only its
  // late ones (-1: none).
  std::span<const int64_t> ExpectedStarts(bool late_only) {
    expected_start_.assign(placed_owner_.size(), -1);
    for (const TaskPlacement& p : planner_->placements()) {
      if (late_only && !p.late) continue;
      int64_t& first = expected_start_[p.job];
      if (first < 0 || p.start_time < first) first = p.start_time;
    }
    return expected_start_;
  }

  // Every job the planner sees is watched for its deadline (submit + tolerance), once.
  void Watch(const EngineCore& core, int32_t j) {
    if (static_cast<size_t>(j) >= watched_.size()) watched_.resize(j + 1);
    if (watched_[j]) return;
    watched_[j] = 1;
    const BatchJob& job = core.job(j);
    deadlines_.emplace(job.submit_time + job.delay_tolerance_s, j);
  }

  // A job whose deadline has passed with tasks not started is late whatever a plan says: it is
  // reported before any of them starts.
  void ReportPassedDeadlines(EngineCore& core) {
    bool expected_known = false;
    while (!deadlines_.empty() && deadlines_.top().first < core.now()) {
      const int32_t j = deadlines_.top().second;
      deadlines_.pop();
      JobRun& run = core.job_run(j);
      if (run.reported_late || run.pending == 0) continue;
      run.reported_late = true;
      if (!expected_known) {
        ExpectedStarts(/*late_only=*/false);
        expected_known = true;
      }
      const auto p = std::find(placed_owner_.begin(), placed_owner_.end(), j);
      core.ReportLate(j, run.pending,
                      p == placed_owner_.end() ? -1 : expected_start_[p - placed_owner_.begin()]);
    }
  }

  double buffer_;
  double borrow_;  // the share of offline tasks' CPU serverless tasks may take
  ReclaimedCapacity capacity_;
  Scheduler scheduler_;
  std::optional<BatchPlanner> planner_;
  int64_t planned_bin_ = -1;  // the bin of the last full re-plan
  bool replan_ = true;        // the fleet changed since then
  std::vector<Resources> plan_capacity_;
  std::vector<uint8_t> plan_schedulable_;
  std::vector<uint8_t> plan_hosts_services_;
  std::vector<float> observed_service_;  // nodes × kNumDims: the services' usage this round
  std::vector<RunningTask> plan_running_;
  std::vector<PendingJob> pending_;
  std::vector<int32_t> pending_owner_;  // job of each pending_ entry
  // Job of each entry the planner's placements index: pending_owner_ as of the last planner call
  // (a cycle with nothing to plan collects anew without calling it).
  std::vector<int32_t> placed_owner_;
  std::vector<PlannedTask> plan_;        // in planning order
  std::vector<int64_t> expected_start_;  // per job of the last planner call
  // (deadline, job) of the jobs watched (Watch), earliest first.
  std::priority_queue<std::pair<int64_t, int32_t>, std::vector<std::pair<int64_t, int32_t>>,
                      std::greater<>>
      deadlines_;
  std::vector<uint8_t> watched_;  // per job
  Resources serverless_running_;
  Resources serverless_peak_;  // of serverless_running_ since the last sample
  std::deque<std::pair<int64_t, Resources>> serverless_demand_;  // (round, peak in it)
  std::vector<Resources> serverless_reserve_;
  // Per node, the CPU requested by tasks other than serverless ones, and the share of it
  // serverless tasks may take (the node throttles the others for them).
  std::vector<int64_t> offline_cpu_;
  std::vector<int64_t> borrowable_cpu_;
};

}  // namespace

std::unique_ptr<BatchPlacement> NewPlannedBatch(double buffer, double serverless_cpu_borrow,
                                                uint64_t seed) {
  return std::make_unique<PlannedBatch>(buffer, serverless_cpu_borrow, seed);
}

}  // namespace archimedes
