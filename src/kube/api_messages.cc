#include "kube/api_messages.h"

#include "kube/fields.h"
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
