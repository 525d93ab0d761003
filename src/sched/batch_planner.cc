#include "sched/batch_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace archimedes {
namespace {

// Bins per envelope block: window minima over full blocks cost one read each.
constexpr int kBlock = 16;
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

}  // namespace

struct BatchPlanner::Window {
  int first = 0;         // earliest start bin
  int last_on_time = 0;  // latest start bin within the tolerance; < first when none is left
  int last = 0;          // latest start bin of the horizon
  bool deadline_in_horizon = false;
  int run = 1;      // bins occupied by a task starting after the current bin
  int run_now = 1;  // bins occupied by a task starting now (the current bin is partly gone)
};

PendingJob PendingJob::From(const BatchJob& job, int tasks_pending, bool gang) {
  return PendingJob{.type = job.type,
                    .task_requests = job.task_requests,
                    .tasks = tasks_pending,
                    .gang = gang,
                    .priority = job.priority,
                    .submit_time = job.submit_time,
                    .delay_tolerance_s = job.delay_tolerance_s,
                    .duration_estimate_s = job.duration_estimate_s};
}

BatchPlanner::BatchPlanner(PlannerOptions options) : options_(std::move(options)) {
  if (options_.bin_seconds <= 0 || options_.horizon_bins <= 0 || options_.dims.empty() ||
      options_.candidate_nodes <= 0) {
    throw std::invalid_argument(
        "planner needs positive bin_seconds, horizon_bins, candidate_nodes and some dimension");
  }
  dims_ = static_cast<int>(options_.dims.size());
  dim_slot_.assign(kNumDims, -1);
  for (int a = 0; a < dims_; ++a) dim_slot_[static_cast<int>(options_.dims[a])] = a;
  need_.resize(dims_);
  const double horizon = options_.horizon_bins;
  delay_cost_.resize(options_.horizon_bins);
  for (int k = 0; k < options_.horizon_bins; ++k) {
    delay_cost_[k] = options_.delay_weight * k / horizon;
  }
}

void BatchPlanner::Replan(const PlannerInput& input) {
  Rebuild(input);
  PlanJobs(input.now, input.pending);
}

void BatchPlanner::PlanAdditional(int64_t now, std::span<const PendingJob> jobs) {
  const int64_t bin = FloorDiv(now - origin_, options_.bin_seconds);
  if (bins_ == 0 || bin < 0 || bin >= options_.horizon_bins) {
    throw std::invalid_argument("PlanAdditional at " + std::to_string(now) +
                                " s lies outside the horizon of the last Replan");
  }
  PlanJobs(now, jobs);
}

