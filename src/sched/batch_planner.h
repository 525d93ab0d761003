// The batch planner (DESIGN §4, docs/batch.md): plans delay-tolerant batch and serverless tasks
// onto (node, start bin) over a horizon of *reclaimable* capacity, so that tasks fill the fragments
// and the valleys that long-running services leave, ahead of time, while every task starts within
// its delay tolerance.
//
// Time is cut into bins of `bin_seconds`; bin 0 is the bin holding `now` (the plan's origin is the
// start of that bin). For node n, tracked dimension d and bin b the planner keeps
//
//   free(n, d, b) = floor(capacity × (1 − buffer) − predicted service usage)
//                   − load of started tasks − load of planned tasks
//
// and a task is planned at (n, s) only if its requests fit `free` in every tracked dimension over
// every bin it occupies: planned usage never enters the burst buffer. A task occupies its requests
// (not its expected usage) for ceil(duration_estimate / bin_seconds) bins; one that starts now
// occupies every bin up to now + duration_estimate. Service requests play no part: batch runs on
// what services reserve but do not use.
//
// Order: higher priority first, then earliest deadline (submit + tolerance) first. Serverless
// tasks take the earliest feasible start (best fit among the nodes offering it); offline tasks take
// the feasible (node, start) of least cost (best fit + valley preference, see PlannerOptions).
// Gang jobs start all their tasks at one start bin or none. Tasks that cannot start by their
// deadline within the horizon are reported late and then planned best-effort at the earliest
// start after it (within PlannerOptions::late_window_bins). Replan rebuilds everything from the
// caller's state (started tasks are fixed load; planned-but-not-started tasks may move);
// PlanAdditional adds jobs to the current plan, AddRunning a task started outside it.
//
// Cost: O(nodes × dims × bins) to rebuild, then per job a bounded number of candidate nodes
// (per-node envelopes reject the others in O(dims)); no allocation per task once warm.
#ifndef ARCHIMEDES_SCHED_BATCH_PLANNER_H_
#define ARCHIMEDES_SCHED_BATCH_PLANNER_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/cluster_state.h"
#include "model/resources.h"
#include "model/workload.h"
#include "sched/reclaimable.h"

namespace archimedes {

struct PlannerOptions {
  int64_t bin_seconds = 300;
  int horizon_bins = 288;  // starts are planned within [now, origin + horizon_bins × bin_seconds)
  double buffer = kDefaultBurstBuffer;
  // The dimensions planned; requests in other dimensions are not checked.
  std::vector<Dim> dims = {Dim::kCpu, Dim::kMemory};
  // Nodes offering a feasible start that are compared per job (scanned in rotating order, as
  // kube-scheduler's percentageOfNodesToScore); the earliest start of serverless tasks is exact
  // over all nodes regardless.
  int candidate_nodes = 32;
  // Offline cost of (n, s) = leftover + valley_weight × pressure + delay_weight × delay, where
  // leftover is the largest share of usable capacity left free in any dimension at the tightest
  // bin of the run (best fit; a dimension left stranded counts fully), pressure is the mean
  // predicted service share of the node over the run (valleys are low), and delay is
  // (s − earliest) / horizon. valley_weight > 1 makes a valley win over a tight fit at a peak.
  double valley_weight = 2.0;
  double delay_weight = 0.05;
  // Within one planning call, a job whose tasks need at least as much as one that found no start
  // at all, over a run at least as long, in a window inside that one, is not scanned: the
  // landscape only fills as jobs are planned, so it finds none either. The plan is exactly the one
  // without it (tested); off only for that test. An overloaded queue is where it saves the scans.
  bool skip_known_failures = true;
  // Late tasks (after their deadline) are planned at starts within this many bins from now;
  // 0 = anywhere in the horizon. A caller that re-plans every bin acts only on the starts in the
  // current bin, and 1 spares it the search for later ones, which is most of a re-plan's work
  // when the queue is overloaded.
  int late_window_bins = 0;
};

// Tasks of one job still to start; all identical.
struct PendingJob {
  JobType type = JobType::kOffline;
  Resources task_requests;
  int tasks = 1;
  bool gang = false;  // all `tasks` start at one start bin or none does
  int priority = 0;
  int64_t submit_time = 0;
  int64_t delay_tolerance_s = 0;
  int64_t duration_estimate_s = 60;

