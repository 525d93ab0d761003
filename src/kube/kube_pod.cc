#include "kube/kube_pod.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "kube/fields.h"
#include "kube/kube_node.h"
#include "kube/resource_list.h"
#include "model/duration.h"
#include "model/limits.h"

namespace archimedes {
namespace {

// A CronJob names its Jobs "<cronjob>-<scheduled time in minutes since the epoch>".
constexpr size_t kMinCronSuffixDigits = 8;

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The workload that owns the pod: kind and name, from its controller reference.
std::pair<std::string, std::string> OwningWorkload(
    const Field& meta, const std::map<std::string, std::string>& labels) {
  for (const Field& ref : meta.Get("ownerReferences").Items()) {
    if (!ref.Get("controller").Bool()) continue;
    std::string kind = ref.Get("kind").String();
    std::string name = ref.Get("name").String();
    if (kind == "ReplicaSet") {
      auto hash = labels.find("pod-template-hash");
      if (hash != labels.end() && name.size() > hash->second.size() + 1 &&
          name.ends_with("-" + hash->second)) {
        return {"Deployment", name.substr(0, name.size() - hash->second.size() - 1)};
      }
    } else if (kind == "Job") {
      const size_t dash = name.rfind('-');
      if (dash != std::string::npos && dash > 0 && name.size() - dash - 1 >= kMinCronSuffixDigits &&
          AllDigits(std::string_view(name).substr(dash + 1))) {
        return {"CronJob", name.substr(0, dash)};
      }
    }
    return {kind, name};
  }
  return {"", ""};
}

// Per resource, the larger of the sum over the containers and the largest init container, plus
// the overhead. For limits, a resource that some container does not limit has no pod limit (0).
Resources Effective(const Field& spec, const char* which) {
  const bool limits = std::string_view(which) == "limits";
  Resources sum, init;
  std::array<bool, kNumDims> unlimited{};
  const auto read = [&](const Field& c) {
    const Resources r = DecodeResourceList(c.Get("resources").Get(which));
    for (Dim d : kAllDims) unlimited[static_cast<int>(d)] |= r[d] == 0;
    return r;
  };
  for (const Field& c : spec.Get("containers").Items()) sum += read(c);
  for (const Field& c : spec.Get("initContainers").Items()) init = Max(init, read(c));
  Resources r = Max(sum, init) + DecodeResourceList(spec.Get("overhead"));
  if (limits) {
    for (Dim d : kAllDims) {
      if (unlimited[static_cast<int>(d)]) r[d] = 0;
    }
  }
  return r;
}

int64_t DurationAnnotation(const Field& annotations, const std::string& key) {
  const Field f = annotations.Get(key);
  try {
    const int64_t s = ParseDuration(f.String());
    if (s < 0 || s > kMaxDurationSeconds) f.Fail("must be between 0s and 366 days");
    return s;
  } catch (const std::invalid_argument& e) {
    f.Fail(std::string("expected a duration such as \"90s\" or \"2h\": ") + e.what());
  }
}

}  // namespace

KubePod DecodePod(const nlohmann::json& json, const std::string& path) {
  const Field root(&json, path);
  if (!root.present() || !json.is_object()) root.Fail("expected a Pod object");
  KubePod pod;
  const Field meta = root.Get("metadata");
  pod.name = meta.Get("name").String();
  if (pod.name.empty()) meta.Get("name").Fail("a Pod needs a name");
  pod.namespace_name = meta.Get("namespace").String("default");
  if (pod.namespace_name.empty()) pod.namespace_name = "default";
  pod.uid = meta.Get("uid").String();
  pod.labels = meta.Get("labels").StringMap();

  const auto [kind, workload] = OwningWorkload(meta, pod.labels);
  pod.workload_kind = kind;
  std::string app = workload;
  if (app.empty()) {
    auto it = pod.labels.find("app.kubernetes.io/name");
    app = it != pod.labels.end() ? it->second : pod.name;
  }

  Service& s = pod.service;
  s.name = pod.name;
  s.app = pod.namespace_name + "/" + app;
  s.replicas = 1;
  const Field spec = root.Get("spec");
  if (!spec.present()) root.Get("spec").Fail("a Pod needs a spec");
  if (spec.Get("containers").Items().empty())
    spec.Get("containers").Fail("a Pod needs a container");
  s.requests = Effective(spec, "requests");
  s.limits = Effective(spec, "limits");
  // A container that states only limits requests its limits (the API server's defaulting).
  for (Dim d : kAllDims) {
    if (s.requests[d] == 0 && s.limits[d] > 0) s.requests[d] = s.limits[d];
  }
  const int64_t priority = spec.Get("priority").Int(0);
  if (priority < -2147483648LL || priority > 2000001000) {
    spec.Get("priority").Fail("is outside the range of Kubernetes priorities");
  }
  s.priority = static_cast<int>(priority);
  s.node_selector = spec.Get("nodeSelector").StringMap();
  s.node_affinity = DecodeNodeSelector(spec.Get("affinity")
                                           .Get("nodeAffinity")
                                           .Get("requiredDuringSchedulingIgnoredDuringExecution"));
  s.tolerations = DecodeTolerations(spec.Get("tolerations"));
  pod.node_name = spec.Get("nodeName").String();
  pod.scheduler_name = spec.Get("schedulerName").String("default-scheduler");

  const std::string qos = root.Get("status").Get("qosClass").String();
  if (const std::optional<QosClass> parsed = ParseQos(qos)) {
    s.qos = *parsed;
  } else if (s.requests.IsZero() && s.limits.IsZero()) {
    s.qos = QosClass::kBestEffort;
  } else {
    s.qos = s.limits == s.requests && s.limits.cpu() > 0 && s.limits.memory() > 0
                ? QosClass::kGuaranteed
                : QosClass::kBurstable;
  }
  s.sla = DefaultServiceSla(s.qos, 1);

  const Field annotations = meta.Get("annotations");
  const std::map<std::string, std::string> notes = annotations.StringMap();
  if (auto it = notes.find("archimedes.io/kind"); it != notes.end()) {
    if (it->second == "service") {
      pod.kind = PodKind::kService;
    } else if (it->second == "serverless") {
      pod.kind = PodKind::kServerless;
    } else if (it->second == "offline") {
      pod.kind = PodKind::kOffline;
    } else {
      annotations.Get(it->first).Fail("\"" + it->second +
                                      "\" is not service, serverless or offline");
    }
  }
  if (notes.contains("archimedes.io/delay-tolerance")) {
    pod.delay_tolerance_s = DurationAnnotation(annotations, "archimedes.io/delay-tolerance");
  }
  if (notes.contains("archimedes.io/duration-estimate")) {
    pod.duration_estimate_s = DurationAnnotation(annotations, "archimedes.io/duration-estimate");
  }
  if (auto it = notes.find("archimedes.io/availability"); it != notes.end()) {
    double a = 0;
    const std::string& text = it->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), a);
    if (ec != std::errc() || end != text.data() + text.size() || !(a > 0 && a <= 1)) {
      annotations.Get(it->first).Fail("expected a share in (0, 1] such as \"0.999\", got \"" +
                                      text + "\"");
    }
    s.sla.availability = a;
  }
  return pod;
}

}  // namespace archimedes