void BatchPlanner::Rebuild(const PlannerInput& in) {
  const size_t n_nodes = in.capacity.size();
  if (in.usage_bins <= 0 ||
      in.service_usage.size() != n_nodes * kNumDims * static_cast<size_t>(in.usage_bins) ||
      (!in.schedulable.empty() && in.schedulable.size() != n_nodes) ||
      (!in.observed_service_usage.empty() &&
       in.observed_service_usage.size() != n_nodes * kNumDims) ||
      (!in.serverless_reserve.empty() && in.serverless_reserve.size() != n_nodes)) {
    throw std::invalid_argument(
        "planner input: service usage must hold nodes × dims × usage_bins values and the "
        "per-node spans one entry per node");
  }
  const int64_t bs = options_.bin_seconds;
  nodes_ = static_cast<int>(n_nodes);
  origin_ = FloorDiv(in.now, bs) * bs;
  now_ = in.now;
  current_bin_ = 0;

  // Room past the horizon for the longest run that may start in it.
  int64_t longest = 1;
  for (const PendingJob& job : in.pending) {
    longest = std::max(longest, CeilDiv(in.now - origin_ + job.duration_estimate_s, bs));
  }
  bins_ =
      options_.horizon_bins + static_cast<int>(std::min<int64_t>(longest, options_.horizon_bins));
  blocks_ = static_cast<int>(CeilDiv(bins_, kBlock));

  schedulable_.assign(nodes_, 1);
  for (int n = 0; n < nodes_ && !in.schedulable.empty(); ++n) schedulable_[n] = in.schedulable[n];
  reserve_.assign(static_cast<size_t>(nodes_) * dims_, 0);
  for (int n = 0; n < nodes_ && !in.serverless_reserve.empty(); ++n) {
    for (int a = 0; a < dims_; ++a) {
      reserve_[static_cast<size_t>(n) * dims_ + a] =
          std::max<int64_t>(0, in.serverless_reserve[n][options_.dims[a]]);
    }
  }
  free_.resize(static_cast<size_t>(nodes_) * dims_ * bins_);
  block_min_.resize(static_cast<size_t>(nodes_) * dims_ * blocks_);
  block_max_.resize(block_min_.size());
  node_max_.resize(static_cast<size_t>(nodes_) * dims_);
  inverse_usable_.resize(node_max_.size());
  pressure_prefix_.assign(static_cast<size_t>(nodes_) * (bins_ + 1), 0.0f);

  const int64_t first_bin = origin_ / bs;
  for (int n = 0; n < nodes_; ++n) {
    float* pressure = &pressure_prefix_[static_cast<size_t>(n) * (bins_ + 1)];
    for (int a = 0; a < dims_; ++a) {
      const int d = static_cast<int>(options_.dims[a]);
      const int64_t capacity = in.capacity[n].amount[d];
      const double buffer =
          in.hosts_services.empty() || in.hosts_services[n] != 0 ? options_.buffer : 0.0;
      const double usable = static_cast<double>(capacity) * (1.0 - buffer);
      inverse_usable_[n * dims_ + a] = usable > 0 ? 1.0 / usable : 0.0;
      const float* usage =
          &in.service_usage[(static_cast<size_t>(n) * kNumDims + d) * in.usage_bins];
      int64_t* row = &free_[(static_cast<size_t>(n) * dims_ + a) * bins_];
      int periodic =
          static_cast<int>(((first_bin % in.usage_bins) + in.usage_bins) % in.usage_bins);
      for (int b = 0; b < bins_; ++b, periodic = periodic + 1 == in.usage_bins ? 0 : periodic + 1) {
        double service = usage[periodic];
        if (b == 0 && !in.observed_service_usage.empty()) {
          service = std::max<double>(service, in.observed_service_usage[n * kNumDims + d]);
        }
        row[b] = ReclaimableAmount(capacity, buffer, service);
        const double share = usable > 0 ? std::clamp(service / usable, 0.0, 1.0) : 1.0;
        pressure[b + 1] = std::max(pressure[b + 1], static_cast<float>(share));
      }
    }
    for (int b = 0; b < bins_; ++b) pressure[b + 1] += pressure[b];
  }

  for (const RunningTask& t : in.running) SubtractRunning(t);
  for (int n = 0; n < nodes_; ++n) RefreshEnvelope(n, 0, bins_);
}

int BatchPlanner::SubtractRunning(const RunningTask& t, int sign) {
  if (t.node < 0 || t.node >= nodes_ || bins_ == 0) return 0;
  const int end = static_cast<int>(
      std::clamp<int64_t>(CeilDiv(t.end_time - origin_, options_.bin_seconds), 1, bins_));
  for (int a = 0; a < dims_; ++a) {
    const int64_t amount = sign * t.requests[options_.dims[a]];
    if (amount == 0) continue;
    int64_t* row = &free_[(static_cast<size_t>(t.node) * dims_ + a) * bins_];
    for (int b = 0; b < end; ++b) row[b] -= amount;
  }
  return end;
}

void BatchPlanner::AddRunning(const RunningTask& task) {
  const int end = SubtractRunning(task);
  if (end > 0) RefreshEnvelope(task.node, 0, end);
}

void BatchPlanner::RemoveRunning(const RunningTask& task) {
  const int end = SubtractRunning(task, -1);
  if (end > 0) RefreshEnvelope(task.node, 0, end);
}

void BatchPlanner::RefreshEnvelope(NodeId n, int begin, int end) {
  for (int a = 0; a < dims_; ++a) {
    const size_t row = static_cast<size_t>(n) * dims_ + a;
    const int64_t* f = &free_[row * bins_];
    int64_t* mins = &block_min_[row * blocks_];
    int64_t* maxs = &block_max_[row * blocks_];
    for (int k = begin / kBlock; k * kBlock < end; ++k) {
      const int lo = k * kBlock, hi = std::min(bins_, lo + kBlock);
      int64_t mn = f[lo], mx = f[lo];
      for (int b = lo + 1; b < hi; ++b) {
        mn = std::min(mn, f[b]);
        mx = std::max(mx, f[b]);
      }
      mins[k] = mn;
      maxs[k] = mx;
    }
    node_max_[row] = *std::max_element(maxs, maxs + blocks_);
  }
}