  static PendingJob From(const BatchJob& job, int tasks_pending, bool gang);
};

// A started task: fixed load from bin 0 through the bin holding end_time − 1 (at least bin 0).
struct RunningTask {
  NodeId node = -1;
  Resources requests;
  int64_t end_time = 0;
};

struct PlannerInput {
  int64_t now = 0;
  std::span<const Resources> capacity;   // per node
  std::span<const uint8_t> schedulable;  // per node, 0 = plan nothing there; empty = all nodes
  // Per node, 1 where a service replica runs: only there is the burst buffer kept (nothing bursts
  // on a node without services). Empty = every node keeps it.
  std::span<const uint8_t> hosts_services;
  // Predicted service usage (a high quantile), nodes × kNumDims × usage_bins floats, node-major
  // then dimension. Periodic with absolute indexing: the bin holding time t reads entry
  // (t / bin_seconds) mod usage_bins, so a daily time-of-day curve has usage_bins = 86400 /
  // bin_seconds.
  std::span<const float> service_usage;
  int usage_bins = 288;
  // Optional measured service usage now, nodes × kNumDims: bin 0 uses max(predicted, measured).
  std::span<const float> observed_service_usage;
  // Optional, per node: room kept for serverless tasks. Offline tasks are planned only where this
  // much stays free beside them in every bin, so that serverless tasks, which tolerate seconds,
  // find room the moment they arrive instead of waiting for offline tasks to end. Empty = none.
  std::span<const Resources> serverless_reserve;
  std::span<const RunningTask> running;
  std::span<const PendingJob> pending;
};

struct TaskPlacement {
  int32_t job = -1;  // index into the jobs being planned
  NodeId node = -1;
  int32_t start_bin = 0;   // relative to the plan's origin; the bin of `now` means "start now"
  int64_t start_time = 0;  // now for the current bin, else the bin's start
  bool late = false;       // after the job's deadline: its tolerance can no longer be met
};

struct JobOutcome {
  int planned = 0;   // tasks with a placement (on time or late)
  int late = 0;      // of which planned after the deadline
  int unplaced = 0;  // tasks with no room anywhere in the horizon
  // True when some task cannot start by submit + tolerance (late, or unplaced with the deadline
  // inside the horizon): the caller should reject or warn.
  bool tolerance_missed = false;
};

class BatchPlanner {
 public:
  explicit BatchPlanner(PlannerOptions options = {});

  // Rebuilds reclaimable capacity from `input` and plans every pending job from scratch.
  // Throws std::invalid_argument when the spans' sizes do not match the node count.
  void Replan(const PlannerInput& input);

  // Plans `jobs` into what the current plan leaves free, moving nothing already planned; the
  // results replace the previous ones and index into `jobs`. `now` must lie in the horizon of the
  // last Replan (throws std::invalid_argument otherwise); starts before the bin of `now` are not
  // used, and a run longer than the landscape holds is cut at its end until the next Replan.
  void PlanAdditional(int64_t now, std::span<const PendingJob> jobs);

  // Counts a task started outside the plan (by a greedy path) as running load, as Replan would,
  // so that PlanAdditional does not hand its room to another. A node outside the plan is ignored.
  void AddRunning(const RunningTask& task);
  // A started task (counted by Replan, AddRunning, or planned and started now) has ended: its
  // room is free again at once, not only from the next Replan. `task` as it was counted: its end
  // time is its start plus its duration estimate.
  void RemoveRunning(const RunningTask& task);

  // Every placement of the last call, in planning order.
  std::span<const TaskPlacement> placements() const { return placements_; }
  // The placements whose start is now: start these tasks on their node.
  std::span<const TaskPlacement> start_now() const { return start_now_; }
  // Per job of the last call.
  std::span<const JobOutcome> outcomes() const { return outcomes_; }
  // Jobs of the last call whose tolerance can no longer be met, in planning order.
  std::span<const int32_t> late_jobs() const { return late_jobs_; }

  // Reclaimable capacity left by the plan (never negative where tasks are planned); the maximum
  // int64 for untracked dimensions. `bin` in [0, landscape_bins()), relative to origin().
  int64_t Free(NodeId n, Dim d, int bin) const;
  int64_t origin() const { return origin_; }
  // Bins held: the horizon plus room for the longest planned run to end.
  int landscape_bins() const { return bins_; }
  const PlannerOptions& options() const { return options_; }

