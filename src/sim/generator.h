// The synthetic workload generator: the default scenario of `archimedes simulate` (DESIGN §6).
//
// GenerateScenario() builds a fleet of several hardware generations spread over zones and PODs,
// long-running services drawn from five daily-shape families whose CPU requests take a target share
// (80–90 % by default) of the fleet's allocatable CPU, and a stream of serverless and offline batch
// jobs sized so that their mean CPU demand fills `batch_load` times the CPU the services leave
// idle:
//
//   Σ_jobs tasks × cpu_request_cores × utilization × duration_s  /  (days × 86,400)
//     = batch_load × (Σ_nodes allocatable_cores − Σ_services replicas × mean_cpu_usage_cores)
//
// where a replica's mean CPU usage is the day-mean of its pattern times the expected burst gain
// (1 + burst_probability × (burst_factor − 1)). docs/generator.md documents every parameter.
//
// The result is a pure function of the parameters: the same parameters (seed included) give the
// identical scenario on every platform, because all randomness comes from model/random.h. The
// fleet, the services and the batch stream draw from separate streams of the seed, so changing a
// batch parameter leaves the fleet and services alone.
//
// A service's family is the prefix of its name and app ("daytime-0017"); ServiceFamilyOf()
// recovers it. Every replica's requests fit the allocatable of at least one node of the fleet.
// A service's per-replica request in each dimension is between request_ratio_min and
// request_ratio_max times the p99 (model/quantile.h: nearest rank over the pattern's 288 bins) of
// its usage pattern.
#ifndef ARCHIMEDES_SIM_GENERATOR_H_
#define ARCHIMEDES_SIM_GENERATOR_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/resources.h"
#include "model/workload.h"

namespace archimedes {

// A hardware generation of the fleet. Racks (PODs) hold one generation each.
struct NodeGeneration {
  std::string name;
  double share = 0.0;  // of the fleet's nodes (shares are normalised over all generations)
  Resources capacity;  // cpu, memory, disk (bytes/s), network (bytes/s)
};

// The daily-shape families of services, in the order of GeneratorParams::families.
enum class ServiceFamily : uint8_t { kDaytime, kNight, kFlat, kCache, kSpiky };
inline constexpr int kNumServiceFamilies = 5;
inline constexpr std::array<std::string_view, kNumServiceFamilies> kServiceFamilyNames = {
    "daytime", "night", "flat", "cache", "spiky"};

// The family prefix of a generated service's name or app ("cache-0042" → "cache"), or "" when the
// name does not start with a family name followed by '-'.
std::string_view ServiceFamilyOf(std::string_view service_name);

struct ServiceFamilyParams {
  double weight = 1.0;             // relative chance that a new service is of this family
  double cpu_scale = 1.0;          // multiplies service_cpu_p99_median for this family
  int64_t memory_per_core = 0;     // median p99 memory per p99 core of usage, bytes
  double disk_scale = 1.0;         // multiplies service_disk_p99_median for this family
  double network_scale = 1.0;      // multiplies service_network_p99_median for this family
  double burst_probability = 0.0;  // per replica and sample (UsagePattern::burst_probability)
};

// Services are split into tiers; a tier fixes priority, QoS and SLA.
struct ServiceTierParams {
  double share = 0.0;  // of services
  int priority = 0;
  double availability = 0.999;
  double min_available_share = 0.5;  // min_available = floor(replicas × this)
};

struct BatchTypeParams {
  int functions = 100;  // recurring functions jobs of this type are drawn from (Zipf)
  int priority = 0;
  double tasks_median = 10.0;  // lognormal task count per job, clamped to [1, tasks_max]
  double tasks_sigma = 1.5;
  int tasks_max = 2000;
  double duration_median_s = 60.0;  // lognormal median of a function's task duration
  double duration_sigma = 1.0;      // spread of the medians across functions
  int64_t duration_min_s = 1;
  int64_t duration_max_s = 300;
  int64_t tolerance_min_s = 1;  // delay tolerance, log-uniform per job
  int64_t tolerance_max_s = 60;
  int64_t cpu_min = 250;  // per-task CPU request, millicores, log-uniform per function
  int64_t cpu_max = 2000;
  int64_t memory_per_core_min = 0;  // per-task memory = cpu × this, log-uniform per function
  int64_t memory_per_core_max = 0;
  double peak_hour = 14.0;         // hour of day of the highest arrival rate
  double diurnal_amplitude = 0.5;  // rate ∝ 1 + amplitude × cos(2π (hour − peak_hour) / 24)
};

struct GeneratorParams {
  // Fleet.
  int nodes = 1000;
  int days = 2;
  uint64_t seed = 1;
  int zones = 3;
  int pod_nodes_min = 20;
  int pod_nodes_max = 40;
  std::array<NodeGeneration, 5> generations = {{
      {"g32c128", 0.15, Resources::Of(32'000, 128LL << 30, 1LL << 30, 1'250'000'000)},
      {"g64c256", 0.30, Resources::Of(64'000, 256LL << 30, 2LL << 30, 3'125'000'000)},
      {"g96c384", 0.20, Resources::Of(96'000, 384LL << 30, 3LL << 30, 3'125'000'000)},
      {"m64c512", 0.15, Resources::Of(64'000, 512LL << 30, 2LL << 30, 3'125'000'000)},
      {"g128c512", 0.20, Resources::Of(128'000, 512LL << 30, 4LL << 30, 6'250'000'000)},
  }};
  // System reservation, as a share of capacity per dimension: allocatable = capacity × (1 − it).
  double reserved_cpu_share = 0.04;
  double reserved_memory_share = 0.06;
  double reserved_io_share = 0.05;  // disk and network