bool BatchPlanner::KnownToFail(const Window& w, int first, int last) const {
  for (const Failure& f : failures_) {
    bool dominated = f.reserving <= reserving_ && f.first <= first && f.last >= last &&
                     f.run <= w.run && f.run_now <= w.run_now;
    for (int a = 0; a < dims_ && dominated; ++a) dominated = f.need[a] <= need_[a];
    if (dominated) return true;
  }
  return false;
}

void BatchPlanner::RememberFailure(const Window& w, int first, int last) {
  if (!options_.skip_known_failures || failures_.size() == kMaxFailures) return;
  Failure f{
      .reserving = reserving_, .first = first, .last = last, .run = w.run, .run_now = w.run_now};
  std::copy(need_.begin(), need_.end(), f.need.begin());
  failures_.push_back(f);
}

bool BatchPlanner::EnvelopeAdmits(NodeId n) const {
  if (!schedulable_[n]) return false;
  for (int a = 0; a < dims_; ++a) {
    if (need_[a] > 0 && node_max_[n * dims_ + a] < Need(n, a)) return false;
  }
  return true;
}

int64_t BatchPlanner::WindowMin(int row, int begin, int end) const {
  const int64_t* f = &free_[static_cast<size_t>(row) * bins_];
  const int64_t* mins = &block_min_[static_cast<size_t>(row) * blocks_];
  int64_t m = kUnbounded;
  int b = begin;
  for (; b < end && b % kBlock != 0; ++b) m = std::min(m, f[b]);
  for (; b + kBlock <= end; b += kBlock) m = std::min(m, mins[b / kBlock]);
  for (; b < end; ++b) m = std::min(m, f[b]);
  return m;
}

int BatchPlanner::LastBlocker(int row, int64_t need, int begin, int end) const {
  const int64_t* f = &free_[static_cast<size_t>(row) * bins_];
  const int64_t* mins = &block_min_[static_cast<size_t>(row) * blocks_];
  int b = end - 1;
  while (b >= begin) {
    if ((b + 1) % kBlock == 0 && b + 1 - kBlock >= begin && mins[b / kBlock] >= need) {
      b -= kBlock;
      continue;
    }
    if (f[b] < need) return b;
    --b;
  }
  return -1;
}

bool BatchPlanner::Fits(NodeId n, int begin, int end) const {
  for (int a = 0; a < dims_; ++a) {
    if (need_[a] > 0 && WindowMin(n * dims_ + a, begin, end) < Need(n, a)) return false;
  }
  return true;
}

int BatchPlanner::RunEnd(const Window& w, int start) const {
  return std::min(bins_, start + (start == current_bin_ ? w.run_now : w.run));
}

int BatchPlanner::EarliestStart(NodeId n, const Window& w, int from, int last) const {
  int s = from;
  if (s == current_bin_ && s <= last) {
    if (Fits(n, s, RunEnd(w, s))) return s;
    ++s;
  }
  while (s <= last) {
    const int end = RunEnd(w, s);
    int blocker = -1;
    for (int a = 0; a < dims_; ++a) {
      if (need_[a] > 0) blocker = std::max(blocker, LastBlocker(n * dims_ + a, Need(n, a), s, end));
    }
    if (blocker < 0) return s;
    s = blocker + 1;  // every start up to the blocker overlaps it
  }
  return -1;
}

double BatchPlanner::Leftover(NodeId n, int begin, int end) const {
  double worst = 0;
  for (int a = 0; a < dims_; ++a) {
    const int row = n * dims_ + a;
    const double left = static_cast<double>(WindowMin(row, begin, end) - Need(n, a));
    worst = std::max(worst, left * inverse_usable_[row]);
  }
  return worst;
}

