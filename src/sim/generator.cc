#include "sim/generator.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <numbers>
#include <stdexcept>
#include <string>
#include <system_error>

#include "model/duration.h"
#include "model/limits.h"
#include "model/quantile.h"
#include "model/quantity.h"
#include "model/random.h"

namespace archimedes {
namespace {

constexpr int kBinsPerDay = 288;
constexpr int64_t kBinSeconds = kSecondsPerDay / kBinsPerDay;
constexpr double kMilli = 1000.0;

// ---------------------------------------------------------------------------------------------
// Randomness: independent streams of one seed, so that the fleet, the services and the batch jobs
// each draw from their own.

enum Stream : uint64_t {
  kFleetStream = 1,
  kServiceStream = 2,
  kBatchStream = 3,
  kArrivalStream = 4
};

Random StreamOf(uint64_t seed, Stream stream) {
  return Random(SplitMix64(seed ^ SplitMix64(stream)));
}

std::vector<double> Cumulative(const std::vector<double>& weights) {
  std::vector<double> cumulative(weights.size());
  double sum = 0.0;
  for (size_t i = 0; i < weights.size(); ++i) cumulative[i] = sum += weights[i];
  return cumulative;
}

std::string Numbered(std::string_view prefix, int64_t n, int width) {
  std::string digits = std::to_string(n);
  if (std::ssize(digits) < width) digits.insert(0, width - digits.size(), '0');
  return std::string(prefix) + digits;
}

// ---------------------------------------------------------------------------------------------
// Parameters: one table drives SetGeneratorParam, DescribeGeneratorParams and the scenario name.

[[noreturn]] void BadValue(std::string_view key, std::string_view value, std::string_view why) {
  throw std::invalid_argument("generator parameter '" + std::string(key) + "': bad value '" +
                              std::string(value) + "': " + std::string(why));
}

template <typename T>
T ParseNumber(std::string_view key, std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    BadValue(key, text, "not a number");
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) BadValue(key, text, "not a finite number");
  }
  return value;
}

