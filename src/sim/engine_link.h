// How the simulated world reaches the engine (engine/engine.h): in this process (LocalEngine), or
// in an `archimedes serve` over HTTP (replay/remote_engine.h). The world calls the same events in
// the same order either way, so the same scenario gives the same report — the seam that makes a
// replay against a server equal to a simulation.
//
// The calls are Engine's, with its contract, plus RunQuiet: the seconds in which only the engine
// acts, in one call (one request to a server), stopping at the first second that gave actions so
// that the world carries them out before the next.
#ifndef ARCHIMEDES_SIM_ENGINE_LINK_H_
#define ARCHIMEDES_SIM_ENGINE_LINK_H_

#include <cstdint>
#include <span>

#include "engine/engine.h"

namespace archimedes {

class EngineLink {
 public:
  virtual ~EngineLink() = default;

  virtual void AdvanceTo(int64_t now) = 0;
  virtual void Schedule() = 0;
  // For each second s from `from` while s < `to`: AdvanceTo(s), then Schedule() when s is a
  // multiple of `cycle_s`. Stops after the first second that gave actions and returns it, or
  // returns to − 1 when none did (from < to).
  virtual int64_t RunQuiet(int64_t from, int64_t to, int64_t cycle_s) = 0;

  virtual NodeId AddNode(const Node& node) = 0;
  virtual void FailNode(NodeId n) = 0;
  virtual void RecoverNode(NodeId n) = 0;
  virtual void ScaleService(int32_t service, int replicas) = 0;
  virtual int32_t SubmitJob(const BatchJob& job, int64_t give_up_at) = 0;
  virtual void ContainerFinished(ContainerId id) = 0;
  virtual void ContainerOomKilled(ContainerId id) = 0;

  // Engine::reads_usage: whether the rounds need their samples; Engine::reads_fleet_usage:
  // whether BeginUsageRound needs the fleet's.
  virtual bool reads_usage() const = 0;
  virtual bool reads_fleet_usage() const = 0;
  virtual void BeginUsageRound(std::span<const UsageSample> fleet) = 0;
  virtual void ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples) = 0;
  virtual void EndUsageRound() = 0;

  virtual std::span<const Action> actions() const = 0;
  virtual void ClearActions() = 0;

  virtual const ClusterState& cluster() const = 0;
  virtual ServiceStatus service_status(int32_t service) const = 0;
  virtual JobStatus job_status(int32_t job) const = 0;
  virtual EngineStats stats() const = 0;
};

// The engine in this process.
class LocalEngine final : public EngineLink {
 public:
  LocalEngine(const Policy& policy, EngineOptions options, std::vector<Node> nodes,
              std::vector<Service> services)
      : engine_(policy, std::move(options), std::move(nodes), std::move(services)) {}

  void AdvanceTo(int64_t now) override { engine_.AdvanceTo(now); }
  void Schedule() override { engine_.Schedule(); }
  int64_t RunQuiet(int64_t from, int64_t to, int64_t cycle_s) override {
    for (int64_t s = from; s < to; ++s) {
      engine_.AdvanceTo(s);
      if (s % cycle_s == 0) engine_.Schedule();
      if (!engine_.actions().empty()) return s;
    }
    return to - 1;
  }
  NodeId AddNode(const Node& node) override { return engine_.AddNode(node); }
  void FailNode(NodeId n) override { engine_.FailNode(n); }
  void RecoverNode(NodeId n) override { engine_.RecoverNode(n); }
  void ScaleService(int32_t service, int replicas) override {
    engine_.ScaleService(service, replicas);
  }
  int32_t SubmitJob(const BatchJob& job, int64_t give_up_at) override {
    return engine_.SubmitJob(job, give_up_at);
  }
  void ContainerFinished(ContainerId id) override { engine_.ContainerFinished(id); }
  void ContainerOomKilled(ContainerId id) override { engine_.ContainerOomKilled(id); }
  bool reads_usage() const override { return engine_.reads_usage(); }
  bool reads_fleet_usage() const override { return engine_.reads_fleet_usage(); }
  void BeginUsageRound(std::span<const UsageSample> fleet) override {
    engine_.BeginUsageRound(fleet);
  }
  void ObserveNodeUsage(NodeId n, std::span<const UsageSample> samples) override {
    engine_.ObserveNodeUsage(n, samples);
  }
  void EndUsageRound() override { engine_.EndUsageRound(); }
  std::span<const Action> actions() const override { return engine_.actions(); }
  void ClearActions() override { engine_.ClearActions(); }
  const ClusterState& cluster() const override { return engine_.cluster(); }
  ServiceStatus service_status(int32_t service) const override {
    return engine_.service_status(service);
  }
  JobStatus job_status(int32_t job) const override { return engine_.job_status(job); }
  EngineStats stats() const override { return engine_.stats(); }

 private:
  Engine engine_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_ENGINE_LINK_H_