BatchPlanner::Candidate BatchPlanner::BestOfflineStart(NodeId n, const Window& w) {
  Candidate best{n, -1, std::numeric_limits<double>::infinity()};
  const float* pressure = &pressure_prefix_[static_cast<size_t>(n) * (bins_ + 1)];
  auto consider = [&](int s, int end, double leftover) {
    const double valley = (pressure[end] - pressure[s]) / (end - s);
    const double cost = leftover + options_.valley_weight * valley + delay_cost_[s - w.first];
    if (cost < best.cost) best = Candidate{n, s, cost};
  };
  int first = w.first;
  const int last = w.last_on_time;
  if (first == current_bin_ && first <= last) {
    const int end = RunEnd(w, first);
    if (Fits(n, first, end)) consider(first, end, Leftover(n, first, end));
    ++first;
  }
  if (first > last) return best;

  // Window minima of every start at once (van Herk / Gil-Werman: prefix and suffix minima
  // within blocks of the run length), O(bins) per dimension.
  const int run = std::min(w.run, bins_ - last);
  const int span = last + run - first;
  const int starts = last - first + 1;
  // Dimension by dimension, each start's leftover (the largest over dimensions) and whether it
  // fits, in arrays the compiler can keep in order.
  std::fill_n(start_leftover_.begin(), starts, 0.0);
  std::fill_n(start_fits_.begin(), starts, uint8_t{1});
  for (int a = 0; a < dims_; ++a) {
    const int64_t* f = &free_[(static_cast<size_t>(n) * dims_ + a) * bins_ + first];
    for (int lo = 0; lo < span; lo += run) {
      const int hi = std::min(span, lo + run);
      int64_t m = f[lo];
      for (int i = lo; i < hi; ++i) prefix_min_[i] = m = std::min(m, f[i]);
      m = f[hi - 1];
      for (int i = hi - 1; i >= lo; --i) suffix_min_[i] = m = std::min(m, f[i]);
    }
    const int64_t need = Need(n, a);
    const bool needed = need_[a] > 0;
    const double inverse_usable = inverse_usable_[n * dims_ + a];
    const int64_t* suffix = suffix_min_.data();
    const int64_t* prefix = prefix_min_.data() + run - 1;
    double* leftover = start_leftover_.data();
    uint8_t* fits = start_fits_.data();
    for (int i = 0; i < starts; ++i) {
      const int64_t left = std::min(suffix[i], prefix[i]) - need;
      if (needed && left < 0) fits[i] = 0;
      leftover[i] = std::max(leftover[i], static_cast<double>(left) * inverse_usable);
    }
  }
  for (int i = 0; i < starts; ++i) {
    if (start_fits_[i]) consider(first + i, first + i + run, start_leftover_[i]);
  }
  return best;
}

void BatchPlanner::Place(int32_t j, NodeId n, int start, int end, bool late) {
  for (int a = 0; a < dims_; ++a) {
    if (need_[a] == 0) continue;
    int64_t* row = &free_[(static_cast<size_t>(n) * dims_ + a) * bins_];
    for (int b = start; b < end; ++b) row[b] -= need_[a];
  }
  RefreshEnvelope(n, start, end);
  const int64_t start_time = start == current_bin_ ? now_ : origin_ + start * options_.bin_seconds;
  placements_.push_back(TaskPlacement{j, n, start, start_time, late});
  ++outcomes_[j].planned;
  outcomes_[j].late += late;
}

int BatchPlanner::PlanEarliest(int32_t j, const Window& w, int last, int tasks, bool late) {
  const size_t wanted = static_cast<size_t>(options_.candidate_nodes);
  int placed = 0;
  int lower = w.first;
  while (placed < tasks) {
    // The earliest start over all nodes, and up to `wanted` nodes offering it.
    candidates_.clear();
    int best = last + 1;
    int scanned = 0;
    for (; scanned < nodes_; ++scanned) {
      const NodeId n = (rotation_ + scanned) % nodes_;
      if (!EnvelopeAdmits(n)) continue;
      const int s = EarliestStart(n, w, lower, std::min(best, last));
      if (s < 0) continue;
      if (s < best) {
        best = s;
        candidates_.clear();
      }
      if (candidates_.size() < wanted) {
        candidates_.push_back(Candidate{n, s, Leftover(n, s, RunEnd(w, s))});
      }
      if (best == lower && candidates_.size() >= wanted) break;
    }
    rotation_ = (rotation_ + scanned) % nodes_;
    if (candidates_.empty()) break;
    lower = best;
    const int end = RunEnd(w, best);
    while (placed < tasks && !candidates_.empty()) {
      auto it =
          std::min_element(candidates_.begin(), candidates_.end(),
                           [](const Candidate& x, const Candidate& y) { return x.cost < y.cost; });
      Place(j, it->node, best, end, late);
      ++placed;
      if (Fits(it->node, best, end)) {
        it->cost = Leftover(it->node, best, end);
      } else {
        *it = candidates_.back();
        candidates_.pop_back();
      }
    }
  }
  return placed;
}

