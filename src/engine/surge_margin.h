// How much a node's services may still rise within one usage step when they run above their
// profiles' envelope (a surge the profiles never saw), so that overload relief starts a
// make-before-break move while the node still has the margin to wait for the replacement.
//
// Inside the envelope (Σ replicas' high curves at the current bin) the profiles bound the next step
// and the margin is 0: placement already kept that envelope under the threshold, and a move there
// would be a move without need. Above it, the surge scales everything the profiles knew by
// k = usage / Σ mean, noise included, and the next step may land anywhere within
//   margin = z × k × sqrt(Σ_services (n_s × σ_s)²) + k × max_replicas burst_s
// where σ_s is one replica's standard deviation at the bin: its mean there times the profile's
// relative spread, Σ_bins (high − mean) / (Φ⁻¹(high quantile) × Σ_bins mean), and the n_s replicas
// of one service on the node are taken as moving together (they share traffic), different services
// as independent. Bursts are rarer and larger than that spread: one replica at a time may jump to
// the highest sample its application ever showed, relative to its curve, burst_s =
// (AppProfile::peak / peak of the high curve − 1) × high_s.
#ifndef ARCHIMEDES_ENGINE_SURGE_MARGIN_H_
#define ARCHIMEDES_ENGINE_SURGE_MARGIN_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "model/workload.h"
#include "profile/profile.h"

namespace archimedes {

class SurgeMargin {
 public:
  // Services whose application has no profile (or profiles in normalised units) count by their
  // requests, with no spread.
  // `z` is the standard normal quantile the next step must stay under (3 ≈ 99.87 %).
  SurgeMargin(const std::vector<Service>& services, const ProfileSet& profiles, double z);

  int bins() const { return bins_; }
  // How far above its high curve one replica of `service` was ever seen (peak ÷ peak of the high
  // curve, ≥ 1; cpu, memory); 1 without a profile.
  const std::array<float, 2>& burst_ratio(int32_t service) const;

  // The cpu and memory margins of a node at `bin` whose service replicas are `staying` (service
  // indices; reordered) and `leaving` (moves under way: counted in the envelope and in k, not in
  // the margin), using `usage` (cpu, memory) now. No allocation once warmed up.
  std::array<double, 2> Margin(int bin, std::span<int32_t> staying,
                               std::span<const int32_t> leaving,
                               const std::array<double, 2>& usage) const;

 private:
  // Per application, dimension (cpu, memory) and bin: the mean and the standard deviation.
  const float* Curve(int32_t app, int dim, bool sigma) const {
    return &curves_[((static_cast<size_t>(app) * 2 + dim) * 2 + sigma) * bins_];
  }

  int bins_ = 0;
  double z_ = 3.0;
  double z_high_ = 1.0;               // Φ⁻¹ of the profiles' high quantile
  std::vector<int32_t> service_app_;  // -1 without a profile: predicted by its requests, flat
  std::vector<std::array<float, 2>> app_burst_ratio_;
  std::vector<std::array<float, 2>> service_request_;
  std::vector<float> curves_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_SURGE_MARGIN_H_
