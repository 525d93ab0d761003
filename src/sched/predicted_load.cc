#include "sched/predicted_load.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sched/framework.h"

namespace archimedes {
namespace {

Demand FlatDemand(const Resources& requests) {
  Demand d;
  for (int i = 0; i < kNumDims; ++i) d.peak[i] = static_cast<float>(requests.amount[i]);
  return d;
}

}  // namespace

float FillCurve::Room(const Resources& free) const {
  float room = -1.0f;
  for (Dim d : {Dim::kCpu, Dim::kMemory}) {
    const double per = per_request[static_cast<int>(d)];
    if (per <= 0) continue;
    const auto fits = static_cast<float>(static_cast<double>(std::max<int64_t>(free[d], 0)) * per);
    room = room < 0 ? fits : std::min(room, fits);
  }
  return std::max(room, 0.0f);
}

PredictedLoad::PredictedLoad(const std::vector<Node>& nodes, int bins, double buffer)
    : bins_(bins), buffer_(buffer) {
  if (bins <= 0 || kSecondsPerDay % bins != 0) {
    throw std::invalid_argument("PredictedLoad: bins must divide 86400");
  }
  block_bins_ = bins % 12 == 0 ? 12 : 1;
  blocks_ = bins / block_bins_;
  if (buffer < 0 || buffer >= 1) throw std::invalid_argument("PredictedLoad: buffer not in [0, 1)");
  for (const Node& node : nodes) AddNode(node);
}

int PredictedLoad::BinAt(int64_t t) const {
  int64_t s = t % kSecondsPerDay;
  if (s < 0) s += kSecondsPerDay;
  return static_cast<int>(s / (kSecondsPerDay / bins_));
}

NodeId PredictedLoad::AddNode(const Node& node) {
  const NodeId n = num_nodes();
  usage_.resize(usage_.size() + static_cast<size_t>(kNumDims) * bins_, 0.0f);
  mean_sum_.resize(usage_.size(), 0.0f);
  deviation_sq_.resize(usage_.size(), 0.0);
  quantile_.resize(usage_.size(), 0.0f);
  quantile_block_max_.resize(quantile_block_max_.size() + static_cast<size_t>(kNumDims) * blocks_,
                             0.0f);
  quantile_blocks_stale_.resize(quantile_blocks_stale_.size() + kNumDims, 0);
  groups_.emplace_back();
  peak_.resize(peak_.size() + kNumDims, 0.0f);
  peak_bin_.resize(peak_bin_.size() + kNumDims, 0);
  block_peak_.resize(block_peak_.size() + static_cast<size_t>(kNumDims) * blocks_, 0.0f);
  for (int i = 0; i < kNumDims; ++i) {
    limit_.push_back(
        static_cast<float>(static_cast<double>(node.capacity.amount[i]) * (1.0 - buffer_)));
  }
  residents_.push_back(0);
  node_zone_.push_back(DomainId(node.zone, zone_ids_, zone_names_, app_zone_, service_zone_));
  node_pod_.push_back(DomainId(node.pod, pod_ids_, pod_names_, app_pod_, service_pod_));
  ++version_;
  return n;
}

int32_t PredictedLoad::DomainId(const std::string& name,
                                std::unordered_map<std::string, int32_t>& ids,
                                std::vector<std::string>& names,
                                std::vector<std::vector<int32_t>>& app_counts,
                                std::vector<std::vector<int32_t>>& service_counts) {
  auto [it, inserted] = ids.try_emplace(name, static_cast<int32_t>(names.size()));
  if (inserted) {
    names.push_back(name);
    app_counts.emplace_back(num_apps_, 0);
    service_counts.emplace_back(service_app_.size(), 0);
  }
  return it->second;
}

CurveId PredictedLoad::AddCurve(const std::array<DailyCurve, kNumDims>& high,
                                const std::array<DailyCurve, kNumDims>& mean) {
  const CurveId id = AddHighCurve(high);
  AddMoments(&mean);
  return id;
}

CurveId PredictedLoad::AddCurve(const std::array<DailyCurve, kNumDims>& high) {
  const CurveId id = AddHighCurve(high);
  AddMoments(nullptr);
  return id;
}

void PredictedLoad::AddMoments(const std::array<DailyCurve, kNumDims>* mean) {
  const size_t base = curve_mean_.size();  // the new curve's first value
  for (int d = 0; d < kNumDims; ++d) {
    // A mean that is zero all day beside a nonzero high is missing (a profile that carries only
    // its high curve), not a claim that every replica's usage is pure deviation.
    bool has_mean = false;
    if (mean != nullptr) {
      for (int k = 0; k < (*mean)[d].bins() && !has_mean; ++k) has_mean = (*mean)[d][k] > 0;
    }
    for (int b = 0; b < bins_; ++b) {
      const float high = curves_[base + static_cast<size_t>(d) * bins_ + b];
      float m = high;
      if (has_mean) {
        // The average of the overlapping source bins: the mean over our bin.
        const DailyCurve& src = (*mean)[d];
        const int src_bins = src.bins();
        const int first = static_cast<int>(static_cast<int64_t>(b) * src_bins / bins_);
        const int last = static_cast<int>((static_cast<int64_t>(b + 1) * src_bins - 1) / bins_);
        double sum = 0;
        for (int k = first; k <= last; ++k) sum += src[k];
        m = std::clamp(static_cast<float>(sum / (last - first + 1)), 0.0f, high);
      }
      curve_mean_.push_back(m);
      curve_dev_.push_back(high - m);
    }
  }
}

CurveId PredictedLoad::AddHighCurve(const std::array<DailyCurve, kNumDims>& high) {
  const CurveId id = static_cast<CurveId>(curve_peak_.size());
  Demand peaks;
  for (int d = 0; d < kNumDims; ++d) {
    const DailyCurve& src = high[d];
    const int src_bins = src.bins();
    for (int b = 0; b < bins_; ++b) {
      // Source bins overlapping [b, b+1) of ours, in units of 1 / (bins_ × src_bins) of a day.
      const int first = static_cast<int>(static_cast<int64_t>(b) * src_bins / bins_);
      const int last = static_cast<int>((static_cast<int64_t>(b + 1) * src_bins - 1) / bins_);
      float v = 0.0f;
      for (int s = first; s <= last; ++s) v = std::max(v, src[s]);
      curves_.push_back(v);
      if (v > peaks.peak[d]) {
        peaks.peak[d] = v;
        peaks.peak_bin[d] = b;
      }
    }
  }
  for (size_t i = static_cast<size_t>(id) * kNumDims * bins_; i < curves_.size();
       i += block_bins_) {
    curve_blocks_.push_back(*std::max_element(&curves_[i], &curves_[i] + block_bins_));
  }
  curve_peak_.push_back(peaks);
  return id;
}

std::span<const float> PredictedLoad::curve(CurveId id, Dim d) const {
  return {&curves_[(static_cast<size_t>(id) * kNumDims + static_cast<size_t>(d)) * bins_],
          static_cast<size_t>(bins_)};
}

void PredictedLoad::SetService(int32_t service, int32_t app, CurveId curve, int32_t profile_class) {
  if (service >= num_services()) {
    service_app_.resize(service + 1, -1);
    service_curve_.resize(service + 1, kNoCurve);
    service_class_.resize(service + 1, -1);
    for (auto& counts : service_zone_) counts.resize(service + 1, 0);
    for (auto& counts : service_pod_) counts.resize(service + 1, 0);
  }
  if (app >= num_apps_) {
    num_apps_ = app + 1;
    for (auto& counts : app_zone_) counts.resize(num_apps_, 0);
    for (auto& counts : app_pod_) counts.resize(num_apps_, 0);
  }
  service_app_[service] = app;
  service_curve_[service] = curve;
  service_class_[service] = profile_class;
}

int32_t PredictedLoad::service_app(int32_t service) const {
  return service < num_services() ? service_app_[service] : -1;
}

CurveId PredictedLoad::service_curve(int32_t service) const {
  return service < num_services() ? service_curve_[service] : kNoCurve;
}

int32_t PredictedLoad::service_class(int32_t service) const {
  return service < num_services() ? service_class_[service] : -1;
}

Demand PredictedLoad::DemandOf(const PodRequest& pod) const {
  if (pod.kind == OwnerKind::kService) {
    const CurveId id = service_curve(pod.owner);
    if (id != kNoCurve) {
      Demand demand = curve_peak_[id];
      demand.id = id;
      demand.curve = &curves_[static_cast<size_t>(id) * kNumDims * bins_];
      demand.block_peak = &curve_blocks_[static_cast<size_t>(id) * kNumDims * blocks_];
      return demand;
    }
  }
  return FlatDemand(pod.requests);
}

Demand PredictedLoad::DemandOf(const Container& c) const {
  return DemandOf(PodRequest{.requests = c.requests, .kind = c.kind, .owner = c.owner});
}

void PredictedLoad::Add(NodeId n, const Demand& demand) {
  for (int d = 0; d < kNumDims; ++d) {
    if (demand.peak[d] == 0.0f) continue;
    float* u = &usage_[Offset(n, static_cast<Dim>(d))];
    if (demand.curve == nullptr) {
      for (int b = 0; b < bins_; ++b) u[b] += demand.peak[d];
    } else {
      const float* c = demand.curve + static_cast<size_t>(d) * bins_;
      for (int b = 0; b < bins_; ++b) u[b] += c[b];
    }
    UpdatePeak(n, d);
  }
  UpdateQuantile(n, demand, +1);
  ++residents_[n];
}

void PredictedLoad::Remove(NodeId n, const Demand& demand) {
  if (--residents_[n] == 0) {
    // Exact zero: repeated float additions and subtractions would otherwise leave dust.
    std::fill_n(&usage_[Offset(n, Dim::kCpu)], static_cast<size_t>(kNumDims) * bins_, 0.0f);
    std::fill_n(&peak_[static_cast<size_t>(n) * kNumDims], kNumDims, 0.0f);
    std::fill_n(&peak_bin_[static_cast<size_t>(n) * kNumDims], kNumDims, 0);
    std::fill_n(&block_peak_[BlockOffset(n, 0)], static_cast<size_t>(kNumDims) * blocks_, 0.0f);
    ClearQuantile(n);
    return;
  }
  for (int d = 0; d < kNumDims; ++d) {
    if (demand.peak[d] == 0.0f) continue;
    float* u = &usage_[Offset(n, static_cast<Dim>(d))];
    if (demand.curve == nullptr) {
      for (int b = 0; b < bins_; ++b) u[b] -= demand.peak[d];
    } else {
      const float* c = demand.curve + static_cast<size_t>(d) * bins_;
      for (int b = 0; b < bins_; ++b) u[b] -= c[b];
    }
    UpdatePeak(n, d);
  }
  UpdateQuantile(n, demand, -1);
}

void PredictedLoad::ClearQuantile(NodeId n) {
  const size_t first = Offset(n, Dim::kCpu), count = static_cast<size_t>(kNumDims) * bins_;
  std::fill_n(&mean_sum_[first], count, 0.0f);
  std::fill_n(&deviation_sq_[first], count, 0.0);
  std::fill_n(&quantile_[first], count, 0.0f);
  std::fill_n(&quantile_block_max_[BlockOffset(n, 0)], static_cast<size_t>(kNumDims) * blocks_,
              0.0f);
  std::fill_n(&quantile_blocks_stale_[static_cast<size_t>(n) * kNumDims], kNumDims, 0);
  groups_[n].clear();
}

void PredictedLoad::UpdateQuantile(NodeId n, const Demand& demand, int sign) {
  // A group of k replicas deviates by k × dev, so one more (or one fewer) changes the sum of
  // squared group deviations by (2k ± 1) × dev² with k counted before the change.
  const float* mean = nullptr;
  const float* dev = nullptr;
  double factor = 0;
  bool group_emptied = false;
  if (demand.id != kNoCurve) {
    const size_t at = static_cast<size_t>(demand.id) * kNumDims * bins_;
    mean = &curve_mean_[at];
    dev = &curve_dev_[at];
    auto& groups = groups_[n];
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == demand.id; });
    if (it == groups.end() && sign > 0) {
      groups.emplace_back(demand.id, 0);
      it = groups.end() - 1;
    }
    if (it != groups.end()) {
      const int32_t k = it->second;
      factor = sign > 0 ? 2.0 * k + 1 : -(2.0 * k - 1);
      it->second += sign;
      if (it->second <= 0) {
        groups.erase(it);
        group_emptied = groups.empty();
      }
    }
  } else if (demand.curve != nullptr) {
    mean = demand.curve;  // a curve given by hand: its own mean, no deviation
  }
  for (int d = 0; d < kNumDims; ++d) {
    if (demand.peak[d] == 0.0f) continue;
    const size_t off = Offset(n, static_cast<Dim>(d));
    float* m = &mean_sum_[off];
    double* v = &deviation_sq_[off];
    float* q = &quantile_[off];
    if (mean == nullptr) {
      for (int b = 0; b < bins_; ++b) m[b] += static_cast<float>(sign) * demand.peak[d];
    } else {
      const float* md = mean + static_cast<size_t>(d) * bins_;
      for (int b = 0; b < bins_; ++b) m[b] += static_cast<float>(sign) * md[b];
    }
    if (dev != nullptr) {
      const float* dd = dev + static_cast<size_t>(d) * bins_;
      for (int b = 0; b < bins_; ++b) {
        const double x = dd[b];
        v[b] += factor * x * x;
      }
    }
    for (int b = 0; b < bins_; ++b) {
      q[b] = std::max(m[b] + static_cast<float>(std::sqrt(std::max(v[b], 0.0))), 0.0f);
    }
    quantile_blocks_stale_[static_cast<size_t>(n) * kNumDims + d] = 1;
  }
  if (!group_emptied) return;
  // Exact zero once no profiled resident is left: the squares would otherwise leave dust.
  for (int d = 0; d < kNumDims; ++d) {
    const size_t off = Offset(n, static_cast<Dim>(d));
    std::fill_n(&deviation_sq_[off], bins_, 0.0);
    for (int b = 0; b < bins_; ++b) quantile_[off + b] = std::max(mean_sum_[off + b], 0.0f);
    quantile_blocks_stale_[static_cast<size_t>(n) * kNumDims + d] = 1;
  }
}

