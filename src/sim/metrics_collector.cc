#include "sim/metrics_collector.h"

#include <algorithm>

namespace archimedes {

MetricsCollector::MetricsCollector(const Workload& workload, int64_t warmup_s, int64_t tick_s,
                                   double burst_buffer, std::vector<ContractRecord>* sla_records)
    : workload_(workload),
      warmup_s_(warmup_s),
      tick_s_(tick_s),
      burst_buffer_(burst_buffer),
      sla_records_(sla_records),
      services_(workload.services.size()),
      jobs_(workload.jobs.size()) {}

// The CPU work one task of `job` does when it runs to completion, in core-seconds.
double MetricsCollector::CoreSeconds(const BatchJob& job) const {
  return static_cast<double>(job.task_requests.cpu()) / 1000.0 * job.utilization *
         static_cast<double>(job.duration_s);
}

void MetricsCollector::JobSubmitted(const BatchJob& job) {
  if (job.submit_time >= warmup_s_) offered_core_seconds_ += CoreSeconds(job) * job.tasks;
}

// Waits count once per task, on its first start (a restart after eviction is not a new wait).
void MetricsCollector::TaskStarted(int64_t now, int32_t j, bool first_start) {
  if (!first_start) return;
  const BatchJob& job = workload_.jobs[j];
  JobSlaRun& run = jobs_[j];
  const int64_t wait = now - job.submit_time;
  if (wait > job.delay_tolerance_s) run.started_late = true;
  run.worst_wait = std::max(run.worst_wait, wait);
  if (job.submit_time < warmup_s_) return;
  if (j == last_start_job_ && now == last_start_time_) {
    waits_.back().second += 1;
    wait_shares_.back().second += 1;
  } else {
    waits_.push_back({static_cast<double>(wait), 1});
    wait_shares_.push_back({static_cast<double>(wait) /
                                static_cast<double>(std::max<int64_t>(job.delay_tolerance_s, 1)),
                            1});
    last_start_job_ = j;
    last_start_time_ = now;
  }
  JudgeStarts(job, 1, wait <= job.delay_tolerance_s);
  AddLateness(job, 1, now);
}

void MetricsCollector::AddLateness(const BatchJob& job, int64_t tasks, int64_t start) {
  const double weight = static_cast<double>(std::max(job.priority, 1)) * static_cast<double>(tasks);
  const int64_t late = std::max<int64_t>(0, start - (job.submit_time + job.delay_tolerance_s));
  weighted_lateness_sum_ += weight * static_cast<double>(late);
  lateness_weight_ += weight;
}

void MetricsCollector::JudgeStarts(const BatchJob& job, int64_t tasks, bool within_tolerance) {
  const auto t = static_cast<size_t>(job.type);
  tasks_judged_ += tasks;
  type_judged_[t] += tasks;
  if (within_tolerance) {
    tasks_within_tolerance_ += tasks;
    type_within_tolerance_[t] += tasks;
  }
}

void MetricsCollector::TaskFinished(int64_t now, int32_t j, bool job_complete) {
  if (job_complete) jobs_[j].completed_at = now;
  if (now >= warmup_s_) batch_core_seconds_ += CoreSeconds(workload_.jobs[j]);
}

void MetricsCollector::TaskKilled(int64_t now, int32_t j, double done_s) {
  if (now < warmup_s_) return;
  const BatchJob& job = workload_.jobs[j];
  const double done = std::clamp(done_s, 0.0, static_cast<double>(job.duration_s));
  lost_core_seconds_ += CoreSeconds(job) * done / static_cast<double>(job.duration_s);
}

void MetricsCollector::TasksReportedLate(int32_t j, int tasks) {
  if (workload_.jobs[j].submit_time >= warmup_s_) tasks_reported_late_ += tasks;
}

void MetricsCollector::Migrated(bool for_health) {
  ++migrations_;
  if (for_health) ++health_migrations_;
}

void MetricsCollector::OomKilled(int64_t now, const Container& c) {
  if (c.kind == OwnerKind::kService) services_[c.owner].last_oom_kill = now;
  ++oom_kills_;
}

void MetricsCollector::ServiceScaled(int64_t now, int32_t s, int from, int to) {
  if (to > from) {
    services_[s].ramp_start = now;
    services_[s].ramp_added = to - from;
  }
}

void MetricsCollector::NodeTicked(bool hot, int containers) {
  ++node_ticks_;
  hot_node_ticks_ += hot;
  container_seconds_ += static_cast<double>(containers) * static_cast<double>(tick_s_);
}

void MetricsCollector::FleetTicked(int64_t now, const std::array<double, kNumDims>& usage,
                                   const std::array<double, kNumDims>& capacity,
                                   const EngineLink& engine, std::span<const uint8_t> node_hot) {
  for (int d = 0; d < kNumDims; ++d) {
    if (capacity[d] > 0) utilization_sum_[d] += usage[d] / capacity[d];
  }
  ++utilization_samples_;
  const double tick = static_cast<double>(tick_s_);
  const ClusterState& state = engine.cluster();
  for (size_t s = 0; s < services_.size(); ++s) {
    const ServiceStatus status = engine.service_status(static_cast<int32_t>(s));
    if (status.desired == 0) continue;
    ServiceSlaRun& run = services_[s];
    const Service& svc = workload_.services[s];
    // A replica serves once its start-up is over, and not while its node is hot; one the service's
    // own start or scale-up added is no harm while it starts.
    int ready = 0, serving = 0, rolling_out = 0;
    for (ContainerId id : status.replicas) {
      const Container& c = state.container(id);
      if (now < c.start_time + svc.startup_s) {
        rolling_out += run.ramp_start >= 0 && c.start_time >= run.ramp_start &&
                       c.start_time <= run.ramp_start + tick_s_;
        continue;
      }
      ++ready;
      serving += !node_hot[c.node];
    }
    rolling_out = std::min(rolling_out, run.ramp_added);
    int harmed = std::max(status.desired - serving - rolling_out, 0);
    const bool below_minimum = ready + rolling_out < svc.sla.min_available;
    if (below_minimum) harmed = status.desired;
    run.desired_time += status.desired * tick;
    run.harmed_time += std::min(harmed, status.desired) * tick;
    if (sla_records_ != nullptr && harmed > 0) {
      // An OOM kill is the cause until its replacement has had the time to start.
      const bool oom_killed =
          run.last_oom_kill >= 0 && now - run.last_oom_kill <= svc.startup_s + tick_s_;
      AddBreach(run.breaches, now, now + tick_s_,
                oom_killed        ? "OOM-killed"
                : below_minimum   ? "below minimum availability"
                : ready > serving ? "hot node"
                                  : "unavailable");
    }
  }
}

void MetricsCollector::SampleAllocation(const ClusterState& state, const ShapeMix& mix) {
  const std::array<double, kNumDims> shares = AllocationShares(state);
  for (int d = 0; d < kNumDims; ++d) allocation_sum_[d] += shares[d];
  fragmentation_sum_ += FragmentationRate(state, mix);
  ++allocation_samples_;
}

Metrics MetricsCollector::Finish(int64_t end, size_t submitted, const EngineLink& engine,
                                 std::span<const int64_t> give_up_at) {
  Metrics m;
  for (int d = 0; d < kNumDims; ++d) {
    if (allocation_samples_ > 0) m.allocation_rate[d] = allocation_sum_[d] / allocation_samples_;
    if (utilization_samples_ > 0) m.utilization[d] = utilization_sum_[d] / utilization_samples_;
  }
  m.cpu_utilization_of_usable = m.utilization[0] / (1 - burst_buffer_);
  if (allocation_samples_ > 0) m.fragmentation_rate = fragmentation_sum_ / allocation_samples_;
  if (node_ticks_ > 0) m.hot_node_time = static_cast<double>(hot_node_ticks_) / node_ticks_;
  m.measured_days = static_cast<double>(std::max<int64_t>(end - warmup_s_, 0)) / kSecondsPerDay;

  int services_honoured = 0, jobs_honoured = 0;
  for (size_t s = 0; s < services_.size(); ++s) {
    const ServiceSlaRun& run = services_[s];
    if (run.desired_time == 0) continue;
    ++m.services_counted;
    const double availability = 1.0 - run.harmed_time / run.desired_time;
    const bool honoured = availability + 1e-12 >= workload_.services[s].sla.availability;
    services_honoured += honoured;
    if (sla_records_ != nullptr) {
      sla_records_->push_back({.kind = "service",
                               .name = workload_.services[s].name,
                               .honoured = honoured,
                               .target = workload_.services[s].sla.availability,
                               .achieved = availability,
                               .breaches = run.breaches});
    }
  }
  for (size_t j = 0; j < submitted; ++j) {
    const BatchJob& job = workload_.jobs[j];
    JobStatus status = engine.job_status(static_cast<int32_t>(j));
    // The submitter has given up on what never started by the end of the run.
    if (status.pending > 0 && end >= give_up_at[j]) {
      status.failed += status.pending;
      status.pending = 0;
    }
    m.tasks_submitted += job.tasks;
    m.tasks_finished += status.finished;
    m.tasks_running += status.running;
    m.tasks_queued += status.pending;
    m.tasks_failed += status.failed;
    if (job.submit_time >= warmup_s_) {
      const int never_started = job.tasks - status.first_started;
      if (status.pending == 0) JudgeStarts(job, never_started, false);
      AddLateness(job, never_started, std::min(end, give_up_at[j]));
    }
    // A job submitted after the end never waited in the run: it is not judged.
    const bool due = job.submit_time >= warmup_s_ &&
                     job.submit_time + job.delay_tolerance_s + job.duration_s <= end;
    if (!due) continue;
    ++m.jobs_counted;
    const JobSlaRun& run = jobs_[j];
    const bool honoured = !run.started_late && status.failed == 0 && run.completed_at >= 0;
    jobs_honoured += honoured;
    if (sla_records_ != nullptr) {
      ContractRecord record{.kind = "job",
                            .name = job.name,
                            .honoured = honoured,
                            .target = static_cast<double>(job.delay_tolerance_s),
                            .achieved = static_cast<double>(run.worst_wait)};
      if (run.started_late) {
        AddBreach(record.breaches, job.submit_time + job.delay_tolerance_s,
                  job.submit_time + job.delay_tolerance_s, "started late");
      }
      if (status.failed > 0) AddBreach(record.breaches, give_up_at[j], give_up_at[j], "expired");
      if (run.completed_at < 0 && status.failed == 0) {
        AddBreach(record.breaches, end, end, "not completed");
      }
      sla_records_->push_back(std::move(record));
    }
  }
  if (m.services_counted > 0) {
    m.sla_services = static_cast<double>(services_honoured) / m.services_counted;
  }
  if (m.jobs_counted > 0) m.sla_jobs = static_cast<double>(jobs_honoured) / m.jobs_counted;
  const int all = m.services_counted + m.jobs_counted;
  if (all > 0) m.sla_all = static_cast<double>(services_honoured + jobs_honoured) / all;

  if (m.measured_days > 0) {
    m.batch_core_hours_per_day = batch_core_seconds_ / 3600.0 / m.measured_days;
    m.offered_core_hours_per_day = offered_core_seconds_ / 3600.0 / m.measured_days;
    m.lost_core_hours_per_day = lost_core_seconds_ / 3600.0 / m.measured_days;
  }
  m.wait_p50_s = Percentile(waits_, 0.5);
  m.wait_p99_s = Percentile(waits_, 0.99);
  m.wait_tolerance_share_p50 = Percentile(wait_shares_, 0.5);
  m.wait_tolerance_share_p99 = Percentile(wait_shares_, 0.99);
  if (lateness_weight_ > 0) m.weighted_lateness_s = weighted_lateness_sum_ / lateness_weight_;
  if (tasks_judged_ > 0) {
    m.started_within_tolerance = static_cast<double>(tasks_within_tolerance_) / tasks_judged_;
  }
  for (JobType type : {JobType::kServerless, JobType::kOffline}) {
    const auto t = static_cast<size_t>(type);
    if (type_judged_[t] > 0) {
      m.started_within_tolerance_by_type[t] =
          static_cast<double>(type_within_tolerance_[t]) / type_judged_[t];
    }
  }
  m.evictions = evictions_;
  m.tasks_reported_late = tasks_reported_late_;
  m.migrations = migrations_;
  m.oom_kills = oom_kills_;
  m.health_migrations = health_migrations_;
  m.health_scale_outs = health_scale_outs_;
  m.failure_kills = failure_kills_;
  const double container_days = container_seconds_ / kSecondsPerDay;
  if (container_days > 0) {
    m.evictions_per_1000_container_days = evictions_ * 1000.0 / container_days;
    m.migrations_per_1000_container_days = migrations_ * 1000.0 / container_days;
  }
  const EngineStats stats = engine.stats();
  m.latency_p50_us = stats.decision_p50_us;
  m.latency_p99_us = stats.decision_p99_us;
  m.decisions = stats.decisions;
  m.plan_latency_p50_us = stats.plan_p50_us;
  m.plan_latency_p99_us = stats.plan_p99_us;
  m.plans = stats.plans;
  m.replan_latency_p50_us = stats.replan_p50_us;
  m.replan_latency_p99_us = stats.replan_p99_us;
  m.replans = stats.replans;
  return m;
}

}  // namespace archimedes