int BatchPlanner::PlanOffline(int32_t j, const Window& w, int tasks) {
  const size_t wanted = static_cast<size_t>(options_.candidate_nodes);
  candidates_.clear();
  const int start = rotation_;
  int scanned = 0;
  auto fill = [&] {
    for (; candidates_.size() < wanted && scanned < nodes_; ++scanned) {
      const NodeId n = (start + scanned) % nodes_;
      if (!EnvelopeAdmits(n)) continue;
      const Candidate c = BestOfflineStart(n, w);
      if (c.start >= 0) candidates_.push_back(c);
    }
  };
  // The candidate of least cost, the first of equals (as std::min_element), and the same among the
  // others: while only the chosen candidate's cost changes, the runner-up tells whether it stays
  // the least without another look at the rest.
  size_t best = 0, runner_up = 0;
  auto precedes = [&](size_t x, size_t y) {
    return candidates_[x].cost < candidates_[y].cost ||
           (candidates_[x].cost == candidates_[y].cost && x < y);
  };
  auto find_least = [&] {
    best = 0;
    runner_up = candidates_.size();  // none
    for (size_t i = 1; i < candidates_.size(); ++i) {
      if (precedes(i, best)) {
        runner_up = best;
        best = i;
      } else if (runner_up == candidates_.size() || precedes(i, runner_up)) {
        runner_up = i;
      }
    }
  };
  fill();
  find_least();
  int placed = 0;
  while (placed < tasks && !candidates_.empty()) {
    Candidate& chosen = candidates_[best];
    Place(j, chosen.node, chosen.start, RunEnd(w, chosen.start), false);
    ++placed;
    const Candidate next = BestOfflineStart(chosen.node, w);
    if (next.start >= 0) {
      chosen = next;
      if (runner_up == candidates_.size() || precedes(best, runner_up)) continue;
    } else {
      chosen = candidates_.back();
      candidates_.pop_back();
      fill();
    }
    find_least();
  }
  rotation_ = (start + scanned) % std::max(nodes_, 1);
  return placed;
}

int BatchPlanner::PlanGang(int32_t j, const PendingJob& job, const Window& w, int last, bool late) {
  const int tasks = job.tasks;
  for (int s = w.first; s <= last; ++s) {
    const int end = RunEnd(w, s);
    gang_nodes_.clear();
    int total = 0;
    for (int i = 0; i < nodes_ && total < tasks; ++i) {
      const NodeId n = (rotation_ + i) % nodes_;
      if (!EnvelopeAdmits(n)) continue;
      int64_t copies = tasks - total;
      for (int a = 0; a < dims_ && copies > 0; ++a) {
        if (need_[a] > 0) {
          const int64_t room = WindowMin(n * dims_ + a, s, end) - (Need(n, a) - need_[a]);
          copies = std::min(copies, std::max<int64_t>(0, room) / need_[a]);
        }
      }
      if (copies > 0) {
        gang_nodes_.emplace_back(n, static_cast<int>(copies));
        total += static_cast<int>(copies);
      }
    }
    if (total < tasks) continue;
    for (const auto& [n, copies] : gang_nodes_) {
      for (int c = 0; c < copies; ++c) Place(j, n, s, end, late);
    }
    return tasks;
  }
  return 0;
}

BatchPlanner::Window BatchPlanner::WindowOf(const PendingJob& job) const {
  const int64_t bs = options_.bin_seconds;
  Window w;
  w.last = options_.horizon_bins - 1;
  w.first = current_bin_;
  if (job.submit_time > now_) {
    w.first =
        static_cast<int>(std::min<int64_t>(CeilDiv(job.submit_time - origin_, bs), w.last + 1));
  }
  const int64_t deadline = job.submit_time + job.delay_tolerance_s;
  w.deadline_in_horizon = deadline < origin_ + options_.horizon_bins * bs;
  w.last_on_time =
      deadline < now_
          ? -1
          : static_cast<int>(std::min<int64_t>(FloorDiv(deadline - origin_, bs), w.last));
  const int64_t elapsed = now_ - (origin_ + current_bin_ * bs);
  w.run = static_cast<int>(std::max<int64_t>(1, CeilDiv(job.duration_estimate_s, bs)));
  w.run_now =
      static_cast<int>(std::max<int64_t>(1, CeilDiv(elapsed + job.duration_estimate_s, bs)));
  return w;
}

