// The predicted usage of every node over one day (DESIGN §2 "ClusterState", §4): per node, per
// dimension and per time bin, the sum of its residents' high-quantile profile curves, in one
// contiguous float array (nodes × dims × bins), with each node's per-dimension peak over the day
// (its envelope) kept up to date. A resident without a profile counts its requests flat.
//
// Beside that sum, which service placement reads (a replica must fit at its own high quantile),
// it keeps a node-level quantile for batch, which only needs the node's total to stay under the
// buffer: per node, dimension and bin
//
//   Σ_i mean_i + sqrt(Σ_g (Σ_{i ∈ g} (high_i − mean_i))²)
//
// where g runs over groups of residents predicted by one curve (one application's profile).
// Deviations of replicas of one application add linearly, because real replicas share their
// traffic; only different applications multiplex (add in quadrature). A flat resident (requests,
// no profile) counts its requests linearly with no deviation. With one resident per group the
// quantile is the sum; it is never above it. Both are kept incrementally by Add and Remove.
//
// Curves are registered once (AddCurve) and services are mapped to their curve, application and
// class once (SetService), so a decision looks nothing up by name. Add and Remove cost
// O(bins × dims). Every node also has a limit per dimension, capacity × (1 − buffer): predicted
// usage above it would enter the burst buffer. A dimension whose capacity is zero is not modelled
// on that node (its limit is zero and the placement checks skip it).
//
// Besides load, the residents' applications and services are counted per topology domain (zone,
// POD) so that affinity and spread rules need no scan of the fleet.
//
// Not thread-safe; the driver updates it whenever a container is added to or removed from the
// ClusterState it mirrors (AddContainer / RemoveContainer).
#ifndef ARCHIMEDES_SCHED_PREDICTED_LOAD_H_
#define ARCHIMEDES_SCHED_PREDICTED_LOAD_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/cluster_state.h"
#include "model/curve.h"
#include "model/node.h"
#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

struct PodRequest;

using CurveId = int32_t;
inline constexpr CurveId kNoCurve = -1;

// What one container is predicted to use: a registered curve, or its requests flat (curve ==
// nullptr). `peak` is the per-dimension maximum either way, reached in bin `peak_bin`.
struct Demand {
  const float* curve = nullptr;       // kNumDims × bins, dimension-major; nullptr = flat at `peak`
  const float* block_peak = nullptr;  // kNumDims × blocks: the curve's maximum per block
  std::array<float, kNumDims> peak{};
  std::array<int32_t, kNumDims> peak_bin{};
  // The registered curve (its mean and deviation feed the node quantile); kNoCurve for a flat
  // demand, or for a curve given by hand, which then counts linearly as its own mean.
  CurveId id = kNoCurve;
};

// What the rest of a node's room is expected to hold: the predicted curve of the average replica
// still to be placed (each pending replica's curve, or its requests flat) and its mean requests.
// Complementarity scores a placement by the node's peak once its room is filled with it
// (plugins/complementarity.h).
struct FillCurve {
  std::vector<float> curve;   // kNumDims × bins, dimension-major
  std::vector<float> blocks;  // kNumDims × blocks: the curve's block maxima
  std::array<double, kNumDims> requests{};
  std::array<double, kNumDims> per_request{};  // 1 / requests (0 where none): Room multiplies

  bool empty() const { return curve.empty(); }
  // How many average replicas `free` (unrequested allocatable) holds in cpu and memory, the
  // dimensions requests bind in; 0 when the services request neither.
  float Room(const Resources& free) const;
};

class PredictedLoad {
 public:
  PredictedLoad(const std::vector<Node>& nodes, int bins = DailyCurve::kDefaultBins,
                double buffer = 0.10);

  int bins() const { return bins_; }
  double buffer() const { return buffer_; }
  int num_nodes() const { return static_cast<int>(residents_.size()); }
  // The bin that holds time `t` (seconds, periodic over a day).
  int BinAt(int64_t t) const;

  // Takes the next node id, as ClusterState::AddNode does.
  NodeId AddNode(const Node& node);

  // Registers per-dimension curves (any bin count dividing a day; resampled to bins() taking the
  // maximum of the overlapping source bins, so the prediction never drops a peak). `high` is the
  // high quantile of one replica; `mean` its mean (resampled as the average of the overlapping
  // source bins, and capped at `high`). Without `mean`, the curve is its own mean: it adds to the
  // node quantile linearly, as to the sum.
  CurveId AddCurve(const std::array<DailyCurve, kNumDims>& high);
  CurveId AddCurve(const std::array<DailyCurve, kNumDims>& high,
                   const std::array<DailyCurve, kNumDims>& mean);
  std::span<const float> curve(CurveId id, Dim d) const;
  const std::array<float, kNumDims>& curve_peak(CurveId id) const { return curve_peak_[id].peak; }

