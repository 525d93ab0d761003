// The engine of an `archimedes serve` started with `--clock virtual`, reached over its HTTP API
// (docs/api.md) as the simulated world reaches its own (sim/engine_link.h): `archimedes replay`.
//
// Each call is a request: nodes, services and jobs through their routes, completions and OOM kills
// as the containers' status, time, scheduling cycles and usage rounds through POST
// /v1/clock/drive. The actions the server answers with are applied, as the engine applied them, to
// a copy of its view of the fleet (cluster()), kept under the engine's own container ids; service
// and job status are read back from the server. The server must be fresh (no node, clock at 0),
// run the same policy with the same seed, and its cycle must be the world's.
//
// Errors (the server unreachable or refusing a request) throw ReplayError naming the request and
// the server's answer.
#ifndef ARCHIMEDES_REPLAY_REMOTE_ENGINE_H_
#define ARCHIMEDES_REPLAY_REMOTE_ENGINE_H_

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "engine/policy.h"
#include "model/workload.h"
#include "sim/engine_link.h"

namespace archimedes {

class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RemoteOptions {
  uint64_t seed = 1;
  int64_t cycle_s = 1;
  // Simulated seconds played per wall second at most (a live demonstration, a dashboard to
  // watch); 0: as fast as the server answers.
  int64_t pace_s = 0;
  // What the engine places by, as simulate gives its own (EngineOptions::profiles, task_shapes);
  // set on the server (PUT /v1/priors) before anything else. Null: none.
  const EngineOptions* priors = nullptr;
};

class RemoteEngine final : public EngineLink {
 public:
  // Connects to `url` ("http://127.0.0.1:8080"), checks the server, sets its priors, and registers
  // the scenario's nodes and its services (none scaled), in order: their ids are their positions.
  RemoteEngine(const std::string& url, const Policy& policy, const Scenario& scenario,
               RemoteOptions options);

  void AdvanceTo(int64_t now) override;
  void Schedule() override;
  int64_t RunQuiet(int64_t from, int64_t to, int64_t cycle_s) override;
  NodeId AddNode(const Node& node) override;
  void FailNode(NodeId n) override;
  void RecoverNode(NodeId n) override;
  void ScaleService(int32_t service, int replicas) override;
  int32_t SubmitJob(const BatchJob& job, int64_t give_up_at) override;
  void ContainerFinished(ContainerId id) override;
  void ContainerOomKilled(ContainerId id) override;
  // A server keeps every reported usage (its profiles learn from it), whatever its policy.
  bool reads_usage() const override { return true; }
  bool reads_fleet_usage() const override { return true; }
  void BeginUsageRound(std::span<const UsageSample> fleet) override;
  void ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples) override;
  void EndUsageRound() override;
  std::span<const Action> actions() const override { return actions_; }
  void ClearActions() override { actions_.clear(); }
  const ClusterState& cluster() const override { return state_; }
  ServiceStatus service_status(int32_t service) const override;
  JobStatus job_status(int32_t job) const override;
  // As the server's /metrics gives them.
  EngineStats stats() const override;

  // Requests made so far.
  int64_t requests() const { return requests_; }

 private:
  struct ServiceView {
    int desired = 0;
    int extra = 0;
    std::vector<ContainerId> replicas;
  };

  // A node failed (NotReady: the server ends what ran there) or recovered (Ready).
  void SetCondition(NodeId n, NodeCondition condition);
  nlohmann::json Call(const std::string& method, const std::string& path,
                      const nlohmann::json& body = nullptr) const;
  httplib::Result Send(const std::string& method, const std::string& path,
                       const std::string& body) const;
  nlohmann::json Drive(const nlohmann::json& body);
  // The actions stored since the last seen, for the calls that do not answer with them.
  void FetchActions();
  void Take(const nlohmann::json& action);
  void PutService(int32_t service, int replicas);
  void SetContainerPhase(ContainerId id, const std::string& phase);
  nlohmann::json Samples(std::span<const UsageSample> samples) const;
  void Changed() {
    services_fresh_ = false;
    jobs_fresh_ = false;
  }

  std::unique_ptr<httplib::Client> client_;
  std::string url_;
  const Workload& workload_;
  ClusterState state_;
  std::vector<Action> actions_;
  int64_t last_seq_ = 0;
  int64_t now_ = 0;
  mutable int64_t requests_ = 0;
  // Waits until simulated time `now` is due at RemoteOptions::pace_s, counted from the first call.
  void Pace(int64_t now);
  int64_t pace_s_;
  int64_t paced_from_ = -1;  // the simulated time of the first Pace, then its wall time below
  std::chrono::steady_clock::time_point paced_wall_;
  std::unordered_map<std::string, NodeId> node_ids_;
  std::unordered_map<std::string, int32_t> service_ids_;
  std::vector<std::string> container_names_;  // by engine id
  std::unordered_map<std::string, ContainerId> container_ids_;
  int32_t jobs_ = 0;
  mutable bool services_fresh_ = false, jobs_fresh_ = false;
  mutable std::vector<ServiceView> services_;
  mutable std::vector<JobStatus> job_status_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_REPLAY_REMOTE_ENGINE_H_