void BatchPlanner::PlanJobs(int64_t now, std::span<const PendingJob> jobs) {
  now_ = now;
  current_bin_ = static_cast<int>(FloorDiv(now - origin_, options_.bin_seconds));
  placements_.clear();
  start_now_.clear();
  late_jobs_.clear();
  outcomes_.assign(jobs.size(), JobOutcome{});
  prefix_min_.resize(bins_);
  suffix_min_.resize(bins_);
  start_leftover_.resize(bins_);
  start_fits_.resize(bins_);
  if (nodes_ == 0) {
    for (size_t j = 0; j < jobs.size(); ++j) outcomes_[j].unplaced = std::max(jobs[j].tasks, 0);
    return;
  }

  order_.resize(jobs.size());
  std::iota(order_.begin(), order_.end(), 0);
  std::sort(order_.begin(), order_.end(), [&](int32_t x, int32_t y) {
    const PendingJob& a = jobs[x];
    const PendingJob& b = jobs[y];
    if (a.priority != b.priority) return a.priority > b.priority;
    const int64_t da = a.submit_time + a.delay_tolerance_s;
    const int64_t db = b.submit_time + b.delay_tolerance_s;
    return da != db ? da < db : x < y;
  });

  failures_.clear();
  auto set_need = [&](const PendingJob& job) {
    for (int a = 0; a < dims_; ++a) need_[a] = job.task_requests[options_.dims[a]];
    reserving_ = job.type == JobType::kOffline;
  };
  // On time first, for every job; only then the late ones, so lateness never costs another job
  // its deadline.
  for (int32_t j : order_) {
    const PendingJob& job = jobs[j];
    if (job.tasks <= 0) continue;
    set_need(job);
    const Window w = WindowOf(job);
    int placed = 0;
    if (w.last_on_time >= w.first && !KnownToFail(w, w.first, w.last_on_time)) {
      if (job.gang) {
        placed = PlanGang(j, job, w, w.last_on_time, false);
      } else {
        placed = job.type == JobType::kServerless
                     ? PlanEarliest(j, w, w.last_on_time, job.tasks, false)
                     : PlanOffline(j, w, job.tasks);
        // Tasks left over: no node has a start left in the window (the earliest ones were taken
        // first, and the landscape only fills).
        if (placed < job.tasks) RememberFailure(w, w.first, w.last_on_time);
      }
    }
    outcomes_[j].unplaced = job.tasks - placed;
  }
  for (int32_t j : order_) {
    const PendingJob& job = jobs[j];
    JobOutcome& outcome = outcomes_[j];
    if (outcome.unplaced == 0) continue;
    Window w = WindowOf(job);
    if (!w.deadline_in_horizon) continue;
    outcome.tolerance_missed = true;
    late_jobs_.push_back(j);
    set_need(job);
    w.first = std::max(w.first, w.last_on_time + 1);
    const int last = options_.late_window_bins > 0
                         ? std::min(w.last, current_bin_ + options_.late_window_bins - 1)
                         : w.last;
    if (w.first > last || KnownToFail(w, w.first, last)) continue;
    const int placed = job.gang ? PlanGang(j, job, w, last, true)
                                : PlanEarliest(j, w, last, outcome.unplaced, true);
    if (!job.gang && placed < outcome.unplaced) RememberFailure(w, w.first, last);
    outcome.unplaced -= placed;
  }
  for (const TaskPlacement& p : placements_) {
    if (p.start_bin == current_bin_) start_now_.push_back(p);
  }
}

int64_t BatchPlanner::Free(NodeId n, Dim d, int bin) const {
  const int slot = dim_slot_[static_cast<int>(d)];
  if (slot < 0) return kUnbounded;
  return free_[(static_cast<size_t>(n) * dims_ + slot) * bins_ + bin];
}

}  // namespace archimedes