void PredictedLoad::UpdateQuantileBlocks(NodeId n, int d) const {
  quantile_blocks_stale_[static_cast<size_t>(n) * kNumDims + d] = 0;
  const float* q = &quantile_[Offset(n, static_cast<Dim>(d))];
  float* blocks = &quantile_block_max_[BlockOffset(n, d)];
  for (int k = 0; k < blocks_; ++k) {
    blocks[k] = *std::max_element(q + static_cast<ptrdiff_t>(k) * block_bins_,
                                  q + static_cast<ptrdiff_t>(k + 1) * block_bins_);
  }
}

void PredictedLoad::UpdatePeak(NodeId n, int d) {
  const float* u = &usage_[Offset(n, static_cast<Dim>(d))];
  const float* top = std::max_element(u, u + bins_);
  peak_[n * kNumDims + d] = *top;
  peak_bin_[n * kNumDims + d] = static_cast<int32_t>(top - u);
  float* blocks = &block_peak_[BlockOffset(n, d)];
  for (int k = 0; k < blocks_; ++k) {
    blocks[k] = *std::max_element(u + static_cast<ptrdiff_t>(k) * block_bins_,
                                  u + static_cast<ptrdiff_t>(k + 1) * block_bins_);
  }
}

float PredictedLoad::PeakWith(NodeId n, Dim d, const Demand& demand) const {
  const int di = static_cast<int>(d);
  const float* u = &usage_[Offset(n, d)];
  if (demand.curve == nullptr) return peak_[n * kNumDims + di] + demand.peak[di];
  const float* c = demand.curve + static_cast<size_t>(di) * bins_;
  const int node_bin = peak_bin_[n * kNumDims + di], pod_bin = demand.peak_bin[di];
  float best = std::max(u[node_bin] + c[node_bin], u[pod_bin] + c[pod_bin]);
  const float* ub = &block_peak_[BlockOffset(n, di)];
  const float* cb = demand.block_peak + static_cast<size_t>(di) * blocks_;
  for (int k = 0; k < blocks_; ++k) {
    if (ub[k] + cb[k] <= best) continue;
    for (int b = k * block_bins_; b < (k + 1) * block_bins_; ++b)
      best = std::max(best, u[b] + c[b]);
  }
  return best;
}

