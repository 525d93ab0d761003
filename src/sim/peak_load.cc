#include "sim/peak_load.h"

#include <algorithm>
#include <unordered_map>

#include "sched/archimedes_placement.h"
#include "sim/usage_model.h"

namespace archimedes {

DesiredReplicas::DesiredReplicas(const Workload& workload)
    : events_(workload.services.size()),
      next_(workload.services.size()),
      desired_(workload.services.size()) {
  std::unordered_map<std::string, int32_t> index;
  for (size_t s = 0; s < workload.services.size(); ++s) {
    const Service& svc = workload.services[s];
    index[svc.name] = static_cast<int32_t>(s);
    if (svc.end_time > svc.start_time) {
      events_[s].push_back({svc.start_time, svc.replicas});
      if (svc.end_time != kForever) events_[s].push_back({svc.end_time, 0});
    }
  }
  for (const ScaleEvent& e : workload.scale_events) {
    auto it = index.find(e.service);
    if (it == index.end()) continue;  // the simulator rejects such a scenario
    const Service& svc = workload.services[it->second];
    if (e.time >= svc.start_time && e.time < svc.end_time) {
      events_[it->second].push_back({e.time, e.replicas});
    }
  }
  for (auto& events : events_) {
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
}

int DesiredReplicas::At(int32_t s, int64_t t) {
  const auto& events = events_[s];
  size_t& next = next_[s];
  while (next < events.size() && events[next].first <= t) desired_[s] = events[next++].second;
  return desired_[s];
}

PeakMeter::PeakMeter(const Scenario& scenario, const ProfileSet& profiles, int64_t warmup_s,
                     uint64_t seed)
    : workload_(scenario.workload),
      warmup_s_(warmup_s),
      seed_(seed),
      load_(scenario.nodes),
      desired_(workload_),
      running_(workload_.services.size()) {
  RegisterServices(load_, workload_.services, profiles);
}

void PeakMeter::Tick(int64_t now, const ClusterState& state) {
  if (now < warmup_s_) return;
  const int nodes = state.num_nodes();
  observed_max_.resize(nodes);
  observed_now_.assign(nodes, {});
  std::fill(running_.begin(), running_.end(), 0);
  const bool sample = now % kSampleInterval == 0;
  if (sample) {
    for (NodeId n = load_.num_nodes(); n < nodes; ++n) load_.AddNode(state.node(n));
    load_.ClearResidents();
  }
  for (ContainerId id = 0; id < state.id_limit(); ++id) {
    if (!state.alive(id)) continue;
    const Container& c = state.container(id);
    if (c.kind != OwnerKind::kService) continue;
    ++running_[c.owner];
    const Usage u = ServiceContainerUsage(workload_.services[c.owner], c.owner, c.index,
                                          c.start_time, now, seed_);
    observed_now_[c.node][0] += u[0];
    observed_now_[c.node][1] += u[1];
    if (sample) load_.AddContainer(c);
  }
  for (NodeId n = 0; n < nodes; ++n) {
    for (int d = 0; d < 2; ++d)
      observed_max_[n][d] = std::max(observed_max_[n][d], observed_now_[n][d]);
  }
  for (size_t s = 0; s < workload_.services.size(); ++s) {
    const int desired = desired_.At(static_cast<int32_t>(s), now);
    const int unplaced = std::max(0, desired - running_[s]);
    desired_replica_ticks_ += desired;
    unplaced_replica_ticks_ += unplaced;
    if (sample && unplaced > 0) {
      const Service& service = workload_.services[s];
      const Demand demand = load_.DemandOf(PodRequest{.requests = service.requests,
                                                      .kind = OwnerKind::kService,
                                                      .owner = static_cast<int32_t>(s)});
      unplaced_sum_[0] += unplaced * static_cast<double>(demand.peak[static_cast<int>(Dim::kCpu)]);
      unplaced_sum_[1] +=
          unplaced * static_cast<double>(demand.peak[static_cast<int>(Dim::kMemory)]);
    }
  }
  if (!sample) return;
  for (NodeId n = 0; n < nodes; ++n) {
    predicted_sum_[0] += load_.peak(n, Dim::kCpu);
    predicted_sum_[1] += load_.peak(n, Dim::kMemory);
  }
  ++samples_;
}

void PeakMeter::Fill(Metrics& m) const {
  m.predicted_peak_sum = {};
  m.observed_peak_sum = {};
  m.unplaced_peak_sum = {};
  if (samples_ > 0) {
    for (int d = 0; d < 2; ++d) {
      m.predicted_peak_sum[d] = predicted_sum_[d] / static_cast<double>(samples_);
      m.unplaced_peak_sum[d] = unplaced_sum_[d] / static_cast<double>(samples_);
    }
  }
  for (const auto& node : observed_max_) {
    for (int d = 0; d < 2; ++d) m.observed_peak_sum[d] += node[d];
  }
  m.unplaced_replica_share =
      desired_replica_ticks_ > 0 ? unplaced_replica_ticks_ / desired_replica_ticks_ : 0.0;
}

Metrics SimulateMeasuringPeaks(const Scenario& scenario, const Policy& policy, SimOptions options,
                               const ProfileSet& profiles, EngineLink* engine) {
  PeakMeter meter(scenario, profiles, options.warmup_s, options.seed);
  if (options.profiles == nullptr) options.profiles = &profiles;
  options.on_tick = [&meter, chained = std::move(options.on_tick)](int64_t now,
                                                                   const ClusterState& state) {
    if (chained) chained(now, state);
    meter.Tick(now, state);
  };
  Metrics m = engine != nullptr ? SimulateWith(scenario, policy, options, *engine)
                                : Simulate(scenario, policy, options);
  meter.Fill(m);
  return m;
}

}  // namespace archimedes