  // Services.
  double service_cpu_share_min = 0.80;  // target Σ CPU requests ÷ Σ allocatable CPU, uniform
  double service_cpu_share_max = 0.90;
  double request_ratio_min = 1.5;  // request ÷ p99 usage, log-uniform per service and dimension
  double request_ratio_max = 4.0;
  int replicas_min = 2;  // Pareto(replicas_min, replicas_alpha) clamped to replicas_max
  int replicas_max = 50;
  double replicas_alpha = 1.2;
  int64_t service_cpu_p99_median = 1500;  // millicores per replica, lognormal
  double service_cpu_p99_sigma = 0.8;
  double service_memory_sigma = 0.4;           // spread of memory per core around the family's
  int64_t service_disk_p99_median = 20 << 20;  // bytes/s per replica, lognormal
  int64_t service_network_p99_median = 25 << 20;
  double service_io_sigma = 1.0;
  double max_replica_node_share = 0.5;  // a replica requests at most this share of a node
  double peak_jitter_hours = 1.5;       // peak hours are shifted by ±this per service, uniform
  double service_noise = 0.1;           // UsagePattern::noise, times U[0.5, 1.5] per service
  double burst_factor = 2.0;
  std::array<ServiceFamilyParams, kNumServiceFamilies> families = {{
      {.weight = 0.35, .memory_per_core = 5LL << 29, .burst_probability = 0.002},  // daytime
      {.weight = 0.15, .memory_per_core = 3LL << 30, .disk_scale = 3.0, .burst_probability = 0.002},
      {.weight = 0.20, .memory_per_core = 3LL << 30, .burst_probability = 0.001},  // flat
      {.weight = 0.10,
       .cpu_scale = 0.5,
       .memory_per_core = 12LL << 30,
       .network_scale = 3.0,
       .burst_probability = 0.001},                                               // cache
      {.weight = 0.20, .memory_per_core = 2LL << 30, .burst_probability = 0.01},  // spiky
  }};
  ServiceTierParams critical = {.share = 0.2,
                                .priority = 10'000,
                                .availability = 0.9995,
                                .min_available_share = 0.8};  // QoS Guaranteed
  ServiceTierParams standard = {.share = 0.6,
                                .priority = 5'000,
                                .availability = 0.999,
                                .min_available_share = 0.6};  // QoS Burstable
  ServiceTierParams low = {.share = 0.2,
                           .priority = 1'000,
                           .availability = 0.99,
                           .min_available_share = 0.5};  // QoS Burstable

  // A sales-day surge (off when surge_day < 0): on day `surge_day`, from `surge_start` for
  // `surge_duration`, the services' CPU, disk and network usage are multiplied by `surge_factor`
  // and their memory by 1 + (surge_factor − 1) / 4. Applied after the batch stream is sized, so
  // the batch stream is the same with and without it.
  int surge_day = -1;
  int64_t surge_start = int64_t{10} * 3600;
  int64_t surge_duration = int64_t{6} * 3600;
  double surge_factor = 2.5;