void PredictedLoad::ExpectReplicas(const std::vector<Service>& services) {
  expected_.assign(static_cast<size_t>(num_services()), 0);
  service_requests_.assign(expected_.size(), Resources{});
  for (size_t s = 0; s < services.size() && s < expected_.size(); ++s) {
    expected_[s] = std::max(services[s].replicas, 0);
    service_requests_[s] = services[s].requests;
  }
  ResetPending();
}

void PredictedLoad::ResetPending() {
  running_.assign(expected_.size(), 0);
  pending_curve_.assign(static_cast<size_t>(kNumDims) * bins_, 0.0);
  pending_requests_ = {};
  pending_ = 0;
  for (size_t s = 0; s < expected_.size(); ++s) {
    for (const auto& zone : service_zone_) running_[s] += zone[s];
    for (int32_t r = running_[s]; r < expected_[s]; ++r) Pend(static_cast<int32_t>(s), +1);
  }
  fill_stale_ = true;
}

void PredictedLoad::Pend(int32_t service, int sign) {
  const Resources& requests = service_requests_[service];
  const Demand demand =
      DemandOf(PodRequest{.requests = requests, .kind = OwnerKind::kService, .owner = service});
  for (int d = 0; d < kNumDims; ++d) {
    pending_requests_[d] += sign * static_cast<double>(requests.amount[d]);
    double* sum = &pending_curve_[static_cast<size_t>(d) * bins_];
    const float* c =
        demand.curve == nullptr ? nullptr : demand.curve + static_cast<size_t>(d) * bins_;
    for (int b = 0; b < bins_; ++b) sum[b] += sign * static_cast<double>(c ? c[b] : demand.peak[d]);
  }
  pending_ += sign;
  fill_stale_ = true;
}