  // Service `service` belongs to application `app` (a dense index chosen by the caller), is
  // predicted by `curve` (kNoCurve = its requests, flat) and has profile class `profile_class`
  // (-1 = unknown).
  void SetService(int32_t service, int32_t app, CurveId curve, int32_t profile_class = -1);
  int32_t service_app(int32_t service) const;
  CurveId service_curve(int32_t service) const;
  int32_t service_class(int32_t service) const;
  int num_services() const { return static_cast<int>(service_app_.size()); }
  int num_apps() const { return num_apps_; }

  // What `pod` (or a resident container) is predicted to use.
  Demand DemandOf(const PodRequest& pod) const;
  Demand DemandOf(const Container& c) const;

  // Adds or removes a demand on node `n`: O(bins × dims).
  void Add(NodeId n, const Demand& demand);
  void Remove(NodeId n, const Demand& demand);
  // Add / Remove of the container's demand on c.node, and of its topology counts.
  void AddContainer(const Container& c);
  void RemoveContainer(const Container& c);
  // Forgets every resident (loads and counts), keeping nodes, curves and services.
  void ClearResidents();

  // Predicted usage of node `n` in dimension `d`, one value per bin.
  std::span<const float> usage(NodeId n, Dim d) const {
    return {&usage_[Offset(n, d)], static_cast<size_t>(bins_)};
  }
  // The node-level quantile of node `n` in `d` (see the top of this file), one value per bin;
  // ≤ usage(n, d). node_quantiles() is the whole nodes × dims × bins array, node-major then
  // dimension, as usage() is laid out: the batch planner's input.
  std::span<const float> node_quantile(NodeId n, Dim d) const {
    return {&quantile_[Offset(n, d)], static_cast<size_t>(bins_)};
  }
  std::span<const float> node_quantiles() const { return quantile_; }
  float peak(NodeId n, Dim d) const {
    return peak_[static_cast<size_t>(n) * kNumDims + static_cast<int>(d)];
  }
  float limit(NodeId n, Dim d) const {
    return limit_[static_cast<size_t>(n) * kNumDims + static_cast<int>(d)];
  }
  const float* peaks(NodeId n) const { return &peak_[static_cast<size_t>(n) * kNumDims]; }
  // A bin where the node's peak in each dimension is reached: a candidate whose demand in that bin
  // already crosses the limit is rejected without walking the curve.
  const int32_t* peak_bins(NodeId n) const { return &peak_bin_[static_cast<size_t>(n) * kNumDims]; }
  const float* limits(NodeId n) const { return &limit_[static_cast<size_t>(n) * kNumDims]; }
  int residents(NodeId n) const { return residents_[n]; }

  // max over bins of (usage + demand) in dimension `d`: the node's peak once `demand` is added.
  // Exactly the full loop's value, but only blocks of bins whose block maxima could beat the best
  // found so far are walked (the peak bins of node and demand are tried first).
  float PeakWith(NodeId n, Dim d, const Demand& demand) const;
  // True when usage + demand ≤ `limit` in every bin of dimension `d` (exactly the full loop's
  // verdict; blocks whose maxima stay under the limit are not walked).
  bool StaysUnder(NodeId n, Dim d, const Demand& demand, float limit) const;

  // Each service is expected to run Service::replicas replicas (`services` indexed as SetService
  // was called); those not resident are pending. Counts follow AddContainer / RemoveContainer.
  void ExpectReplicas(const std::vector<Service>& services);
  // The average pending replica; empty when none is pending (or ExpectReplicas was not called).
  // Rebuilt on first use after a change: O(bins × dims), once per decision.
  const FillCurve& fill() const;
  // The node's projected peak in `d` by the hour (per block of bins, each curve's block maximum):
  // max over blocks of usage + room × fill, and of (usage + demand) + room_with × fill, with
  // `room` and `room_with` (≤ room) average replicas of `fill` before and after `demand`.
  // O(blocks): exact peaks at full resolution would cost O(bins) per node, and the sums of a nearly
  // flat fill and noisy profiles leave block bounds too loose to skip bins.
  std::pair<float, float> ProjectedPeaks(NodeId n, Dim d, const Demand& demand,
                                         const FillCurve& fill, float room, float room_with) const;

  // Free curves for batch: limit − the node quantile, negative where it already enters the
  // buffer. Batch needs only the node's total under the limit, not each replica's high quantile.
  float FreeAt(NodeId n, Dim d, int bin) const {
    return limit(n, d) - quantile_[Offset(n, d) + bin];
  }
  // `out` must hold bins() values.
  void FreeCurve(NodeId n, Dim d, std::span<float> out) const;
  // The least free over `num_bins` bins from `first_bin`, wrapping around midnight: O(blocks +
  // block size), not O(num_bins).
  float MinFree(NodeId n, Dim d, int first_bin, int num_bins) const;