 private:
  struct Window;  // one job's start range and run lengths
  struct Candidate {
    NodeId node;
    int32_t start;
    double cost;
  };

  void Rebuild(const PlannerInput& input);
  // Takes `task` off the landscape (with `sign` −1, gives it back; not the envelopes); returns the
  // end of its run in bins, 0 for a node outside the plan.
  int SubtractRunning(const RunningTask& task, int sign = 1);
  void PlanJobs(int64_t now, std::span<const PendingJob> jobs);
  Window WindowOf(const PendingJob& job) const;
  // The tasks of `job` planned in [w.first, last]; returns how many were placed.
  int PlanEarliest(int32_t j, const Window& w, int last, int tasks, bool late);
  int PlanOffline(int32_t j, const Window& w, int tasks);
  int PlanGang(int32_t j, const PendingJob& job, const Window& w, int last, bool late);

  // What a task of the current job needs free on node n in slot a: its request, plus the
  // serverless reserve when the job is offline.
  int64_t Need(NodeId n, int a) const {
    return need_[a] + (reserving_ ? reserve_[static_cast<size_t>(n) * dims_ + a] : 0);
  }
  bool EnvelopeAdmits(NodeId n) const;
  // The current job (need_, reserving_) over [first, last] of `w`: known to find no start.
  bool KnownToFail(const Window& w, int first, int last) const;
  void RememberFailure(const Window& w, int first, int last);
  int64_t WindowMin(int row, int begin, int end) const;
  int LastBlocker(int row, int64_t need, int begin, int end) const;
  bool Fits(NodeId n, int begin, int end) const;
  // Earliest start in [from, last] of node n, or -1.
  int EarliestStart(NodeId n, const Window& w, int from, int last) const;
  double Leftover(NodeId n, int begin, int end) const;
  // The least-cost offline start on node n, or start −1.
  Candidate BestOfflineStart(NodeId n, const Window& w);
  int RunEnd(const Window& w, int start) const;
  void Place(int32_t j, NodeId n, int start, int end, bool late);
  void RefreshEnvelope(NodeId n, int begin, int end);

  PlannerOptions options_;
  int dims_ = 0;  // tracked dimensions
  int nodes_ = 0;
  int bins_ = 0;  // landscape bins
  int blocks_ = 0;
  int64_t origin_ = 0;
  int64_t now_ = 0;
  int current_bin_ = 0;
  std::vector<uint8_t> schedulable_;
  std::vector<int64_t> free_;       // [node][dim][bin]
  std::vector<int64_t> block_min_;  // [node][dim][block]
  std::vector<int64_t> block_max_;
  std::vector<int64_t> node_max_;       // [node][dim]: the most free in any bin
  std::vector<double> inverse_usable_;  // [node][dim]
  std::vector<float> pressure_prefix_;  // [node][bin + 1]: prefix sums of service share
  std::vector<int> dim_slot_;           // per Dim: tracked slot or −1
  std::vector<int64_t> reserve_;        // [node][dim]: the serverless reserve

  // Per-job request in tracked slots, and scratch reused across jobs.
  std::vector<int64_t> need_;
  // delay_weight × k / horizon_bins: the delay term of a start k bins after the window's first
  // (a job's on-time starts lie in the horizon, so k < horizon_bins).
  std::vector<double> delay_cost_;
  bool reserving_ = false;  // the current job keeps the serverless reserve free
  std::vector<int32_t> order_;
  std::vector<Candidate> candidates_;
  std::vector<int64_t> prefix_min_, suffix_min_;  // BestOfflineStart's window minima
  std::vector<double> start_leftover_;            // BestOfflineStart, per start
  std::vector<uint8_t> start_fits_;
  std::vector<std::pair<NodeId, int>> gang_nodes_;
  int rotation_ = 0;
  // Jobs that found no start in [first, last], this planning call (skip_known_failures).
  struct Failure {
    std::array<int64_t, kNumDims> need{};
    bool reserving = false;
    int first = 0, last = 0, run = 0, run_now = 0;
  };
  static constexpr size_t kMaxFailures = 32;
  std::vector<Failure> failures_;

  std::vector<TaskPlacement> placements_, start_now_;
  std::vector<JobOutcome> outcomes_;
  std::vector<int32_t> late_jobs_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_BATCH_PLANNER_H_
