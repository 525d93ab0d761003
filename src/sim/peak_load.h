// The sum of predicted peaks: how much capacity a placement of services needs, the figure issue 4
// judges service placement by (docs/placement.md, "Sum of predicted peaks").
//
// Per node, the predicted peak in a dimension is the maximum over the day's time bins of the sum
// of its resident services' high-quantile profile curves (sched/predicted_load.h); the sum over
// nodes is what the fleet must provide for the services' predicted peaks as they are placed. Every
// policy is judged by the same profiles — those the profile-driven policies use (learned from the
// warm-up day, or --profiles) — so the comparison is about placement alone. It is sampled every
// simulated hour after warm-up and averaged over the samples.
//
// The observed counterpart: per node, the largest total usage of its services (as the simulator's
// usage model gives it, leaked memory included) seen at any usage tick after warm-up, summed over
// nodes; a prediction that holds keeps it at or below the
// predicted sum. Also counted: the share of desired service replica-ticks after warm-up that had no
// running replica (a replica that fits nowhere stays pending), and, sampled with the predicted
// sum, the predicted peaks of those replicas: a placement that leaves replicas out has a smaller
// sum for it, and sum + unplaced compares it with one that places them all.
//
// A PeakMeter watches a run through SimOptions::on_tick and reads only the ClusterState, the
// scenario and the usage model, so it measures every policy alike.
#ifndef ARCHIMEDES_SIM_PEAK_LOAD_H_
#define ARCHIMEDES_SIM_PEAK_LOAD_H_

#include <array>
#include <cstdint>
#include <vector>

#include "engine/policy.h"
#include "model/cluster_state.h"
#include "model/workload.h"
#include "profile/profile.h"
#include "sched/predicted_load.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

namespace archimedes {

// Desired replicas of each service over time, as the simulator's service events set them: start
// and end, then scale events inside [start, end), in time order (at equal times a scale event
// comes after the start).
class DesiredReplicas {
 public:
  explicit DesiredReplicas(const Workload& workload);
  // Desired replicas of service `s` at `t`; `t` must not decrease between calls for one service.
  int At(int32_t s, int64_t t);

 private:
  std::vector<std::vector<std::pair<int64_t, int>>> events_;  // per service: (time, replicas)
  std::vector<size_t> next_;
  std::vector<int> desired_;
};

class PeakMeter {
 public:
  static constexpr int64_t kSampleInterval = 3600;  // predicted peaks, seconds

  // `scenario` and `profiles` must outlive the meter.
  PeakMeter(const Scenario& scenario, const ProfileSet& profiles, int64_t warmup_s, uint64_t seed);

  // Call after every usage tick (SimOptions::on_tick).
  void Tick(int64_t now, const ClusterState& state);
  // Sets m.predicted_peak_sum, m.observed_peak_sum, m.unplaced_peak_sum and
  // m.unplaced_replica_share.
  void Fill(Metrics& m) const;

 private:
  const Workload& workload_;
  int64_t warmup_s_;
  uint64_t seed_;
  PredictedLoad load_;
  std::array<double, 2> predicted_sum_{};
  std::array<double, 2> unplaced_sum_{};  // predicted peaks of desired replicas not running
  int64_t samples_ = 0;
  std::vector<std::array<double, 2>> observed_max_;  // per node: cpu, memory
  std::vector<std::array<double, 2>> observed_now_;
  DesiredReplicas desired_;
  std::vector<int> running_;
  double desired_replica_ticks_ = 0, unplaced_replica_ticks_ = 0;
};

// Simulate() with a PeakMeter judging by `profiles` on its usage ticks (after options.on_tick, if
// any). Unless options.profiles is set, the profile-driven policies place by `profiles` too
// (pass LearnWarmupProfiles' result for what they would learn themselves). With `engine`, against
// that engine (SimulateWith).
Metrics SimulateMeasuringPeaks(const Scenario& scenario, const Policy& policy, SimOptions options,
                               const ProfileSet& profiles, EngineLink* engine = nullptr);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_PEAK_LOAD_H_
