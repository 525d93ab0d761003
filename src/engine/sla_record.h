// What the engine has seen of one SLA contract so far (Engine::service_sla, Engine::job_sla):
// its target, what it achieved, and when and why it was harmed.
//
// Services: `target` is the availability the contract asks for; `achieved` the share of the
// desired replica-time served since the service was created (1 before it wants any). A replica
// serves once its start-up time is over, except the new ones of a creation or scale-up, which
// serve from their placement (a rollout is no outage; a replacement's start-up is). Harm is an
// interval: "unavailable" (fewer serving replicas than desired) or "below minimum availability"
// (fewer than min_available), each with the cause of the last loss in parentheses: "not placed",
// "evicted (Pressure)" (any EvictReasonName), "OOM-killed", "failed", "node failed", "stopped".
// Jobs: `target` is the delay tolerance in seconds; `achieved` the longest wait of a task to start
// for the first time so far, the tasks still waiting included. Harm is an instant: "started late"
// (a first start after submit + tolerance), "expired" (tasks given up unstarted at the give-up
// time; a cancelled job is not harmed) or "rejected"; or, while tasks still wait past the
// deadline, the interval from it to now: "waiting past its tolerance".
#ifndef ARCHIMEDES_ENGINE_SLA_RECORD_H_
#define ARCHIMEDES_ENGINE_SLA_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace archimedes {

struct SlaBreach {
  int64_t start = 0;
  int64_t end = 0;  // exclusive; equal to start for an instant
  std::string reason;
};

struct SlaRecord {
  double target = 0;
  double achieved = 0;
  bool honoured = true;             // services: achieved ≥ target; jobs: no breach
  std::vector<SlaBreach> breaches;  // earliest first, at most kMaxSlaBreaches
};

inline constexpr size_t kMaxSlaBreaches = 100;

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_SLA_RECORD_H_
