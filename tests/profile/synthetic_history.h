// A test helper: a usage history of applications whose daily-shape family is known, with noise,
// bursts, irregular sampling, missing samples, outlier days and (optionally) injected anomalies, so
// that tests can score what the profiler recovers. Deterministic for a seed.
//
// Families (like the simulator's generator): daytime (CPU peak ~14h), night (~2h), flat, cache
// (memory-heavy, flat CPU), spiky (short daily spikes and frequent bursts). Levels are lognormal;
// disk and network levels are independent of the family.
#ifndef ARCHIMEDES_TESTS_PROFILE_SYNTHETIC_HISTORY_H_
#define ARCHIMEDES_TESTS_PROFILE_SYNTHETIC_HISTORY_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "model/resources.h"
#include "profile/profile.h"

namespace archimedes::testing {

inline constexpr std::array<const char*, 5> kFamilies = {"daytime", "night", "flat", "cache",
                                                         "spiky"};

struct SyntheticParams {
  int apps = 100;
  int days = 7;
  int replicas_min = 4;
  int replicas_max = 8;
  int64_t step_s = 300;
  double noise = 0.1;
  double missing = 0.02;           // share of samples dropped
  double outlier_day_share = 0.1;  // of apps that get one day at 2× usage
  int anomalies_per_kind = 0;      // containers per anomaly kind
  int64_t anomaly_onset_s = 2 * 86'400 + 6 * 3600;
  uint64_t seed = 7;
};

struct InjectedAnomaly {
  std::string app;
  std::string container;
  WarningKind kind;
  int64_t onset = 0;
  int64_t limit_reached = -1;  // first sample time at or above the limit; -1 = never
};

struct SyntheticApp {
  std::string name;
  int family = 0;
  int replicas = 0;
  std::array<double, kProfileDims> level{};
  double peak_hour = 0;
  std::array<double, kNumDims> limit{};  // per replica: 3 × the noiseless p99 per dimension
  int outlier_day = -1;
  std::array<double, 3> spike_hours{};
};

struct SyntheticHistory {
  std::vector<SyntheticApp> apps;
  std::vector<InjectedAnomaly> anomalies;
};

using SampleSink =
    std::function<void(int64_t time, const std::string& app, const std::string& container,
                       const std::array<float, kNumDims>& usage)>;

// The noiseless per-replica usage of `app` in dimension d at time t.
inline double SyntheticShape(const SyntheticApp& app, int d, int64_t t) {
  double hour = static_cast<double>(t % 86'400) / 3600.0;
  double cycle = std::cos(2 * std::numbers::pi * (hour - app.peak_hour) / 24.0);
  double cpu = 1.0;
  switch (app.family) {
    case 0:
    case 1:
      cpu = 1.0 + 0.6 * cycle;
      break;
    case 2:
      cpu = 1.0;
      break;
    case 3:
      cpu = 1.0 + 0.08 * cycle;
      break;
    case 4:
      for (double s : app.spike_hours) {
        double distance = std::abs(hour - s);
        if (std::min(distance, 24 - distance) < 0.25) cpu = 2.5;
      }
      break;
  }
  if (d == static_cast<int>(Dim::kCpu)) return app.level[d] * cpu;
  if (d == static_cast<int>(Dim::kMemory)) return app.level[d] * (1.0 + 0.2 * (cpu - 1.0));
  return app.level[d] * (1.0 + 0.5 * (cpu - 1.0));
}

// The applications and the anomalies to inject (no samples yet).
inline SyntheticHistory PlanSyntheticHistory(const SyntheticParams& params) {
  std::mt19937_64 rng(params.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  SyntheticHistory history;
  for (int i = 0; i < params.apps; ++i) {
    SyntheticApp a;
    a.family = i % 5;
    char name[64];
    std::snprintf(name, sizeof name, "%s-%03d", kFamilies[a.family], i);
    a.name = name;
    a.replicas = params.replicas_min +
                 static_cast<int>(uniform(rng) * (params.replicas_max - params.replicas_min + 1));
    double cpu = 1000.0 * std::exp(0.8 * normal(rng));
    double gib_per_core = (a.family == 3 ? 12.0 : 2.5) * std::exp(0.4 * normal(rng));
    a.level = {cpu, cpu / 1000.0 * gib_per_core * (1 << 30), 20e6 * std::exp(normal(rng)),
               25e6 * std::exp(normal(rng))};
    a.peak_hour = (a.family == 1 ? 2.0 : 14.0) + 3.0 * (uniform(rng) - 0.5);
    for (double& s : a.spike_hours) s = 24.0 * uniform(rng);
    if (uniform(rng) < params.outlier_day_share)
      a.outlier_day = static_cast<int>(uniform(rng) * params.days);
    for (int d = 0; d < kProfileDims; ++d) {
      double peak = 0;
      for (int64_t t = 0; t < 86'400; t += params.step_s)
        peak = std::max(peak, SyntheticShape(a, d, t));
      a.limit[d] = 3.0 * peak * (1.0 + 2.33 * params.noise);
    }
    history.apps.push_back(a);
  }

  // Anomalies go to distinct apps, the first replica of each; those apps get no outlier day, so
  // that an injected anomaly is judged on its own.
  const std::array<WarningKind, 3> kinds = {WarningKind::kMemoryLeak, WarningKind::kCpuStuckHigh,
                                            WarningKind::kDivergentReplica};
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < params.anomalies_per_kind; ++j) {
      int app = (k * params.anomalies_per_kind + j) * 3 % params.apps;
      history.apps[app].outlier_day = -1;
      history.anomalies.push_back({history.apps[app].name, history.apps[app].name + "-r0", kinds[k],
                                   params.anomaly_onset_s, -1});
    }
  }
  return history;
}

// Streams the samples of a planned history, in time order, into `sink`; records in
// history.anomalies when each injected anomaly first reached its limit.
inline void StreamSyntheticHistory(const SyntheticParams& params, SyntheticHistory& history,
                                   const SampleSink& sink) {
  std::mt19937_64 rng(params.seed + 1);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  struct Target {
    int app;
    WarningKind kind;
    size_t anomaly;
  };
  std::vector<Target> targets;
  for (size_t k = 0; k < history.anomalies.size(); ++k) {
    for (size_t i = 0; i < history.apps.size(); ++i) {
      if (history.apps[i].name == history.anomalies[k].app) {
        targets.push_back({static_cast<int>(i), history.anomalies[k].kind, k});
      }
    }
  }
  const double memory_leak_per_s = 1.0 / (3.0 * 86'400);  // reaches 3 × level in ~3 days

  for (int64_t step = 0; step * params.step_s < params.days * 86'400; ++step) {
    for (size_t i = 0; i < history.apps.size(); ++i) {
      const SyntheticApp& a = history.apps[i];
      for (int r = 0; r < a.replicas; ++r) {
        if (uniform(rng) < params.missing) continue;
        int64_t t = step * params.step_s + static_cast<int64_t>(uniform(rng) * 60.0);
        bool burst = a.family == 4 ? uniform(rng) < 0.03 : uniform(rng) < 0.002;
        double day_factor = static_cast<int>(t / 86'400) == a.outlier_day ? 2.0 : 1.0;
        std::array<float, kNumDims> usage{};
        for (int d = 0; d < kProfileDims; ++d) {
          double v = SyntheticShape(a, d, t) * day_factor *
                     std::max(0.05, 1.0 + params.noise * normal(rng));
          if (burst && d == static_cast<int>(Dim::kCpu)) v *= 3.0;
          usage[d] = static_cast<float>(v);
        }
        if (r == 0) {
          for (const Target& target : targets) {
            if (target.app != static_cast<int>(i) || t < params.anomaly_onset_s) continue;
            double since = static_cast<double>(t - params.anomaly_onset_s);
            InjectedAnomaly& anomaly = history.anomalies[target.anomaly];
            int dim = 0;
            switch (target.kind) {
              case WarningKind::kMemoryLeak:
                dim = static_cast<int>(Dim::kMemory);
                usage[dim] += static_cast<float>(a.level[dim] * 2.0 * since * memory_leak_per_s);
                break;
              case WarningKind::kCpuStuckHigh: {
                // A runaway loop: CPU climbs to the limit over 12 hours and stays pinned.
                dim = static_cast<int>(Dim::kCpu);
                double climb = std::min(1.0, since / (12.0 * 3600));
                usage[dim] = static_cast<float>(std::max<double>(
                    usage[dim], climb * a.limit[dim] * (1.0 + 0.01 * normal(rng))));
                break;
              }
              case WarningKind::kDivergentReplica: {
                // A hot shard: every dimension drifts to 4× its siblings over a day.
                double factor = 1.0 + 3.0 * std::min(1.0, since / 86'400.0);
                for (int d = 0; d < kProfileDims; ++d) usage[d] *= static_cast<float>(factor);
                for (int d = 0; d < kProfileDims; ++d) {
                  if (anomaly.limit_reached < 0 && usage[d] >= a.limit[d])
                    anomaly.limit_reached = t;
                }
                break;
              }
            }
            if (anomaly.limit_reached < 0 && usage[dim] >= a.limit[dim] * 0.999)
              anomaly.limit_reached = t;
          }
        }
        sink(t, a.name, a.name + "-r" + std::to_string(r), usage);
      }
    }
  }
}

inline SyntheticHistory GenerateSyntheticHistory(const SyntheticParams& params,
                                                 const SampleSink& sink) {
  SyntheticHistory history = PlanSyntheticHistory(params);
  StreamSyntheticHistory(params, history, sink);
  return history;
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_PROFILE_SYNTHETIC_HISTORY_H_