  // Memory leaks (off by default): every service replica incarnation starts leaking after an
  // exponentially distributed age, `leaks_per_replica_day` leaks per day of container age, and
  // then grows its memory by `leak_growth` × its memory request per hour (UsagePattern::leak_*).
  double leaks_per_replica_day = 0.0;
  double leak_growth = 0.25;
  // Readiness delay of every service replica (Service::startup_s).
  int64_t service_startup = 90;

  // Batch.
  double batch_load = 1.0;
  double serverless_demand_share = 0.02;  // of the batch CPU demand
  double function_zipf = 1.1;             // popularity exponent of recurring functions
  double utilization_min = 0.6;           // per function, uniform
  double utilization_max = 0.95;
  double estimate_factor_min = 0.9;  // duration_estimate_s ÷ duration_s, uniform per job
  double estimate_factor_max = 2.0;
  double job_duration_jitter = 0.25;  // lognormal sigma of a job's duration around its function's
  double gang_share = 0.1;            // of offline jobs with 2..gang_max_tasks tasks
  int gang_max_tasks = 64;
  BatchTypeParams serverless = {.functions = 200,
                                .priority = 500,
                                .tasks_median = 30.0,
                                .tasks_sigma = 1.5,
                                .tasks_max = 2000,
                                .duration_median_s = 45.0,
                                .duration_sigma = 0.8,
                                .duration_min_s = 1,
                                .duration_max_s = 300,
                                .tolerance_min_s = 1,
                                .tolerance_max_s = 60,
                                .cpu_min = 250,
                                .cpu_max = 2000,
                                .memory_per_core_min = 1LL << 30,
                                .memory_per_core_max = 2LL << 30,
                                .peak_hour = 14.0,
                                .diurnal_amplitude = 0.6};
  BatchTypeParams offline = {.functions = 500,
                             .priority = 100,
                             .tasks_median = 8.0,
                             .tasks_sigma = 1.8,
                             .tasks_max = 5000,
                             .duration_median_s = 1200.0,
                             .duration_sigma = 1.2,
                             .duration_min_s = 60,
                             .duration_max_s = int64_t{6} * 3600,
                             .tolerance_min_s = 300,
                             .tolerance_max_s = int64_t{4} * 3600,
                             .cpu_min = 500,
                             .cpu_max = 8000,
                             .memory_per_core_min = 2LL << 30,
                             .memory_per_core_max = 8LL << 30,
                             .peak_hour = 2.0,
                             .diurnal_amplitude = 0.5};
};

// One parameter as `--set key=value` sees it.
struct ParamInfo {
  std::string key;
  std::string value;  // current value, in the syntax SetGeneratorParam accepts
  std::string unit;
  std::string description;
};

// Every parameter, in documentation order, with its value in `params`.
std::vector<ParamInfo> DescribeGeneratorParams(const GeneratorParams& params);

// Sets one parameter from text. Integers and shares are plain numbers; CPU takes Kubernetes CPU
// quantities ("500m", "2"), bytes and bytes/s take Kubernetes quantities ("4Gi"), seconds take
// whole seconds ("90") or a duration ("15m", "1h30m"; model/duration.h). Throws
// std::invalid_argument naming the key when it is unknown or the value does not parse or is out of
// the parameter's range.
void SetGeneratorParam(GeneratorParams& params, std::string_view key, std::string_view value);

// Builds the scenario. Throws std::invalid_argument naming the parameters when they contradict each
// other (a minimum above its maximum, all generation shares zero, batch priorities not below the
// services', no node able to hold a replica).
Scenario GenerateScenario(const GeneratorParams& params);

// Mean CPU demand of the batch jobs in cores: Σ tasks × request cores × utilization × duration_s,
// divided by `horizon_s`.
double BatchCpuDemandCores(const std::vector<BatchJob>& jobs, int64_t horizon_s);

// Mean CPU usage of one replica in cores: the day-mean of its pattern times the expected burst
// gain.
double MeanReplicaCpuCores(const Service& service);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_GENERATOR_H_
