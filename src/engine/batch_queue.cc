#include "engine/batch_queue.h"

#include <array>

#include "engine/core.h"

namespace archimedes {
namespace {

// The groups the queue offers room to with an urgency window (BatchPlacement::UrgencyWindow), in
// order (BatchQueue::kUrgencies of them).
enum Urgency : int {
  kMissesDeadlineSoon = 0,  // in time, but late within the window
  kGivenUpSoon = 1,         // late, and its submitter gives up within the window
  kInTime = 2,
  kLate = 3,
};
static_assert(kLate + 1 == BatchQueue::kUrgencies);

int UrgencyOf(const BatchJob& job, const JobRun& run, int64_t now, int64_t window) {
  const int64_t deadline = job.submit_time + job.delay_tolerance_s;
  if (now <= deadline) return deadline - now <= window ? kMissesDeadlineSoon : kInTime;
  return run.give_up_at - now <= window ? kGivenUpSoon : kLate;
}

}  // namespace

void BatchQueue::Place(EngineCore& core) {
  const BatchPlacement& batch = core.batch_placement();
  RecomputeEnvelope(core);
  room_measured_ = false;
  failed_shapes_.clear();
  Resources freed_envelope;
  for (NodeId n : core.freed_nodes) {
    core.node_freed[n] = 0;
    if (core.state().ready(n)) freed_envelope = Max(freed_envelope, batch.TaskRoom(core, n));
  }
  core.freed_nodes.clear();
  const bool unpark_all = core.unpark_all;
  core.unpark_all = false;
  const int64_t urgency_window = batch.UrgencyWindow();
  for (auto& [priority, queue] : core.job_queue()) {
    // The jobs with tasks to start, by Urgency, each group in arrival order; without a window one
    // group holds them all.
    for (std::vector<int32_t>& group : by_urgency_) group.clear();
    for (int32_t j : queue) {
      core.ExpireJob(j);
      const JobRun& run = core.job_run(j);
      if (run.pending <= 0) continue;
      by_urgency_[urgency_window > 0 ? UrgencyOf(core.job(j), run, core.now(), urgency_window)
                                     : kLate]
          .push_back(j);
    }
    for (const std::vector<int32_t>& group : by_urgency_) {
      for (int32_t j : group) {
        JobRun& run = core.job_run(j);
        const BatchJob& job = core.job(j);
        // Tasks the strategy does not place greedily start between its plans only where capacity
        // has just been freed, not to leave it idle.
        bool may_fit = run.greedy && (!run.parked || unpark_all);
        if (!may_fit) {
          may_fit = true;
          for (Dim d : kRequestDims) may_fit = may_fit && job.task_requests[d] <= freed_envelope[d];
        }
        if (may_fit) run.parked = !PlaceJob(core, j) && run.pending > 0;
      }
    }
    size_t keep = 0;
    for (int32_t j : queue) {
      JobRun& run = core.job_run(j);
      if (run.pending > 0) {
        queue[keep++] = j;
      } else {
        run.queued = false;
      }
    }
    queue.resize(keep);
  }
}

bool BatchQueue::PlaceJob(EngineCore& core, int32_t j) {
  const BatchJob& job = core.job(j);
  JobRun& run = core.job_run(j);
  BatchPlacement& batch = core.batch_placement();
  const TaskShape shape{.requests = job.task_requests, .run = batch.RunNeedsOf(core, job)};
  if (!EnvelopeAdmits(shape)) return false;
  if (!room_measured_) MeasureRoom(core);
  const PodRequest pod{.requests = job.task_requests,
                       .priority = job.priority,
                       .kind = OwnerKind::kTask,
                       .owner = j,
                       .duration_estimate_s = job.duration_estimate_s,
                       .serverless = job.type == JobType::kServerless};
  const bool all_or_nothing = job.gang && run.running == 0 && run.finished == 0;
  const int first_started_before = run.first_started;
  started_.clear();
  memo_.Reset();  // nothing leaves a node while this job's tasks are placed
  // A single task has no second scan to spare: recording verdicts would be work for nothing.
  FeasibilityMemo* memo = run.pending > 1 ? &memo_ : nullptr;
  while (run.pending > 0) {
    const NodeId node = core.Decide(batch.scheduler(), pod, memo, room_);
    if (node < 0) {
      // A gang's starts are taken back below: its failure, on a fleet holding them, rules out
      // nothing once they are gone.
      if (!all_or_nothing || started_.empty()) AddFailedShape(shape);
      break;
    }
    started_.push_back(core.StartTask(j, node));
    if (memo != nullptr) memo->Placed(node);
  }
  if (all_or_nothing && run.pending > 0) {
    core.UndoStarts(j, started_, first_started_before);
    return false;
  }
  batch.StartedGreedily(core, job, started_);
  return run.pending == 0;
}

void BatchQueue::RecomputeEnvelope(const EngineCore& core) {
  envelope_ = core.batch_placement().Envelope(core);
}

void BatchQueue::MeasureRoom(const EngineCore& core) {
  room_measured_ = true;
  room_.clear();
  const SchedulingContext ctx = core.Context();
  if (ctx.batch_allocatable.empty()) return;
  room_.resize(ctx.batch_allocatable.size());
  for (size_t n = 0; n < room_.size(); ++n) {
    const Resources& tasks = ctx.state.task_requested(static_cast<NodeId>(n));
    room_[n] = {ctx.batch_allocatable[n].cpu() - tasks.cpu() +
                    (ctx.borrowable_cpu.empty() ? 0 : ctx.borrowable_cpu[n]),
                ctx.batch_allocatable[n].memory() - tasks.memory()};
  }
}

// Keeps only the minimal failed shapes: a shape that dominates a failed one fails too.
void BatchQueue::AddFailedShape(const TaskShape& shape) {
  for (const TaskShape& f : failed_shapes_) {
    if (Dominates(shape, f)) return;
  }
  std::erase_if(failed_shapes_, [&](const TaskShape& f) { return Dominates(f, shape); });
  failed_shapes_.push_back(shape);
}

}  // namespace archimedes
