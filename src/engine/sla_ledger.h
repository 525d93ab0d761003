// The engine's record of every SLA contract (engine/sla_record.h says what it measures), kept
// from the engine's own decisions and events: the Engine calls it around each of them. Internal
// to engine/: drivers read Engine::service_sla and Engine::job_sla.
//
// Cost: O(1) per action and event; a service's replica-time is summed only when its replicas
// change or it is read, so time passing costs nothing.
#ifndef ARCHIMEDES_ENGINE_SLA_LEDGER_H_
#define ARCHIMEDES_ENGINE_SLA_LEDGER_H_

#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/action.h"
#include "engine/sla_record.h"
#include "model/chunked_vector.h"
#include "model/cluster_state.h"
#include "model/workload.h"

namespace archimedes {

class EngineCore;

class SlaLedger {
 public:
  // Service `s` (of the catalogue, or just created) and job `j` (just submitted) join.
  void ServiceAdded(const EngineCore& core, int32_t s);
  void JobSubmitted(const EngineCore& core, int32_t j);
  // Service `s` wants `replicas` from now on; deleted: its contract ends now.
  void Scaled(int32_t s, int replicas, int64_t now);
  void Deleted(int32_t s, int64_t now);
  void Cancelled(int32_t j) { jobs_[j].cancelled = true; }
  // Container `id`, alive, ends by the world's report: `cause` "OOM-killed" or "failed".
  void Lost(const EngineCore& core, ContainerId id, const char* cause);
  // The actions taken since the last call (`actions` from the first one not seen yet).
  void Saw(const EngineCore& core, std::span<const Action> actions);
  // Jobs whose give-up time has come and gone with tasks given up.
  void Settle(const EngineCore& core);

  SlaRecord OfService(int32_t s, int64_t now) const;
  SlaRecord OfJob(const EngineCore& core, int32_t j) const;

 private:
  struct ServiceEntry {
    double target = 0;
    int min_available = 0;
    int64_t startup_s = 0;
    int desired = 0;
    int rollout = 0;  // replicas of the last creation or scale-up not placed yet
    bool deleted = false;
    int64_t since = 0;  // replica-time is summed up to here
    double desired_time = 0, served_time = 0;
    std::vector<std::pair<ContainerId, int64_t>> replicas;  // (container, serving from)
    std::string cause = "not placed";                       // of the last loss
    std::vector<SlaBreach> breaches;
  };
  struct JobEntry {
    bool cancelled = false;
    int64_t worst_wait = 0;
    std::vector<SlaBreach> breaches;
  };
  // What a container is to the ledger: a replica of a service, a task of a job, or nothing.
  struct Owner {
    OwnerKind kind = OwnerKind::kTask;
    int32_t id = -1;
  };

  static void SumUpTo(ServiceEntry& e, int64_t now);
  void AddReplica(int32_t s, ContainerId id, int64_t serving_from, int64_t now);
  void EndReplica(ContainerId id, const std::string& cause, int64_t now);

  std::vector<ServiceEntry> services_;
  ChunkedVector<JobEntry> jobs_;  // appended per job while requests wait (EngineCore::jobs_)
  std::vector<Owner> owners_;     // by container id, as of the last action naming it
  // (give-up time, job) of jobs not yet past it, earliest first.
  std::priority_queue<std::pair<int64_t, int32_t>, std::vector<std::pair<int64_t, int32_t>>,
                      std::greater<>>
      give_ups_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_SLA_LEDGER_H_
