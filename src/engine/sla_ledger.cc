#include "engine/sla_ledger.h"

#include <algorithm>
#include <string>
#include <utility>

#include "engine/core.h"

namespace archimedes {
namespace {

// Extends the last breach when it has the same reason and ends at `start`, else appends one (up
// to kMaxSlaBreaches).
void AddBreach(std::vector<SlaBreach>& breaches, int64_t start, int64_t end,
               const std::string& reason) {
  if (!breaches.empty() && breaches.back().end == start && breaches.back().reason == reason) {
    breaches.back().end = end;
    return;
  }
  if (breaches.size() < kMaxSlaBreaches) breaches.push_back({start, end, reason});
}

}  // namespace

void SlaLedger::ServiceAdded(const EngineCore& core, int32_t s) {
  const Service& service = core.service(s);
  if (static_cast<size_t>(s) >= services_.size()) services_.resize(s + 1);
  services_[s] = ServiceEntry{.target = service.sla.availability,
                              .min_available = service.sla.min_available,
                              .startup_s = service.startup_s,
                              .since = core.now()};
}

void SlaLedger::JobSubmitted(const EngineCore& core, int32_t j) {
  if (static_cast<size_t>(j) >= jobs_.size()) jobs_.resize(j + 1);
  const JobRun& run = core.job_run(j);
  if (!run.rejected) give_ups_.emplace(run.give_up_at, j);
}

void SlaLedger::Scaled(int32_t s, int replicas, int64_t now) {
  ServiceEntry& e = services_[s];
  SumUpTo(e, now);
  if (replicas > e.desired) {
    e.rollout = replicas - e.desired;
    e.cause = "not placed";
  } else {
    e.rollout = std::min(e.rollout, replicas);
  }
  e.desired = replicas;
}

void SlaLedger::Deleted(int32_t s, int64_t now) {
  ServiceEntry& e = services_[s];
  SumUpTo(e, now);
  e.deleted = true;
  e.replicas.clear();
}

void SlaLedger::Lost(const EngineCore& core, ContainerId id, const char* cause) {
  const Container& c = core.state().container(id);
  if (c.kind == OwnerKind::kService) EndReplica(id, cause, core.now());
}

void SlaLedger::Saw(const EngineCore& core, std::span<const Action> actions) {
  const int64_t now = core.now();
  for (const Action& a : actions) {
    switch (a.kind) {
      case ActionKind::kBind: {
        ServiceEntry& e = services_[a.service];
        // A new replica of a rollout serves from its placement; a replacement once started.
        int64_t serving_from = now + e.startup_s;
        if (e.rollout > 0) {
          --e.rollout;
          serving_from = now;
        }
        AddReplica(a.service, a.container, serving_from, now);
        break;
      }
      case ActionKind::kMigrate:
        AddReplica(a.service, a.container, now + services_[a.service].startup_s, now);
        break;
      case ActionKind::kStartTask: {
        if (static_cast<size_t>(a.container) >= owners_.size()) owners_.resize(a.container + 1);
        owners_[a.container] = {.kind = OwnerKind::kTask, .id = a.job};
        if (!a.first_start) break;
        const BatchJob& job = core.job(a.job);
        JobEntry& e = jobs_[a.job];
        const int64_t wait = now - job.submit_time;
        e.worst_wait = std::max(e.worst_wait, wait);
        if (wait > job.delay_tolerance_s) AddBreach(e.breaches, now, now, "started late");
        break;
      }
      case ActionKind::kEvict:
        EndReplica(a.container, "evicted (" + std::string(EvictReasonName(a.reason)) + ")", now);
        break;
      case ActionKind::kStop:
        EndReplica(a.container, "stopped", now);
        break;
      case ActionKind::kReject:
        AddBreach(jobs_[a.job].breaches, now, now, "rejected");
        break;
      case ActionKind::kThrottle:
      case ActionKind::kScaleOut:
      case ActionKind::kReportLate:
        break;
    }
  }
}

void SlaLedger::Settle(const EngineCore& core) {
  while (!give_ups_.empty() && give_ups_.top().first <= core.now()) {
    const auto [give_up_at, j] = give_ups_.top();
    give_ups_.pop();
    // Tasks still pending now fail in the next cycle that looks at the job: none can start after
    // the give-up time.
    const JobRun& run = core.job_run(j);
    JobEntry& e = jobs_[j];
    if (!e.cancelled && (run.pending > 0 || run.failed > 0)) {
      AddBreach(e.breaches, give_up_at, give_up_at, "expired");
      e.worst_wait = std::max(e.worst_wait, give_up_at - core.job(j).submit_time);
    }
  }
}

SlaRecord SlaLedger::OfService(int32_t s, int64_t now) const {
  ServiceEntry e = services_[s];
  SumUpTo(e, now);
  SlaRecord r{.target = e.target,
              .achieved = e.desired_time > 0 ? e.served_time / e.desired_time : 1.0,
              .breaches = std::move(e.breaches)};
  r.honoured = r.achieved + 1e-12 >= r.target;
  return r;
}

SlaRecord SlaLedger::OfJob(const EngineCore& core, int32_t j) const {
  const BatchJob& job = core.job(j);
  const JobRun& run = core.job_run(j);
  SlaRecord r{.target = static_cast<double>(job.delay_tolerance_s),
              .achieved = static_cast<double>(jobs_[j].worst_wait),
              .breaches = jobs_[j].breaches};
  // Tasks still waiting for their first start (not given up): their wait so far counts, and past
  // the deadline the contract is broken already, whenever they start.
  if (run.pending > 0 && run.first_started < job.tasks && core.now() < run.give_up_at) {
    const int64_t waited = core.now() - job.submit_time;
    r.achieved = std::max(r.achieved, static_cast<double>(waited));
    if (waited > job.delay_tolerance_s) {
      AddBreach(r.breaches, job.submit_time + job.delay_tolerance_s, core.now(),
                "waiting past its tolerance");
    }
  }
  r.honoured = r.breaches.empty();
  return r;
}

void SlaLedger::SumUpTo(ServiceEntry& e, int64_t now) {
  if (e.deleted || now <= e.since) return;
  // Piecewise constant between the times replicas begin to serve.
  for (int64_t t = e.since; t < now;) {
    int serving = 0;
    int64_t next = now;
    for (const auto& [id, from] : e.replicas) {
      if (from <= t) {
        ++serving;
      } else {
        next = std::min(next, from);
      }
    }
    const int served = std::min(serving, e.desired);
    const auto span = static_cast<double>(next - t);
    e.desired_time += e.desired * span;
    e.served_time += served * span;
    if (served < e.desired) {
      const char* harm =
          served < e.min_available ? "below minimum availability (" : "unavailable (";
      AddBreach(e.breaches, t, next, harm + e.cause + ")");
    }
    t = next;
  }
  e.since = now;
}

void SlaLedger::AddReplica(int32_t s, ContainerId id, int64_t serving_from, int64_t now) {
  if (static_cast<size_t>(id) >= owners_.size()) owners_.resize(id + 1);
  owners_[id] = {.kind = OwnerKind::kService, .id = s};
  ServiceEntry& e = services_[s];
  SumUpTo(e, now);
  e.replicas.emplace_back(id, serving_from);
}

void SlaLedger::EndReplica(ContainerId id, const std::string& cause, int64_t now) {
  if (static_cast<size_t>(id) >= owners_.size()) return;
  const Owner owner = std::exchange(owners_[id], Owner{});
  if (owner.kind != OwnerKind::kService || owner.id < 0) return;
  ServiceEntry& e = services_[owner.id];
  if (e.deleted) return;
  SumUpTo(e, now);
  std::erase_if(e.replicas, [id](const auto& r) { return r.first == id; });
  e.cause = cause;
}

}  // namespace archimedes
