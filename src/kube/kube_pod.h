// A Kubernetes Pod as Archimedes reads it: one replica of its application's service, or a task
// of a batch job. Read from the Pod's JSON (spec and metadata; status only for qosClass):
//
//   requests / limits   kube-scheduler's effective request: per resource the larger of the sum
//                       over containers and the largest init container, plus spec.overhead
//   labels, nodeSelector, required node affinity, tolerations, priority, nodeName, schedulerName
//   application         its owning workload, "<namespace>/<name>": a Deployment (its
//                       ReplicaSet's name less the pod-template-hash), StatefulSet, DaemonSet,
//                       Job or CronJob (a Job named "<cronjob>-<minutes>"), else the label
//                       app.kubernetes.io/name, else the pod's own name
//   annotations         archimedes.io/kind (service | serverless | offline; default service),
//                       archimedes.io/delay-tolerance and archimedes.io/duration-estimate
//                       ("90s", "2h"), archimedes.io/availability (the SLA target, 0 < a ≤ 1)
//
// A malformed field is a KubeError naming its path (`Pod.spec.containers[0].resources...`).
#ifndef ARCHIMEDES_KUBE_KUBE_POD_H_
#define ARCHIMEDES_KUBE_KUBE_POD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/workload.h"

namespace archimedes {

enum class PodKind : uint8_t { kService, kServerless, kOffline };

struct KubePod {
  std::string name;
  std::string namespace_name = "default";
  std::string uid;
  std::string node_name;       // spec.nodeName: empty while pending
  std::string scheduler_name;  // spec.schedulerName
  std::string workload_kind;   // "Deployment", "StatefulSet", ..., "" without a controller
  std::map<std::string, std::string> labels;
  PodKind kind = PodKind::kService;
  int64_t delay_tolerance_s = 0;
  std::optional<int64_t> duration_estimate_s;
  // One replica: requests, limits, priority, qos, nodeSelector, affinity, tolerations; `app` is
  // the application above, `name` the pod's name and `sla.availability` the annotation's.
  Service service;
};

// `path` names the object in errors ("Pod", "ExtenderArgs.Pod").
KubePod DecodePod(const nlohmann::json& pod, const std::string& path = "Pod");

// "namespace/name".
inline std::string PodKey(const KubePod& pod) { return pod.namespace_name + "/" + pod.name; }

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_KUBE_POD_H_
