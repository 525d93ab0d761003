#include "engine/surge_margin.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "profile/profiler.h"

namespace archimedes {
namespace {

constexpr std::array<Dim, 2> kMarginDims = {Dim::kCpu, Dim::kMemory};

}  // namespace

SurgeMargin::SurgeMargin(const std::vector<Service>& services, const ProfileSet& profiles, double z)
    : bins_(profiles.bins),
      z_(z),
      z_high_(NormalQuantile(profiles.high_quantile)),
      service_app_(services.size(), -1),
      service_request_(services.size()) {
  std::unordered_map<std::string, int32_t> apps;
  for (size_t s = 0; s < services.size(); ++s) {
    for (int d = 0; d < 2; ++d) {
      service_request_[s][d] = static_cast<float>(services[s].requests[kMarginDims[d]]);
    }
    const std::string& app = AppName(services[s]);
    const AppProfile* profile = profiles.normalized ? nullptr : profiles.Find(app);
    if (profile == nullptr) continue;
    const auto [it, added] = apps.try_emplace(app, static_cast<int32_t>(apps.size()));
    service_app_[s] = it->second;
    if (!added) continue;
    std::array<float, 2>& burst = app_burst_ratio_.emplace_back();
    for (int d = 0; d < 2; ++d) {
      const float high_peak = profile->high[static_cast<int>(kMarginDims[d])].Peak();
      burst[d] = high_peak > 0
                     ? std::max(1.0f, profile->peak[static_cast<int>(kMarginDims[d])] / high_peak)
                     : 1.0f;
    }
    for (Dim dim : kMarginDims) {
      const DailyCurve& mean = profile->mean[static_cast<int>(dim)];
      const DailyCurve& high = profile->high[static_cast<int>(dim)];
      // A bin's spread rests on a handful of samples; the spread relative to the level, over the
      // whole day, is steadier (usage noise scales with the level).
      double spread = 0, level = 0;
      for (int b = 0; b < bins_; ++b) {
        spread += std::max(0.0f, high[b] - mean[b]);
        level += mean[b];
      }
      const double relative = level > 0 ? spread / (level * z_high_) : 0.0;
      for (int b = 0; b < bins_; ++b) curves_.push_back(mean[b]);
      for (int b = 0; b < bins_; ++b) curves_.push_back(static_cast<float>(mean[b] * relative));
    }
  }
}

const std::array<float, 2>& SurgeMargin::burst_ratio(int32_t service) const {
  static constexpr std::array<float, 2> kNone = {1.0f, 1.0f};
  const int32_t app = service_app_[service];
  return app < 0 ? kNone : app_burst_ratio_[app];
}

std::array<double, 2> SurgeMargin::Margin(int bin, std::span<int32_t> staying,
                                          std::span<const int32_t> leaving,
                                          const std::array<double, 2>& usage) const {
  std::array<double, 2> mean{}, high{};
  auto add_to_envelope = [&](int32_t s) {
    const int32_t app = service_app_[s];
    for (int d = 0; d < 2; ++d) {
      if (app < 0) {
        mean[d] += service_request_[s][d];
        high[d] += service_request_[s][d];
        continue;
      }
      const float m = Curve(app, d, false)[bin];
      mean[d] += m;
      high[d] += m + z_high_ * Curve(app, d, true)[bin];
    }
  };
  for (int32_t s : staying) add_to_envelope(s);
  for (int32_t s : leaving) add_to_envelope(s);
  std::array<double, 2> margin{};
  std::array<bool, 2> surging{};
  for (int d = 0; d < 2; ++d) surging[d] = mean[d] > 0 && usage[d] > high[d];
  if (!surging[0] && !surging[1]) return margin;
  std::sort(staying.begin(), staying.end());
  std::array<double, 2> variance{}, burst{};
  for (size_t i = 0; i < staying.size();) {
    const int32_t s = staying[i];
    size_t j = i;
    while (j < staying.size() && staying[j] == s) ++j;
    const int32_t app = service_app_[s];
    if (app >= 0) {
      const double n = static_cast<double>(j - i);
      for (int d = 0; d < 2; ++d) {
        const double sigma = n * Curve(app, d, true)[bin];
        variance[d] += sigma * sigma;
        const double high = Curve(app, d, false)[bin] + z_high_ * Curve(app, d, true)[bin];
        burst[d] = std::max(burst[d], (app_burst_ratio_[app][d] - 1.0) * high);
      }
    }
    i = j;
  }
  for (int d = 0; d < 2; ++d) {
    if (surging[d]) margin[d] = (usage[d] / mean[d]) * (z_ * std::sqrt(variance[d]) + burst[d]);
  }
  return margin;
}

}  // namespace archimedes
