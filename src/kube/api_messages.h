// The Kubernetes API server's own messages, as Archimedes' own scheduler (server/kube_scheduler.h)
// exchanges them: a list's metadata, a watch stream's events, the Status of a refusal, the
// pods/binding and policy/v1 Eviction it POSTs, and metrics.k8s.io's PodMetricsList. Shapes as
// k8s.io/apimachinery and k8s.io/api write them out (the fixtures in ../shared/k8s-fixtures/ and
// tests/kube/api/); a malformed field is a KubeError naming its path.
#ifndef ARCHIMEDES_KUBE_API_MESSAGES_H_
#define ARCHIMEDES_KUBE_API_MESSAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/resources.h"

namespace archimedes {

// A PodList or NodeList: its items and the resourceVersion a watch resumes from.
struct KubeList {
  std::string resource_version;
  std::vector<nlohmann::json> items;
};
KubeList DecodeList(const nlohmann::json& list, const std::string& path);

// One line of a watch stream. An ERROR carries a Status (`status`): code 410 (reason Expired or
// Gone) means the resourceVersion is too old and the client lists again. A BOOKMARK carries only
// the resourceVersion to resume from.
struct KubeStatus {
  int64_t code = 0;
  std::string reason;   // Expired, Gone, Conflict, TooManyRequests, NotFound, ...
  std::string message;  // with the causes' messages appended
};
// clang-tidy reads nlohmann::json's invariant checks in the implicit moves as throwing; they are
// not.
struct KubeWatchEvent {  // NOLINT(bugprone-exception-escape)
  enum class Type : uint8_t { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  nlohmann::json object;
  std::string resource_version;  // object.metadata.resourceVersion
  KubeStatus status;             // kError
};
KubeWatchEvent DecodeWatchEvent(const nlohmann::json& line, const std::string& path);
KubeStatus DecodeStatus(const nlohmann::json& status, const std::string& path);

// The Binding POSTed to /api/v1/namespaces/NS/pods/NAME/binding (kube-scheduler's DefaultBinder).
nlohmann::json EncodeBinding(const std::string& namespace_name, const std::string& name,
                             const std::string& uid, const std::string& node);
// The policy/v1 Eviction POSTed to .../pods/NAME/eviction: the UID as a precondition (another pod
// of the same name is never evicted), the pod's own grace period unless `grace_s` >= 0.
nlohmann::json EncodeEviction(const std::string& namespace_name, const std::string& name,
                              const std::string& uid, int64_t grace_s);

// A node's Lease (coordination.k8s.io/v1, namespace kube-node-lease), which its kubelet renews
// every 10 s: the node's name and spec.renewTime in whole seconds since the epoch (-1: never).
struct KubeLease {
  std::string node;
  int64_t renew_s = -1;
};
KubeLease DecodeLease(const nlohmann::json& lease, const std::string& path);
// An RFC 3339 UTC time as the API server writes it ("2026-12-06T03:04:05Z", MicroTime with
// ".123456"), in whole seconds since the epoch. Throws KubeError naming `path`.
int64_t ParseKubeTime(const std::string& text, const std::string& path);

// A PodMetricsList: per pod its containers' usage summed (cpu and memory only: what the metrics
// API measures).
struct PodUsage {
  std::string namespace_name;
  std::string name;
  Resources usage;
};
std::vector<PodUsage> DecodePodMetricsList(const nlohmann::json& list, const std::string& path);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_API_MESSAGES_H_