const FillCurve& PredictedLoad::fill() const {
  if (!fill_stale_) return fill_;
  fill_stale_ = false;
  if (pending_ <= 0) {
    fill_ = FillCurve{};
    return fill_;
  }
  const double n = static_cast<double>(pending_);
  for (int d = 0; d < kNumDims; ++d) {
    fill_.requests[d] = std::max(pending_requests_[d] / n, 0.0);
    fill_.per_request[d] = fill_.requests[d] > 0 ? 1.0 / fill_.requests[d] : 0.0;
  }
  fill_.curve.resize(pending_curve_.size());
  for (size_t i = 0; i < pending_curve_.size(); ++i) {
    fill_.curve[i] = static_cast<float>(std::max(pending_curve_[i] / n, 0.0));
  }
  fill_.blocks.resize(static_cast<size_t>(kNumDims) * blocks_);
  for (size_t k = 0; k < fill_.blocks.size(); ++k) {
    const float* c = &fill_.curve[k * block_bins_];
    fill_.blocks[k] = *std::max_element(c, c + block_bins_);
  }
  return fill_;
}

std::pair<float, float> PredictedLoad::ProjectedPeaks(NodeId n, Dim d, const Demand& demand,
                                                      const FillCurve& fill, float room,
                                                      float room_with) const {
  const int di = static_cast<int>(d);
  const float* ub = &block_peak_[BlockOffset(n, di)];
  const float* fb = &fill.blocks[static_cast<size_t>(di) * blocks_];
  const float* cb =
      demand.curve == nullptr ? nullptr : demand.block_peak + static_cast<size_t>(di) * blocks_;
  const float flat = demand.peak[di];
  // Each lane of the vector loop does the scalar loop's operations in the same order and max is
  // exact, so the two give the same values; it keeps this per-node work to a few dozen cycles.
  float before = 0, after = 0;
  int k = 0;
#if defined(__SSE2__)
  const __m128 r = _mm_set1_ps(room), r_with = _mm_set1_ps(room_with), c_flat = _mm_set1_ps(flat);
  __m128 most = _mm_setzero_ps(), most_with = _mm_setzero_ps();
  for (; k + 4 <= blocks_; k += 4) {
    const __m128 u4 = _mm_loadu_ps(ub + k), f4 = _mm_loadu_ps(fb + k);
    const __m128 c4 = cb == nullptr ? c_flat : _mm_loadu_ps(cb + k);
    most = _mm_max_ps(most, _mm_add_ps(u4, _mm_mul_ps(r, f4)));
    most_with = _mm_max_ps(most_with, _mm_add_ps(_mm_add_ps(u4, c4), _mm_mul_ps(r_with, f4)));
  }
  alignas(16) float lanes[4], lanes_with[4];
  _mm_store_ps(lanes, most);
  _mm_store_ps(lanes_with, most_with);
  before = std::max({lanes[0], lanes[1], lanes[2], lanes[3]});
  after = std::max({lanes_with[0], lanes_with[1], lanes_with[2], lanes_with[3]});
#endif
  for (; k < blocks_; ++k) {
    before = std::max(before, ub[k] + room * fb[k]);
    after = std::max(after, (ub[k] + (cb == nullptr ? flat : cb[k])) + room_with * fb[k]);
  }
  return {before, after};
}