std::string FormatDouble(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

// Whole seconds ("90") or a duration ("15m", "1h30m").
int64_t ParseSeconds(std::string_view key, std::string_view text) {
  if (!text.empty() && text.back() >= '0' && text.back() <= '9') {
    return ParseNumber<int64_t>(key, text);
  }
  try {
    return ParseDuration(text);
  } catch (const DurationError& e) {
    BadValue(key, text, e.what());
  }
}

struct Param {
  std::string key;
  std::string unit;
  std::string description;
  std::function<std::string(const GeneratorParams&)> get;
  std::function<void(GeneratorParams&, std::string_view key, std::string_view value)> set;
};

template <typename T>
using Field = std::function<T&(GeneratorParams&)>;

template <typename T>
const T& Read(const Field<T>& field, const GeneratorParams& p) {
  return field(const_cast<GeneratorParams&>(p));
}

void CheckRange(std::string_view key, std::string_view text, double v, double lo, double hi) {
  if (v < lo || v > hi) {
    BadValue(key, text, "must be in [" + FormatDouble(lo) + ", " + FormatDouble(hi) + "]");
  }
}

Param IntParam(std::string key, std::string unit, std::string description, const Field<int>& field,
               int lo, int hi) {
  return {std::move(key), std::move(unit), std::move(description),
          [field](const GeneratorParams& p) { return std::to_string(Read(field, p)); },
          [field, lo, hi](GeneratorParams& p, std::string_view k, std::string_view v) {
            const int64_t n = ParseNumber<int64_t>(k, v);
            CheckRange(k, v, static_cast<double>(n), lo, hi);
            field(p) = static_cast<int>(n);
          }};
}

Param DoubleParam(std::string key, std::string unit, std::string description,
                  const Field<double>& field, double lo, double hi) {
  return {std::move(key), std::move(unit), std::move(description),
          [field](const GeneratorParams& p) { return FormatDouble(Read(field, p)); },
          [field, lo, hi](GeneratorParams& p, std::string_view k, std::string_view v) {
            const double x = ParseNumber<double>(k, v);
            CheckRange(k, v, x, lo, hi);
            field(p) = x;
          }};
}

Param SecondsParam(std::string key, std::string description, const Field<int64_t>& field,
                   int64_t lo) {
  return {std::move(key), "s", std::move(description),
          [field](const GeneratorParams& p) { return std::to_string(Read(field, p)); },
          [field, lo](GeneratorParams& p, std::string_view k, std::string_view v) {
            const int64_t s = ParseSeconds(k, v);
            if (s < lo) BadValue(k, v, "must be at least " + std::to_string(lo) + " s");
            field(p) = s;
          }};
}

// CPU in millicores, written as a Kubernetes CPU quantity. Must be positive.
Param CpuParam(std::string key, std::string description, const Field<int64_t>& field) {
  return {std::move(key), "cpu", std::move(description),
          [field](const GeneratorParams& p) { return FormatMilli(Read(field, p)); },
          [field](GeneratorParams& p, std::string_view k, std::string_view v) {
            int64_t milli = 0;
            try {
              milli = ParseMilli(v);
            } catch (const QuantityError& e) {
              BadValue(k, v, e.what());
            }
            if (milli <= 0) BadValue(k, v, "must be positive");
            field(p) = milli;
          }};
}

// Bytes or bytes/s, written as a Kubernetes quantity. Must be positive.
Param BytesParam(std::string key, std::string unit, std::string description,
                 const Field<int64_t>& field) {
  return {std::move(key), std::move(unit), std::move(description),
          [field](const GeneratorParams& p) { return FormatBytes(Read(field, p)); },
          [field](GeneratorParams& p, std::string_view k, std::string_view v) {
            int64_t bytes = 0;
            try {
              bytes = ParseUnits(v);
            } catch (const QuantityError& e) {
              BadValue(k, v, e.what());
            }
            if (bytes <= 0) BadValue(k, v, "must be positive");
            field(p) = bytes;
          }};
}

constexpr double kNoMax = 1e18;

void AddTierParams(std::vector<Param>& out, const std::string& name, const std::string& qos,
                   ServiceTierParams GeneratorParams::*tier) {
  const std::string k = "tier." + name + ".";
  out.push_back(DoubleParam(
      k + "share", "ratio", "relative share of services in the " + name + " tier (QoS " + qos + ")",
      [tier](GeneratorParams& p) -> double& { return (p.*tier).share; }, 0, kNoMax));
  out.push_back(IntParam(
      k + "priority", "", "priority of " + name + " services",
      [tier](GeneratorParams& p) -> int& { return (p.*tier).priority; }, 0, 1'000'000'000));
  out.push_back(DoubleParam(
      k + "availability", "ratio", "SLA availability target of " + name + " services",
      [tier](GeneratorParams& p) -> double& { return (p.*tier).availability; }, 0, 1));
  out.push_back(DoubleParam(
      k + "min_available_share", "ratio",
      "SLA min_available = floor(replicas × this) for " + name + " services",
      [tier](GeneratorParams& p) -> double& { return (p.*tier).min_available_share; }, 0, 1));
}

void AddBatchTypeParams(std::vector<Param>& out, const std::string& name,
                        BatchTypeParams GeneratorParams::*type) {
  const std::string k = name + ".";
  auto f = [type]<typename T>(T BatchTypeParams::*m) {
    return [type, m](GeneratorParams& p) -> T& { return (p.*type).*m; };
  };
  out.push_back(IntParam(k + "functions", "", "recurring " + name + " functions (Zipf popularity)",
                         f(&BatchTypeParams::functions), 1, 1'000'000));
  out.push_back(IntParam(k + "priority", "", "priority of " + name + " jobs (below every tier)",
                         f(&BatchTypeParams::priority), 0, 1'000'000'000));
  out.push_back(DoubleParam(k + "tasks_median", "tasks",
                            "median task count of one " + name + " job",
                            f(&BatchTypeParams::tasks_median), 1, 1e7));
  out.push_back(DoubleParam(k + "tasks_sigma", "", "lognormal sigma of the task count",
                            f(&BatchTypeParams::tasks_sigma), 0, 10));
  out.push_back(IntParam(k + "tasks_max", "tasks", "largest task count of one " + name + " job",
                         f(&BatchTypeParams::tasks_max), 1, 10'000'000));
  out.push_back(DoubleParam(k + "duration_median", "s",
                            "median task duration of one " + name + " function",
                            f(&BatchTypeParams::duration_median_s), 1, 1e7));
  out.push_back(DoubleParam(k + "duration_sigma", "",
                            "lognormal sigma of the duration medians across functions",
                            f(&BatchTypeParams::duration_sigma), 0, 10));
  out.push_back(SecondsParam(k + "duration_min", "shortest " + name + " task duration",
                             f(&BatchTypeParams::duration_min_s), 1));
  out.push_back(SecondsParam(k + "duration_max", "longest " + name + " task duration",
                             f(&BatchTypeParams::duration_max_s), 1));
  out.push_back(SecondsParam(k + "tolerance_min", "shortest delay tolerance (log-uniform)",
                             f(&BatchTypeParams::tolerance_min_s), 0));
  out.push_back(SecondsParam(k + "tolerance_max", "longest delay tolerance (log-uniform)",
                             f(&BatchTypeParams::tolerance_max_s), 0));
  out.push_back(CpuParam(k + "cpu_min", "smallest per-task CPU request (log-uniform per function)",
                         f(&BatchTypeParams::cpu_min)));
  out.push_back(
      CpuParam(k + "cpu_max", "largest per-task CPU request", f(&BatchTypeParams::cpu_max)));
  out.push_back(BytesParam(k + "memory_per_core_min", "bytes/core",
                           "smallest task memory per requested core (log-uniform per function)",
                           f(&BatchTypeParams::memory_per_core_min)));
  out.push_back(BytesParam(k + "memory_per_core_max", "bytes/core",
                           "largest task memory per requested core",
                           f(&BatchTypeParams::memory_per_core_max)));
  out.push_back(DoubleParam(k + "peak_hour", "h", "hour of day of the highest arrival rate",
                            f(&BatchTypeParams::peak_hour), 0, 24));
  out.push_back(DoubleParam(k + "diurnal_amplitude", "ratio",
                            "arrival rate ∝ 1 + amplitude × cos(2π (hour − peak_hour) / 24)",
                            f(&BatchTypeParams::diurnal_amplitude), 0, 1));
}

std::vector<Param> BuildParamTable() {
  std::vector<Param> t;
  using P = GeneratorParams;
  auto field = []<typename T>(T P::*m) { return [m](P& p) -> T& { return p.*m; }; };

  t.push_back(IntParam("nodes", "nodes", "fleet size", field(&P::nodes), 1, kMaxNodes));
  t.push_back(IntParam("days", "days", "horizon of the scenario (duration_s = days × 86400)",
                       field(&P::days), 1, kMaxDays));
  t.push_back(
      {"seed", "", "random seed; the scenario is a pure function of the parameters",
       [](const P& p) { return std::to_string(p.seed); },
       [](P& p, std::string_view k, std::string_view v) { p.seed = ParseNumber<uint64_t>(k, v); }});
  t.push_back(IntParam("zones", "zones", "availability zones; PODs are dealt to them in turn",
                       field(&P::zones), 1, 1000));
  t.push_back(IntParam("pod_nodes_min", "nodes", "smallest POD (rack), uniform per POD",
                       field(&P::pod_nodes_min), 1, 100'000));
  t.push_back(IntParam("pod_nodes_max", "nodes", "largest POD (rack)", field(&P::pod_nodes_max), 1,
                       100'000));
  for (int g = 0; g < std::ssize(P{}.generations); ++g) {
    const std::string k = "gen." + P{}.generations[g].name + ".";
    auto dim = [g](Dim d) {
      return [g, d](P& p) -> int64_t& { return p.generations[g].capacity[d]; };
    };
    t.push_back(DoubleParam(
        k + "share", "ratio", "relative share of nodes of this generation",
        [g](P& p) -> double& { return p.generations[g].share; }, 0, kNoMax));
    t.push_back(CpuParam(k + "cpu", "CPU capacity of one node", dim(Dim::kCpu)));
    t.push_back(
        BytesParam(k + "memory", "bytes", "memory capacity of one node", dim(Dim::kMemory)));
    t.push_back(
        BytesParam(k + "disk", "bytes/s", "storage I/O capacity of one node", dim(Dim::kDisk)));
    t.push_back(
        BytesParam(k + "network", "bytes/s", "network capacity of one node", dim(Dim::kNetwork)));
  }
  t.push_back(DoubleParam("reserved_cpu_share", "ratio",
                          "system reservation of CPU: allocatable = capacity × (1 − this)",
                          field(&P::reserved_cpu_share), 0, 0.9));
  t.push_back(DoubleParam("reserved_memory_share", "ratio", "system reservation of memory",
                          field(&P::reserved_memory_share), 0, 0.9));
  t.push_back(DoubleParam("reserved_io_share", "ratio",
                          "system reservation of disk and network I/O",
                          field(&P::reserved_io_share), 0, 0.9));

  t.push_back(DoubleParam("service_cpu_share_min", "ratio",
                          "lowest target of Σ service CPU requests ÷ Σ allocatable CPU",
                          field(&P::service_cpu_share_min), 0, 1));
  t.push_back(DoubleParam("service_cpu_share_max", "ratio",
                          "highest target (the target is drawn uniformly in between)",
                          field(&P::service_cpu_share_max), 0, 1));
  t.push_back(DoubleParam("request_ratio_min", "ratio",
                          "smallest request ÷ p99 usage (log-uniform per service and dimension)",
                          field(&P::request_ratio_min), 1, 1000));
  t.push_back(DoubleParam("request_ratio_max", "ratio", "largest request ÷ p99 usage",
                          field(&P::request_ratio_max), 1, 1000));
  t.push_back(IntParam("replicas_min", "replicas", "fewest replicas (Pareto scale)",
                       field(&P::replicas_min), 1, kMaxReplicas));
  t.push_back(IntParam("replicas_max", "replicas", "most replicas (Pareto clamp)",
                       field(&P::replicas_max), 1, kMaxReplicas));
  t.push_back(DoubleParam("replicas_alpha", "", "Pareto tail index of replica counts",
                          field(&P::replicas_alpha), 0.1, 100));
  t.push_back(CpuParam("service_cpu_p99_median", "median p99 CPU usage of one replica (lognormal)",
                       field(&P::service_cpu_p99_median)));
  t.push_back(DoubleParam("service_cpu_p99_sigma", "", "lognormal sigma of replica p99 CPU",
                          field(&P::service_cpu_p99_sigma), 0, 10));
  t.push_back(DoubleParam("service_memory_sigma", "",
                          "lognormal sigma of p99 memory per core around the family's median",
                          field(&P::service_memory_sigma), 0, 10));
  t.push_back(BytesParam("service_disk_p99_median", "bytes/s",
                         "median p99 storage I/O of one replica (lognormal)",
                         field(&P::service_disk_p99_median)));
  t.push_back(BytesParam("service_network_p99_median", "bytes/s",
                         "median p99 network of one replica (lognormal)",
                         field(&P::service_network_p99_median)));
  t.push_back(DoubleParam("service_io_sigma", "", "lognormal sigma of replica disk and network",
                          field(&P::service_io_sigma), 0, 10));
  t.push_back(DoubleParam("max_replica_node_share", "ratio",
                          "a replica requests at most this share of some node's allocatable",
                          field(&P::max_replica_node_share), 0.01, 1));
  t.push_back(DoubleParam("peak_jitter_hours", "h",
                          "peak hours shift by a uniform draw in ±this per service",
                          field(&P::peak_jitter_hours), 0, 12));
  t.push_back(DoubleParam("service_noise", "ratio",
                          "mean UsagePattern::noise (drawn in [0.5, 1.5] × this per service)",
                          field(&P::service_noise), 0, 10));
  t.push_back(DoubleParam("burst_factor", "ratio", "UsagePattern::burst_factor of every service",
                          field(&P::burst_factor), 1, 100));
  for (int f = 0; f < kNumServiceFamilies; ++f) {
    const std::string k = "family." + std::string(kServiceFamilyNames[f]) + ".";
    auto m = [f]<typename T>(T ServiceFamilyParams::*member) {
      return [f, member](P& p) -> T& { return p.families[f].*member; };
    };
    t.push_back(DoubleParam(k + "weight", "ratio", "relative chance of a new service's family",
                            m(&ServiceFamilyParams::weight), 0, kNoMax));
    t.push_back(DoubleParam(k + "cpu_scale", "ratio", "multiplies service_cpu_p99_median",
                            m(&ServiceFamilyParams::cpu_scale), 0.001, 1000));
    t.push_back(BytesParam(k + "memory_per_core", "bytes/core",
                           "median p99 memory per p99 core of usage",
                           m(&ServiceFamilyParams::memory_per_core)));
    t.push_back(DoubleParam(k + "disk_scale", "ratio", "multiplies service_disk_p99_median",
                            m(&ServiceFamilyParams::disk_scale), 0.001, 1000));
    t.push_back(DoubleParam(k + "network_scale", "ratio", "multiplies service_network_p99_median",
                            m(&ServiceFamilyParams::network_scale), 0.001, 1000));
    t.push_back(DoubleParam(k + "burst_probability", "ratio",
                            "UsagePattern::burst_probability (per replica and 5-min sample)",
                            m(&ServiceFamilyParams::burst_probability), 0, 1));
  }
  AddTierParams(t, "critical", "Guaranteed", &P::critical);
  AddTierParams(t, "standard", "Burstable", &P::standard);
  AddTierParams(t, "low", "Burstable", &P::low);

  t.push_back(IntParam("surge_day", "day",
                       "day of a sales-day surge of every service's usage (-1: none)",
                       field(&P::surge_day), -1, 365));
  t.push_back(
      SecondsParam("surge_start", "time of day the surge starts", field(&P::surge_start), 0));
  t.push_back(
      SecondsParam("surge_duration", "how long the surge lasts", field(&P::surge_duration), 0));
  t.push_back(DoubleParam("surge_factor", "ratio",
                          "CPU, disk and network usage multiplier during the surge",
                          field(&P::surge_factor), 1, 10));
  t.push_back(DoubleParam("leaks_per_replica_day", "1/day",
                          "memory leaks per day of a service container's age (0: none)",
                          field(&P::leaks_per_replica_day), 0, 1000));
  t.push_back(DoubleParam("leak_growth", "ratio/h",
                          "a leaking container's memory growth per hour, × its memory request",
                          field(&P::leak_growth), 0, 1000));
  t.push_back(SecondsParam("service_startup",
                           "readiness delay of a service replica after it starts",
                           field(&P::service_startup), 0));
  t.push_back(DoubleParam("batch_load", "ratio",
                          "mean batch CPU demand ÷ CPU left idle by services' mean usage",
                          field(&P::batch_load), 0, 1000));
  t.push_back(DoubleParam("serverless_demand_share", "ratio",
                          "share of the batch CPU demand that is serverless",
                          field(&P::serverless_demand_share), 0, 1));
  t.push_back(DoubleParam("function_zipf", "", "Zipf exponent of function popularity",
                          field(&P::function_zipf), 0, 10));
  t.push_back(DoubleParam("utilization_min", "ratio",
                          "lowest share of its CPU request a task uses (uniform per function)",
                          field(&P::utilization_min), 0.01, 1));
  t.push_back(DoubleParam("utilization_max", "ratio", "highest such share",
                          field(&P::utilization_max), 0.01, 1));
  t.push_back(DoubleParam("estimate_factor_min", "ratio",
                          "lowest duration_estimate ÷ duration (uniform per job)",
                          field(&P::estimate_factor_min), 0.01, 100));
  t.push_back(DoubleParam("estimate_factor_max", "ratio", "highest such ratio",
                          field(&P::estimate_factor_max), 0.01, 100));
  t.push_back(DoubleParam("job_duration_jitter", "",
                          "lognormal sigma of a job's duration around its function's median",
                          field(&P::job_duration_jitter), 0, 10));
  t.push_back(DoubleParam("gang_share", "ratio",
                          "share of offline jobs with 2..gang_max_tasks tasks that are gangs",
                          field(&P::gang_share), 0, 1));
  t.push_back(IntParam("gang_max_tasks", "tasks", "largest gang job", field(&P::gang_max_tasks), 2,
                       10'000'000));
  AddBatchTypeParams(t, "serverless", &P::serverless);
  AddBatchTypeParams(t, "offline", &P::offline);
  return t;
}

const std::vector<Param>& ParamTable() {
  static const std::vector<Param> table = BuildParamTable();
  return table;
}

// ---------------------------------------------------------------------------------------------
// Validation of relations between parameters (single values are checked when set).

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("generator parameters: " + what);
}

void Validate(const GeneratorParams& p) {
  Require(p.pod_nodes_min <= p.pod_nodes_max, "pod_nodes_min must not exceed pod_nodes_max");
  double gen_share = 0.0;
  for (const NodeGeneration& g : p.generations) gen_share += g.share;
  Require(gen_share > 0, "at least one gen.<name>.share must be positive");
  Require(p.service_cpu_share_min <= p.service_cpu_share_max,
          "service_cpu_share_min must not exceed service_cpu_share_max");
  Require(p.request_ratio_min <= p.request_ratio_max,
          "request_ratio_min must not exceed request_ratio_max");
  Require(p.replicas_min <= p.replicas_max, "replicas_min must not exceed replicas_max");
  double family_weight = 0.0;
  for (const ServiceFamilyParams& f : p.families) family_weight += f.weight;
  Require(family_weight > 0, "at least one family.<name>.weight must be positive");
  Require(p.critical.share + p.standard.share + p.low.share > 0,
          "at least one tier.<name>.share must be positive");
  Require(p.utilization_min <= p.utilization_max,
          "utilization_min must not exceed utilization_max");
  Require(p.estimate_factor_min <= p.estimate_factor_max,
          "estimate_factor_min must not exceed estimate_factor_max");
  const int lowest_tier = std::min({p.critical.priority, p.standard.priority, p.low.priority});
  const std::pair<std::string, const BatchTypeParams*> types[] = {{"serverless", &p.serverless},
                                                                  {"offline", &p.offline}};
  for (const auto& [n, t] : types) {
    Require(t->duration_min_s <= t->duration_max_s,
            n + ".duration_min must not exceed " + n + ".duration_max");
    Require(t->tolerance_min_s <= t->tolerance_max_s,
            n + ".tolerance_min must not exceed " + n + ".tolerance_max");
    Require(t->tolerance_min_s > 0 || t->tolerance_max_s == 0,
            n + ".tolerance_min must be positive unless " + n + ".tolerance_max is 0");
    Require(t->cpu_min <= t->cpu_max, n + ".cpu_min must not exceed " + n + ".cpu_max");
    Require(t->memory_per_core_min <= t->memory_per_core_max,
            n + ".memory_per_core_min must not exceed " + n + ".memory_per_core_max");
    Require(t->priority < lowest_tier, n + ".priority must be below every tier.<name>.priority");
  }
}

// ---------------------------------------------------------------------------------------------
// Fleet.

struct GeneratedFleet {
  std::vector<Node> nodes;
  std::vector<Resources> generation_allocatable;  // of generations with at least one node
};

Resources Allocatable(const Resources& capacity, const GeneratorParams& p) {
  Resources a = capacity;
  a[Dim::kCpu] = std::llround(capacity[Dim::kCpu] * (1.0 - p.reserved_cpu_share));
  const int64_t mib = 1 << 20;
  a[Dim::kMemory] =
      std::llround(capacity[Dim::kMemory] * (1.0 - p.reserved_memory_share) / mib) * mib;
  a[Dim::kDisk] = std::llround(capacity[Dim::kDisk] * (1.0 - p.reserved_io_share));
  a[Dim::kNetwork] = std::llround(capacity[Dim::kNetwork] * (1.0 - p.reserved_io_share));
  return a;
}

// Nodes per generation by the largest-remainder method, so counts sum to `nodes` exactly.
std::vector<int> GenerationCounts(const GeneratorParams& p) {
  const int n = std::ssize(p.generations);
  double total = 0.0;
  for (const NodeGeneration& g : p.generations) total += g.share;
  std::vector<int> counts(n);
  std::vector<std::pair<double, int>> remainders;
  int assigned = 0;
  for (int g = 0; g < n; ++g) {
    const double exact = p.nodes * p.generations[g].share / total;
    counts[g] = static_cast<int>(std::floor(exact));
    assigned += counts[g];
    remainders.push_back({-(exact - counts[g]), g});
  }
  std::sort(remainders.begin(), remainders.end());
  for (int i = 0; assigned < p.nodes; ++i, ++assigned) ++counts[remainders[i % n].second];
  return counts;
}

GeneratedFleet BuildFleet(const GeneratorParams& p) {
  Random rng = StreamOf(p.seed, kFleetStream);
  GeneratedFleet fleet;
  fleet.nodes.reserve(p.nodes);
  const std::vector<int> counts = GenerationCounts(p);
  const int digits = std::max<int>(5, std::to_string(p.nodes).size());
  int pod = 0;
  for (int g = 0; g < std::ssize(counts); ++g) {
    const NodeGeneration& gen = p.generations[g];
    const Resources allocatable = Allocatable(gen.capacity, p);
    if (counts[g] > 0) fleet.generation_allocatable.push_back(allocatable);
    for (int left = counts[g]; left > 0; ++pod) {
      const int size = std::min<int>(left, rng.UniformInt(p.pod_nodes_min, p.pod_nodes_max));
      const std::string zone = Numbered("zone-", pod % p.zones + 1, 1);
      const std::string pod_name = Numbered("pod-", pod, 3);
      for (int i = 0; i < size; ++i) {
        Node node;
        node.name = Numbered("node-", std::ssize(fleet.nodes), digits);
        node.capacity = gen.capacity;
        node.allocatable = allocatable;
        node.zone = zone;
        node.pod = pod_name;
        node.labels = {{"node.kubernetes.io/instance-type", gen.name},
                       {"topology.kubernetes.io/zone", zone},
                       {"archimedes.io/pod", pod_name}};
        fleet.nodes.push_back(std::move(node));
      }
      left -= size;
    }
  }
  return fleet;
}

// ---------------------------------------------------------------------------------------------
// Services.

constexpr std::array<Dim, 4> kServiceDims = {Dim::kCpu, Dim::kMemory, Dim::kDisk, Dim::kNetwork};

// A Gaussian bump over the circular day, in hours.
double Bump(double hour, double center, double width) {
  double d = std::fmod(std::abs(hour - center), 24.0);
  d = std::min(d, 24.0 - d);
  return std::exp(-0.5 * (d / width) * (d / width));
}

double BinHour(int bin) { return (bin + 0.5) * 24.0 / kBinsPerDay; }

using Shape = std::array<std::vector<double>, kNumDims>;

// The unscaled daily shape of one service of `family`, per dimension (GPU stays empty).
Shape FamilyShape(ServiceFamily family, double jitter, Random& rng) {
  Shape s;
  for (Dim d : kServiceDims) s[static_cast<int>(d)].resize(kBinsPerDay);
  auto set = [&](int bin, double cpu, double memory, double disk, double network) {
    s[0][bin] = cpu;
    s[1][bin] = memory;
    s[2][bin] = disk;
    s[3][bin] = network;
  };
  switch (family) {
    case ServiceFamily::kDaytime: {
      // Working-hours plateau plus a sharper evening peak (users at home).
      const double day = 14.0 + jitter, evening = 20.5 + jitter;
      for (int b = 0; b < kBinsPerDay; ++b) {
        const double h = BinHour(b);
        const double load = 0.55 * Bump(h, day, 3.5) + 0.45 * Bump(h, evening, 1.5);
        set(b, 0.2 + load, 0.75 + 0.25 * load, 0.5 + 0.5 * load, 0.1 + load);
      }
      break;
    }
    case ServiceFamily::kNight: {
      // ETL: compute and storage I/O peak together in the small hours.
      const double peak = 2.0 + jitter;
      for (int b = 0; b < kBinsPerDay; ++b) {
        const double load = Bump(BinHour(b), peak, 2.5);
        set(b, 0.15 + 0.85 * load, 0.5 + 0.5 * load, 0.1 + 0.9 * load, 0.2 + 0.8 * load);
      }
      break;
    }
    case ServiceFamily::kFlat: {
      const double phase = 2.0 * std::numbers::pi * jitter / 24.0;
      for (int b = 0; b < kBinsPerDay; ++b) {
        const double wobble = 0.05 * std::sin(2.0 * std::numbers::pi * BinHour(b) / 24.0 + phase);
        set(b, 0.8 + wobble, 0.95, 0.7 + wobble, 0.8 + wobble);
      }
      break;
    }
    case ServiceFamily::kCache: {
      // Memory stays full; CPU and network follow the readers' day at a modest level.
      const double peak = 15.0 + jitter;
      for (int b = 0; b < kBinsPerDay; ++b) {
        const double load = Bump(BinHour(b), peak, 4.0);
        set(b, 0.3 + 0.7 * load, 0.97 + 0.03 * load, 0.2, 0.2 + 0.8 * load);
      }
      break;
    }
    case ServiceFamily::kSpiky: {
      // Low base with a few short spikes (cron-like fan-outs) at random hours.
      const int spikes = static_cast<int>(rng.UniformInt(2, 5));
      std::vector<std::array<double, 3>> at(spikes);
      for (auto& [center, width, height] : at) {
        center = rng.Uniform(0.0, 24.0);
        width = rng.Uniform(0.1, 0.3);
        height = rng.Uniform(0.6, 1.0);
      }
      for (int b = 0; b < kBinsPerDay; ++b) {
        double load = 0.0;
        for (const auto& [center, width, height] : at) {
          load += height * Bump(BinHour(b), center, width);
        }
        set(b, 0.12 + load, 0.6 + 0.2 * load, 0.3 + 0.4 * load, 0.15 + load);
      }
      break;
    }
  }
  return s;
}

// Largest factor (≤ 1) by which `requests` must shrink to fit `share` of some generation.
double FitFactor(const Resources& requests, const std::vector<Resources>& allocatable,
                 double share) {
  double best = 0.0;
  for (const Resources& a : allocatable) {
    double f = 1.0;
    for (Dim d : kServiceDims) {
      if (requests[d] > 0) f = std::min(f, share * a[d] / requests[d]);
    }
    best = std::max(best, f);
  }
  return best;
}

// A new service, and the share of its final replica count its SLA keeps available.
struct ServiceDraw {
  Service service;
  double min_available_share = 0.0;
};

ServiceDraw MakeService(const GeneratorParams& p, ServiceFamily family, int index,
                        const std::vector<Resources>& allocatable, Random& rng) {
  const ServiceFamilyParams& fp = p.families[static_cast<int>(family)];
  const double jitter = rng.Uniform(-p.peak_jitter_hours, p.peak_jitter_hours);
  Shape shape = FamilyShape(family, jitter, rng);

  std::array<double, kNumDims> p99{};
  p99[0] = rng.LogNormal(p.service_cpu_p99_median * fp.cpu_scale, p.service_cpu_p99_sigma);
  p99[1] = p99[0] / kMilli * rng.LogNormal(fp.memory_per_core, p.service_memory_sigma);
  p99[2] = rng.LogNormal(p.service_disk_p99_median * fp.disk_scale, p.service_io_sigma);
  p99[3] = rng.LogNormal(p.service_network_p99_median * fp.network_scale, p.service_io_sigma);
  std::array<double, kNumDims> ratio{};
  Resources wanted;
  for (Dim d : kServiceDims) {
    const int i = static_cast<int>(d);
    ratio[i] = rng.LogUniform(p.request_ratio_min, p.request_ratio_max);
    wanted[d] = std::llround(ratio[i] * p99[i]);
  }
  // A replica too large for every node shrinks as a whole; the margin absorbs rounding.
  const double fit = FitFactor(wanted, allocatable, p.max_replica_node_share);
  if (fit < 1.0) {
    for (double& v : p99) v *= fit * 0.999;
  }

  Service s;
  s.name = Numbered(std::string(kServiceFamilyNames[static_cast<int>(family)]) + "-", index, 4);
  s.app = s.name;
  for (Dim d : kServiceDims) {
    const int i = static_cast<int>(d);
    std::vector<double>& v = shape[i];
    const double scale = p99[i] / Quantile(v, 0.99);
    std::vector<float>& out = s.usage.values[i];
    out.resize(v.size());
    for (size_t b = 0; b < v.size(); ++b) out[b] = static_cast<float>(v[b] * scale);
    s.requests[d] = std::max<int64_t>(1, std::llround(ratio[i] * Quantile(out, 0.99)));
  }
  s.usage.values[static_cast<int>(Dim::kGpu)].assign(kBinsPerDay, 0.0f);
  s.usage.step_seconds = kBinSeconds;
  s.usage.noise = static_cast<float>(p.service_noise * rng.Uniform(0.5, 1.5));
  s.usage.burst_probability = static_cast<float>(fp.burst_probability);
  s.usage.burst_factor = static_cast<float>(p.burst_factor);

  const double tier_draw = rng.Uniform() * (p.critical.share + p.standard.share + p.low.share);
  const ServiceTierParams& tier = tier_draw < p.critical.share                      ? p.critical
                                  : tier_draw < p.critical.share + p.standard.share ? p.standard
                                                                                    : p.low;
  s.priority = tier.priority;
  s.sla.availability = tier.availability;
  if (&tier == &p.critical) {
    s.qos = QosClass::kGuaranteed;
    s.limits = s.requests;
  } else {
    s.qos = QosClass::kBurstable;
    s.limits[Dim::kCpu] = 2 * s.requests[Dim::kCpu];
    s.limits[Dim::kMemory] = s.requests[Dim::kMemory];
  }
  s.replicas = static_cast<int>(
      std::min<double>(p.replicas_max, std::floor(rng.Pareto(p.replicas_min, p.replicas_alpha))));
  return {std::move(s), tier.min_available_share};
}

std::vector<Service> BuildServices(const GeneratorParams& p, const GeneratedFleet& fleet) {
  Random rng = StreamOf(p.seed, kServiceStream);
  int64_t allocatable_cpu = 0;
  for (const Node& n : fleet.nodes) allocatable_cpu += n.allocatable[Dim::kCpu];
  const double target =
      allocatable_cpu * rng.Uniform(p.service_cpu_share_min, p.service_cpu_share_max);

  std::vector<double> weights;
  for (const ServiceFamilyParams& f : p.families) weights.push_back(f.weight);
  const std::vector<double> family_cdf = Cumulative(weights);

  std::vector<Service> services;
  std::array<int, kNumServiceFamilies> per_family{};
  double requested = 0.0;
  while (requested < target) {
    const int f = rng.Pick(family_cdf);
    auto [s, min_available_share] = MakeService(p, static_cast<ServiceFamily>(f), per_family[f]++,
                                                fleet.generation_allocatable, rng);
    // The last service is trimmed so the total lands within one replica of the target.
    const int64_t cpu = s.requests[Dim::kCpu];
    const auto needed = static_cast<int>(std::ceil((target - requested) / cpu));
    s.replicas = std::clamp(s.replicas, 1, std::max(1, needed));
    s.sla.min_available = static_cast<int>(std::floor(s.replicas * min_available_share));
    requested += static_cast<double>(cpu) * s.replicas;
    services.push_back(std::move(s));
  }
  return services;
}

// ---------------------------------------------------------------------------------------------
// Batch jobs.

struct Function {
  std::string name;
  int64_t cpu = 0;     // millicores per task
  int64_t memory = 0;  // bytes per task
  double utilization = 0.0;
  double duration_median_s = 0.0;
};

std::vector<Function> BuildFunctions(const GeneratorParams& p, const BatchTypeParams& t,
                                     std::string_view prefix, Random& rng) {
  std::vector<Function> functions(t.functions);
  for (int i = 0; i < t.functions; ++i) {
    Function& f = functions[i];
    f.name = Numbered(prefix, i, 4);
    // Requests come in 50m steps, as people write them.
    const double cpu = rng.LogUniform(t.cpu_min, t.cpu_max);
    f.cpu = std::clamp<int64_t>(std::llround(cpu / 50.0) * 50, t.cpu_min, t.cpu_max);
    const double per_core = rng.LogUniform(t.memory_per_core_min, t.memory_per_core_max);
    const int64_t mib = 1 << 20;
    f.memory = std::max<int64_t>(mib, std::llround(f.cpu / kMilli * per_core / mib) * mib);
    f.utilization = rng.Uniform(p.utilization_min, p.utilization_max);
    f.duration_median_s =
        std::clamp(rng.LogNormal(t.duration_median_s, t.duration_sigma),
                   static_cast<double>(t.duration_min_s), static_cast<double>(t.duration_max_s));
  }
  return functions;
}

// Arrival times of `count` jobs over the horizon: i.i.d. draws from the diurnal rate, which is how
// a Poisson process with that rate looks once its count is known.
std::vector<int64_t> ArrivalTimes(const GeneratorParams& p, const BatchTypeParams& t, size_t count,
                                  Random& rng) {
  std::vector<double> rate(kBinsPerDay);
  for (int b = 0; b < kBinsPerDay; ++b) {
    rate[b] = 1.0 + t.diurnal_amplitude *
                        std::cos(2.0 * std::numbers::pi * (BinHour(b) - t.peak_hour) / 24.0);
  }
  // An amplitude of exactly 1 leaves one bin at rate 0, which Pick never selects.
  const std::vector<double> cdf = Cumulative(rate);
  std::vector<int64_t> times(count);
  for (int64_t& time : times) {
    const int64_t day = rng.UniformInt(0, p.days - 1);
    const int bin = rng.Pick(cdf);
    time = day * kSecondsPerDay + bin * kBinSeconds +
           static_cast<int64_t>(rng.Uniform() * kBinSeconds);
  }
  return times;
}

double TaskWork(const BatchJob& job) {
  return job.task_requests[Dim::kCpu] / kMilli * job.utilization *
         static_cast<double>(job.duration_s);
}

// Jobs of one type until their CPU work (core-seconds) reaches `target_work`; unnamed, unsorted.
std::vector<BatchJob> BuildJobs(const GeneratorParams& p, JobType type, double target_work,
                                Random& rng, Random& arrivals) {
  const bool serverless = type == JobType::kServerless;
  const BatchTypeParams& t = serverless ? p.serverless : p.offline;
  const std::vector<Function> functions =
      BuildFunctions(p, t, serverless ? "fn-sl-" : "fn-off-", rng);
  std::vector<double> popularity(functions.size());
  for (size_t i = 0; i < functions.size(); ++i) {
    popularity[i] = std::pow(static_cast<double>(i + 1), -p.function_zipf);
  }
  const std::vector<double> function_cdf = Cumulative(popularity);

  std::vector<BatchJob> jobs;
  double work = 0.0;
  while (work < target_work) {
    const Function& f = functions[rng.Pick(function_cdf)];
    BatchJob job;
    job.type = type;
    job.function = f.name;
    job.priority = t.priority;
    job.task_requests = Resources::Of(f.cpu, f.memory);
    job.utilization = f.utilization;
    job.duration_s = std::clamp<int64_t>(
        std::llround(f.duration_median_s * std::exp(p.job_duration_jitter * rng.Normal())),
        t.duration_min_s, t.duration_max_s);
    job.duration_estimate_s = std::max<int64_t>(
        1,
        std::llround(job.duration_s * rng.Uniform(p.estimate_factor_min, p.estimate_factor_max)));
    job.delay_tolerance_s =
        t.tolerance_max_s == 0
            ? 0
            : std::clamp<int64_t>(
                  std::llround(rng.LogUniform(t.tolerance_min_s, t.tolerance_max_s)),
                  t.tolerance_min_s, t.tolerance_max_s);
    job.tasks = static_cast<int>(std::clamp<double>(
        std::round(rng.LogNormal(t.tasks_median, t.tasks_sigma)), 1, t.tasks_max));
    const bool gang_draw = rng.Uniform() < p.gang_share;
    // The last job is trimmed so the total lands within one task of the target.
    const double per_task = TaskWork(job);
    job.tasks = std::min<int>(
        job.tasks, std::max(1, static_cast<int>(std::ceil((target_work - work) / per_task))));
    job.gang = !serverless && gang_draw && job.tasks >= 2 && job.tasks <= p.gang_max_tasks;
    work += per_task * job.tasks;
    jobs.push_back(std::move(job));
  }
  const std::vector<int64_t> times = ArrivalTimes(p, t, jobs.size(), arrivals);
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].submit_time = times[i];
  return jobs;
}

std::vector<BatchJob> BuildBatch(const GeneratorParams& p, const GeneratedFleet& fleet,
                                 const std::vector<Service>& services) {
  double idle_cores = 0.0;
  for (const Node& n : fleet.nodes) idle_cores += n.allocatable[Dim::kCpu] / kMilli;
  for (const Service& s : services) idle_cores -= s.replicas * MeanReplicaCpuCores(s);
  const double horizon = static_cast<double>(p.days) * kSecondsPerDay;
  const double work = p.batch_load * std::max(0.0, idle_cores) * horizon;

  Random rng = StreamOf(p.seed, kBatchStream);
  Random arrivals = StreamOf(p.seed, kArrivalStream);
  std::vector<BatchJob> jobs =
      BuildJobs(p, JobType::kServerless, work * p.serverless_demand_share, rng, arrivals);
  std::vector<BatchJob> offline =
      BuildJobs(p, JobType::kOffline, work * (1.0 - p.serverless_demand_share), rng, arrivals);
  jobs.reserve(jobs.size() + offline.size());
  jobs.insert(jobs.end(), std::make_move_iterator(offline.begin()),
              std::make_move_iterator(offline.end()));
  offline = {};
  // Stable, so equal submit times keep generation order on every standard library.
  std::stable_sort(jobs.begin(), jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.submit_time < b.submit_time;
  });
  const int digits = std::max<int>(7, std::to_string(jobs.size()).size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].name = Numbered(jobs[i].type == JobType::kServerless ? "sl-" : "off-", i, digits);
  }
  return jobs;
}

std::string ScenarioName(const GeneratorParams& p) {
  std::string name = "synthetic nodes=" + std::to_string(p.nodes) +
                     " days=" + std::to_string(p.days) + " seed=" + std::to_string(p.seed);
  static const GeneratorParams defaults;
  for (const Param& param : ParamTable()) {
    if (param.key == "nodes" || param.key == "days" || param.key == "seed") continue;
    std::string value = param.get(p);
    if (value != param.get(defaults)) name += " " + param.key + "=" + value;
  }
  return name;
}

}  // namespace

std::string_view ServiceFamilyOf(std::string_view service_name) {
  for (std::string_view family : kServiceFamilyNames) {
    if (service_name.size() > family.size() && service_name.starts_with(family) &&
        service_name[family.size()] == '-') {
      return family;
    }
  }
  return {};
}

std::vector<ParamInfo> DescribeGeneratorParams(const GeneratorParams& params) {
  std::vector<ParamInfo> out;
  for (const Param& p : ParamTable()) out.push_back({p.key, p.get(params), p.unit, p.description});
  return out;
}

void SetGeneratorParam(GeneratorParams& params, std::string_view key, std::string_view value) {
  for (const Param& p : ParamTable()) {
    if (p.key == key) {
      p.set(params, key, value);
      return;
    }
  }
  throw std::invalid_argument("unknown generator parameter '" + std::string(key) +
                              "' (see docs/generator.md for the list)");
}

namespace {

// Turns each service's one-day pattern into a `days`-long one whose surge day is scaled.
void ApplySurge(const GeneratorParams& p, std::vector<Service>& services) {
  if (p.surge_day < 0 || p.surge_day >= p.days) return;
  const int first = static_cast<int>((p.surge_day * kSecondsPerDay + p.surge_start) / kBinSeconds);
  const int last =
      std::min(first + static_cast<int>(p.surge_duration / kBinSeconds), p.days * kBinsPerDay);
  const float memory_factor = static_cast<float>(1.0 + (p.surge_factor - 1.0) / 4.0);
  for (Service& s : services) {
    for (Dim d : kAllDims) {
      std::vector<float>& v = s.usage.values[static_cast<int>(d)];
      if (v.size() != static_cast<size_t>(kBinsPerDay)) continue;
      std::vector<float> day(v);
      v.clear();
      for (int i = 0; i < p.days; ++i) v.insert(v.end(), day.begin(), day.end());
      const float factor = d == Dim::kMemory ? memory_factor : static_cast<float>(p.surge_factor);
      for (int b = first; b < last; ++b) v[b] *= factor;
    }
  }
}

// Sets the services' leak parameters; draws nothing, so the rest of the scenario is unchanged.
void ApplyLeaks(const GeneratorParams& p, std::vector<Service>& services) {
  for (Service& s : services) {
    s.usage.leak_per_day = static_cast<float>(p.leaks_per_replica_day);
    s.usage.leak_rate =
        static_cast<float>(p.leak_growth * static_cast<double>(s.requests[Dim::kMemory]) / 3600.0);
  }
}

}  // namespace

Scenario GenerateScenario(const GeneratorParams& params) {
  Validate(params);
  Scenario scenario;
  scenario.name = ScenarioName(params);
  scenario.duration_s = static_cast<int64_t>(params.days) * kSecondsPerDay;
  GeneratedFleet fleet = BuildFleet(params);
  scenario.workload.services = BuildServices(params, fleet);
  scenario.workload.jobs = BuildBatch(params, fleet, scenario.workload.services);
  ApplySurge(params, scenario.workload.services);
  if (params.leaks_per_replica_day > 0) ApplyLeaks(params, scenario.workload.services);
  for (Service& s : scenario.workload.services) s.startup_s = params.service_startup;
  scenario.nodes = std::move(fleet.nodes);
  return scenario;
}

double BatchCpuDemandCores(const std::vector<BatchJob>& jobs, int64_t horizon_s) {
  double work = 0.0;
  for (const BatchJob& job : jobs) work += job.tasks * TaskWork(job);
  return work / static_cast<double>(horizon_s);
}

double MeanReplicaCpuCores(const Service& service) {
  const std::vector<float>& cpu = service.usage.values[static_cast<int>(Dim::kCpu)];
  if (cpu.empty()) return 0.0;
  double sum = 0.0;
  for (float v : cpu) sum += v;
  const double burst_gain =
      1.0 + service.usage.burst_probability * (service.usage.burst_factor - 1.0);
  return sum / static_cast<double>(cpu.size()) / kMilli * burst_gain;
}

}  // namespace archimedes
