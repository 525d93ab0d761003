#include "sim/regime.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace archimedes {
namespace {

// Day-mean usage of one replica in dimension `d` (canonical units); CPU with its expected bursts.
double MeanReplicaUsage(const Service& service, Dim d) {
  if (d == Dim::kCpu) return MeanReplicaCpuCores(service) * 1000.0;  // cores to millicores
  const std::vector<float>& values = service.usage.values[static_cast<int>(d)];
  if (values.empty()) return 0.0;
  double sum = 0.0;
  for (float v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

constexpr int kBisectionSteps = 10;  // the load to 1/512 of the linear guess

// Σ mean requests of the stream in `d` ÷ the room: allocatable × (1 − buffer) less the services'
// mean usage (1 fills it exactly; infinite when there is no room).
double RoomFilled(const Scenario& scenario, Dim d, double buffer) {
  double room = 0;
  for (const Node& n : scenario.nodes) room += static_cast<double>(n.allocatable[d]);
  room *= 1.0 - buffer;
  for (const Service& s : scenario.workload.services) room -= s.replicas * MeanReplicaUsage(s, d);
  double requested = 0;
  for (const BatchJob& job : scenario.workload.jobs) {
    requested += static_cast<double>(job.tasks) * static_cast<double>(job.task_requests[d]) *
                 static_cast<double>(job.duration_s);
  }
  requested /= static_cast<double>(scenario.duration_s);
  if (requested <= 0) return 0;
  return room > 0 ? requested / room : std::numeric_limits<double>::infinity();
}

}  // namespace

Regime ParseRegime(std::string_view text) {
  if (text == "fits") return Regime::kFits;
  if (text == "overloaded") return Regime::kOverloaded;
  throw std::invalid_argument("--regime: expected fits or overloaded, got \"" + std::string(text) +
                              "\"");
}

std::string_view RegimeName(Regime regime) {
  return regime == Regime::kFits ? "fits" : "overloaded";
}

std::string_view RegimeHeadline(Regime regime) {
  return regime == Regime::kFits
             ? "batch offered ≈ what the fleet can reclaim; read: started in tolerance"
             : "more batch offered than any policy completes; read: batch core-h/day, "
               "lateness";
}

GeneratorParams ForRegime(GeneratorParams params, Regime regime, double buffer) {
  params.batch_load = 1.0;
  if (regime == Regime::kOverloaded) return params;
  // The stream is drawn job by job, so what it fills is only roughly linear in the load: the
  // largest load that does not overfill is found by bisection from the linear guess.
  auto fill_at = [&](double load) {
    GeneratorParams p = params;
    p.batch_load = load;
    const Scenario drawn = GenerateScenario(p);
    return std::max(RoomFilled(drawn, Dim::kCpu, buffer), RoomFilled(drawn, Dim::kMemory, buffer));
  };
  const double at_one = fill_at(1.0);
  if (at_one <= 0) return params;
  double fits = 0, overfills = 2.0 / at_one;
  if (fill_at(overfills) <= 1) {
    params.batch_load = overfills;
    return params;
  }
  for (int step = 0; step < kBisectionSteps; ++step) {
    const double mid = (fits + overfills) / 2;
    (fill_at(mid) <= 1 ? fits : overfills) = mid;
  }
  params.batch_load = fits;
  return params;
}

}  // namespace archimedes