bool PredictedLoad::StaysUnder(NodeId n, Dim d, const Demand& demand, float limit) const {
  const int di = static_cast<int>(d);
  if (peak_[n * kNumDims + di] + demand.peak[di] <= limit) return true;
  if (demand.curve == nullptr) return false;  // flat: the envelope sum is reached
  const float* u = &usage_[Offset(n, d)];
  const float* c = demand.curve + static_cast<size_t>(di) * bins_;
  const int node_bin = peak_bin_[n * kNumDims + di], pod_bin = demand.peak_bin[di];
  if (u[node_bin] + c[node_bin] > limit || u[pod_bin] + c[pod_bin] > limit) return false;
  const float* ub = &block_peak_[BlockOffset(n, di)];
  const float* cb = demand.block_peak + static_cast<size_t>(di) * blocks_;
  for (int k = 0; k < blocks_; ++k) {
    if (ub[k] + cb[k] <= limit) continue;
    for (int b = k * block_bins_; b < (k + 1) * block_bins_; ++b) {
      if (u[b] + c[b] > limit) return false;
    }
  }
  return true;
}

void PredictedLoad::Count(const Container& c, int delta) {
  ++version_;
  if (c.kind != OwnerKind::kService || c.owner >= num_services()) return;
  const int32_t zone = node_zone_[c.node], pod = node_pod_[c.node];
  service_zone_[zone][c.owner] += delta;
  service_pod_[pod][c.owner] += delta;
  if (static_cast<size_t>(c.owner) < expected_.size()) {
    // Pending while fewer than expected are resident: the first `expected` replicas count.
    if (delta > 0 && running_[c.owner]++ < expected_[c.owner]) Pend(c.owner, -1);
    if (delta < 0 && --running_[c.owner] < expected_[c.owner]) Pend(c.owner, +1);
  }
  const int32_t app = service_app_[c.owner];
  if (app < 0) return;
  app_zone_[zone][app] += delta;
  app_pod_[pod][app] += delta;
}

