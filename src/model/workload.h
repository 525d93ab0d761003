// What runs on the fleet: long-running services, delay-tolerant batch jobs, and the timed events
// (scaling, node failures) that change them. Plain values; the simulator and the service read them.
#ifndef ARCHIMEDES_MODEL_WORKLOAD_H_
#define ARCHIMEDES_MODEL_WORKLOAD_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/curve.h"
#include "model/node.h"
#include "model/node_affinity.h"
#include "model/resources.h"

namespace archimedes {

inline constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

enum class QosClass : uint8_t { kGuaranteed, kBurstable, kBestEffort };
std::string_view QosName(QosClass qos);
std::optional<QosClass> ParseQos(std::string_view name);

struct ServiceSla {
  double availability = 0.999;  // share of container-time that must be unharmed
  int min_available = 0;        // replicas that eviction may never go below (like a PDB)
};

// The contract a service gets when it states none: Guaranteed 0.999 with min_available =
// replicas − 1, Burstable 0.99 with 0, BestEffort 0.95 with 0.
ServiceSla DefaultServiceSla(QosClass qos, int replicas);

struct Service {
  std::string name;
  std::string app;  // the application a profile describes; defaults to `name`
  int replicas = 1;
  Resources requests;  // per replica
  Resources limits;    // per replica; zero dimensions mean "no limit"
  int priority = 0;
  QosClass qos = QosClass::kBurstable;
  ServiceSla sla;
  UsagePattern usage;  // per replica
  int64_t start_time = 0;
  int64_t end_time = kForever;
  int max_per_node = 0;  // 0 = no limit on replicas of this service per node
  std::map<std::string, std::string> node_selector;
  // Kubernetes' required node affinity (any term) and tolerations of node taints.
  std::vector<NodeSelectorTerm> node_affinity;
  std::vector<Toleration> tolerations;
  // Readiness delay: a replica serves, and counts as available, this long after it starts.
  int64_t startup_s = 90;
};

// The application `service` belongs to: Service::app, or its name when that is empty.
inline const std::string& AppName(const Service& service) {
  return service.app.empty() ? service.name : service.app;
}

enum class JobType : uint8_t { kServerless, kOffline };
std::string_view JobTypeName(JobType type);
std::optional<JobType> ParseJobType(std::string_view name);

struct BatchJob {
  std::string name;
  int64_t submit_time = 0;
  JobType type = JobType::kOffline;
  std::string function;  // the command or image the tasks run
  int tasks = 1;
  Resources task_requests;
  int64_t duration_estimate_s = 60;  // what the submitter declares
  int64_t duration_s = 60;           // what a task really needs on an uncontended node
  double utilization = 0.8;          // share of its CPU request a task really uses while running
  int64_t delay_tolerance_s = 0;     // longest acceptable wait between submit and start
  int priority = 0;
  bool gang = false;  // all tasks start together or none does
};

// Timed changes to the fleet and the services.
struct NodeEvent {
  enum class Kind : uint8_t { kFail, kRecover, kAdd };
  int64_t time = 0;
  Kind kind = Kind::kFail;
  std::string node;
  Node spec;  // for kAdd
};

struct ScaleEvent {
  int64_t time = 0;
  std::string service;
  int replicas = 0;
};

struct Workload {
  std::vector<Service> services;
  std::vector<BatchJob> jobs;  // in submit order
  std::vector<NodeEvent> node_events;
  std::vector<ScaleEvent> scale_events;
};

// A fleet plus its workload: everything one simulation replays.
struct Scenario {
  std::string name;
  std::vector<Node> nodes;
  Workload workload;
  int64_t duration_s = 2 * kSecondsPerDay;
};

// Why `job` cannot run, naming the field as the native format spells it ("delay_tolerance is -5s;
// it must not be negative"), or an empty string when the job is acceptable. ValidateJobShape
// leaves out its submit time, which only a scenario bounds (a running engine's clock is Unix time).
std::string ValidateJob(const BatchJob& job);
std::string ValidateJobShape(const BatchJob& job);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_WORKLOAD_H_