  // Topology domains: dense ids of the node's zone and POD.
  int32_t zone_of(NodeId n) const { return node_zone_[n]; }
  int32_t pod_of(NodeId n) const { return node_pod_[n]; }
  int num_zones() const { return static_cast<int>(zone_names_.size()); }
  int num_pods() const { return static_cast<int>(pod_names_.size()); }
  // Live containers of application `app` / service `service` in a zone or POD.
  int app_in_zone(int32_t app, int32_t zone) const { return app_zone_[zone][app]; }
  int app_in_pod(int32_t app, int32_t pod) const { return app_pod_[pod][app]; }
  int service_in_zone(int32_t service, int32_t zone) const { return service_zone_[zone][service]; }
  int service_in_pod(int32_t service, int32_t pod) const { return service_pod_[pod][service]; }
  // Changes whenever a count or a node changes; lets readers cache per-service aggregates.
  uint64_t version() const { return version_; }

 private:
  size_t Offset(NodeId n, Dim d) const {
    return (static_cast<size_t>(n) * kNumDims + static_cast<size_t>(d)) * bins_;
  }
  void Count(const Container& c, int delta);
  // Recounts the pending replicas from the resident counts.
  void ResetPending();
  // Adds `sign` × one replica of the service to the pending sums.
  void Pend(int32_t service, int sign);
  void UpdatePeak(NodeId n, int d);
  // Adds (sign +1) or removes (−1) one resident's share of the node quantile of node `n`.
  void UpdateQuantile(NodeId n, const Demand& demand, int sign);
  void ClearQuantile(NodeId n);
  // Recomputes the block maxima of the node quantile of node `n` in dimension `d`.
  void UpdateQuantileBlocks(NodeId n, int d) const;
  // Appends a high curve to curves_ (resampled), its block maxima and its peaks.
  CurveId AddHighCurve(const std::array<DailyCurve, kNumDims>& high);
  // Registers the mean and deviation of the curve just appended to curves_.
  void AddMoments(const std::array<DailyCurve, kNumDims>* mean);
  size_t BlockOffset(NodeId n, int d) const {
    return (static_cast<size_t>(n) * kNumDims + static_cast<size_t>(d)) * blocks_;
  }
  int32_t DomainId(const std::string& name, std::unordered_map<std::string, int32_t>& ids,
                   std::vector<std::string>& names, std::vector<std::vector<int32_t>>& app_counts,
                   std::vector<std::vector<int32_t>>& service_counts);

  int bins_;
  int block_bins_;  // bins per block of the block maxima
  int blocks_;
  double buffer_;
  std::vector<float> usage_;       // nodes × dims × bins
  std::vector<float> peak_;        // nodes × dims
  std::vector<int32_t> peak_bin_;  // nodes × dims
  std::vector<float> block_peak_;  // nodes × dims × blocks
  std::vector<float> limit_;       // nodes × dims
  std::vector<int32_t> residents_;
  std::vector<float> curves_;        // curves × dims × bins
  std::vector<float> curve_blocks_;  // curves × dims × blocks
  std::vector<Demand> curve_peak_;   // per curve: its peaks and peak bins (curve unset)
  // The node quantile: per curve its mean and deviation (high − mean, ≥ 0), curves × dims × bins;
  // per node, dimension and bin the sum of means (float, like usage_) and the sum over groups of
  // squared group deviations (double: terms are added and subtracted for as long as the node
  // lives); per node the resident count of each curve (a few entries, searched linearly).
  std::vector<float> curve_mean_, curve_dev_;
  std::vector<float> mean_sum_;
  std::vector<double> deviation_sq_;
  std::vector<float> quantile_;
  // nodes × dims × blocks: MinFree walks blocks. Refreshed by the first MinFree after the node's
  // quantile changed (stale flag per node and dimension, nodes × dims): only policies that plan
  // batch in time read them, and a node's quantile changes more often than they are read. Hence
  // mutable; like the rest of this class, read by one thread at a time.
  mutable std::vector<float> quantile_block_max_;
  mutable std::vector<uint8_t> quantile_blocks_stale_;
  std::vector<std::vector<std::pair<CurveId, int32_t>>> groups_;
  std::vector<int32_t> service_app_, service_curve_, service_class_;
  int num_apps_ = 0;
  std::vector<int32_t> node_zone_, node_pod_;
  std::unordered_map<std::string, int32_t> zone_ids_, pod_ids_;
  std::vector<std::string> zone_names_, pod_names_;
  // [domain][app or service]
  std::vector<std::vector<int32_t>> app_zone_, app_pod_, service_zone_, service_pod_;
  uint64_t version_ = 0;
  // Pending replicas: per service expected and resident counts, and the sums over the pending
  // ones (double, so that adding and removing leaves no drift).
  std::vector<int32_t> expected_, running_;
  std::vector<Resources> service_requests_;
  std::vector<double> pending_curve_;  // dims × bins
  std::array<double, kNumDims> pending_requests_{};
  int64_t pending_ = 0;
  mutable FillCurve fill_;
  mutable bool fill_stale_ = true;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SCHED_PREDICTED_LOAD_H_