void PredictedLoad::AddContainer(const Container& c) {
  Add(c.node, DemandOf(c));
  Count(c, +1);
}

void PredictedLoad::RemoveContainer(const Container& c) {
  Remove(c.node, DemandOf(c));
  Count(c, -1);
}

void PredictedLoad::ClearResidents() {
  std::fill(usage_.begin(), usage_.end(), 0.0f);
  std::fill(peak_.begin(), peak_.end(), 0.0f);
  std::fill(peak_bin_.begin(), peak_bin_.end(), 0);
  std::fill(block_peak_.begin(), block_peak_.end(), 0.0f);
  std::fill(mean_sum_.begin(), mean_sum_.end(), 0.0f);
  std::fill(deviation_sq_.begin(), deviation_sq_.end(), 0.0);
  std::fill(quantile_.begin(), quantile_.end(), 0.0f);
  std::fill(quantile_block_max_.begin(), quantile_block_max_.end(), 0.0f);
  std::fill(quantile_blocks_stale_.begin(), quantile_blocks_stale_.end(), 0);
  for (auto& groups : groups_) groups.clear();
  std::fill(residents_.begin(), residents_.end(), 0);
  for (auto* table : {&app_zone_, &app_pod_, &service_zone_, &service_pod_}) {
    for (auto& counts : *table) std::fill(counts.begin(), counts.end(), 0);
  }
  if (!expected_.empty()) ResetPending();
  ++version_;
}

void PredictedLoad::FreeCurve(NodeId n, Dim d, std::span<float> out) const {
  const float* u = &quantile_[Offset(n, d)];
  const float lim = limit(n, d);
  for (int b = 0; b < bins_; ++b) out[b] = lim - u[b];
}

float PredictedLoad::MinFree(NodeId n, Dim d, int first_bin, int num_bins) const {
  const float* u = &quantile_[Offset(n, d)];
  if (quantile_blocks_stale_[static_cast<size_t>(n) * kNumDims + static_cast<size_t>(d)] != 0) {
    UpdateQuantileBlocks(n, static_cast<int>(d));
  }
  const float* blocks = &quantile_block_max_[BlockOffset(n, static_cast<int>(d))];
  float most = 0.0f;
  int b = ((first_bin % bins_) + bins_) % bins_;
  int left = std::min(num_bins, bins_);
  // Bin by bin up to a block boundary, then whole blocks by their maxima, then the rest: the
  // maximum is exact either way.
  while (left > 0) {
    if (b % block_bins_ == 0 && left >= block_bins_) {
      most = std::max(most, blocks[b / block_bins_]);
      b += block_bins_;
      left -= block_bins_;
    } else {
      most = std::max(most, u[b]);
      ++b;
      --left;
    }
    if (b == bins_) b = 0;
  }
  return limit(n, d) - most;
}

}  // namespace archimedes
