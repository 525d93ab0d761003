#include "kube/api_messages.h"

#include <ctime>
#include <string_view>

#include "kube/fields.h"
#include "kube/kube_error.h"
#include "kube/resource_list.h"

namespace archimedes {
namespace {

std::string ResourceVersion(const Field& object) {
  return object.Get("metadata").Get("resourceVersion").String();
}

}  // namespace

KubeList DecodeList(const nlohmann::json& list, const std::string& path) {
  const Field root(&list, path);
  if (!list.is_object()) root.Fail("expected a list object with metadata and items");
  KubeList out;
  out.resource_version = ResourceVersion(root);
  for (const Field& item : root.Get("items").Items()) {
    if (!item.json().is_object()) item.Fail("expected an object");
    out.items.push_back(item.json());
  }
  return out;
}

KubeStatus DecodeStatus(const nlohmann::json& status, const std::string& path) {
  const Field root(&status, path);
  KubeStatus out;
  if (!status.is_object()) return out;
  out.code = root.Get("code").Int();
  out.reason = root.Get("reason").String();
  out.message = root.Get("message").String();
  // A StatusCause's type is written under the key "reason" (the DisruptionBudget of a 429).
  for (const Field& cause : root.Get("details").Get("causes").Items()) {
    const std::string text = cause.Get("message").String();
    if (!text.empty()) out.message += (out.message.empty() ? "" : ": ") + text;
  }
  return out;
}

KubeWatchEvent DecodeWatchEvent(const nlohmann::json& line, const std::string& path) {
  const Field root(&line, path);
  if (!line.is_object()) root.Fail("expected a watch event object");
  const Field type = root.Get("type");
  const Field object = root.Get("object");
  if (!object.present() || !object.json().is_object()) object.Fail("expected an object");
  KubeWatchEvent event;
  const std::string name = type.String();
  if (name == "ADDED") {
    event.type = KubeWatchEvent::Type::kAdded;
  } else if (name == "MODIFIED") {
    event.type = KubeWatchEvent::Type::kModified;
  } else if (name == "DELETED") {
    event.type = KubeWatchEvent::Type::kDeleted;
  } else if (name == "BOOKMARK") {
    event.type = KubeWatchEvent::Type::kBookmark;
  } else if (name == "ERROR") {
    event.type = KubeWatchEvent::Type::kError;
    event.status = DecodeStatus(object.json(), object.path());
  } else {
    type.Fail("\"" + name + "\" is not ADDED, MODIFIED, DELETED, BOOKMARK or ERROR");
  }
  event.object = object.json();
  event.resource_version = ResourceVersion(object);
  return event;
}

nlohmann::json EncodeBinding(const std::string& namespace_name, const std::string& name,
                             const std::string& uid, const std::string& node) {
  return {{"kind", "Binding"},
          {"apiVersion", "v1"},
          {"metadata", {{"name", name}, {"namespace", namespace_name}, {"uid", uid}}},
          {"target", {{"kind", "Node"}, {"name", node}}}};
}

nlohmann::json EncodeEviction(const std::string& namespace_name, const std::string& name,
                              const std::string& uid, int64_t grace_s) {
  nlohmann::json options = {{"preconditions", {{"uid", uid}}}};
  if (grace_s >= 0) options["gracePeriodSeconds"] = grace_s;
  return {{"kind", "Eviction"},
          {"apiVersion", "policy/v1"},
          {"metadata", {{"name", name}, {"namespace", namespace_name}}},
          {"deleteOptions", options}};
}

int64_t ParseKubeTime(const std::string& text, const std::string& path) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end != nullptr && *end == '.') {
    ++end;
    while (*end >= '0' && *end <= '9') ++end;
  }
  if (end == nullptr || std::string_view(end) != "Z") {
    throw KubeError(path, "\"" + text + "\" is not an RFC 3339 UTC time (2026-12-06T03:04:05Z)");
  }
  return static_cast<int64_t>(timegm(&tm));
}

KubeLease DecodeLease(const nlohmann::json& lease, const std::string& path) {
  const Field root(&lease, path);
  if (!lease.is_object()) root.Fail("expected a Lease object");
  KubeLease out;
  const Field name = root.Get("metadata").Get("name");
  out.node = name.String();
  if (out.node.empty()) name.Fail("a node's Lease is named after the node");
  const Field renew = root.Get("spec").Get("renewTime");
  if (renew.present()) out.renew_s = ParseKubeTime(renew.String(), renew.path());
  return out;
}

std::vector<PodUsage> DecodePodMetricsList(const nlohmann::json& list, const std::string& path) {
  std::vector<PodUsage> out;
  for (const nlohmann::json& item : DecodeList(list, path).items) {
    const Field pod(&item, path + ".items[" + std::to_string(out.size()) + "]");
    PodUsage usage;
    usage.namespace_name = pod.Get("metadata").Get("namespace").String();
    usage.name = pod.Get("metadata").Get("name").String();
    if (usage.name.empty()) pod.Get("metadata").Get("name").Fail("a pod's metrics name the pod");
    for (const Field& c : pod.Get("containers").Items()) {
      usage.usage += DecodeResourceList(c.Get("usage"));
    }
    out.push_back(std::move(usage));
  }
  return out;
}

}  // namespace archimedes
