// /scheduler: the scheduler extender kube-scheduler calls (server/extender.h, docs/kubernetes.md):
// POST filter, prioritize, preempt and bind with its extender/v1 messages; and POST nodes, which
// registers Kubernetes Node objects (JSON or YAML, a NodeList too: `kubectl get nodes -o yaml`)
// as the fleet. A malformed message is a 400 whose body also carries kube-scheduler's `Error` key.
#include <memory>
#include <optional>

#include "kube/documents.h"
#include "kube/kube_node.h"
#include "server/api_error.h"
#include "server/extender.h"
#include "server/kube_nodes.h"
#include "server/objects.h"
#include "server/router.h"

namespace archimedes {
namespace {

template <typename F>
auto Decoded(const std::string& what, const std::string& body, F decode) {
  try {
    return decode(ParseJson(what, body));
  } catch (const KubeError& e) {
    throw BadRequest(e.what(), e.path());
  }
}

Reply WithErrorKey(Reply reply) {
  if (reply.status >= 400 && reply.body.is_object() && reply.body.contains("message")) {
    reply.body["Error"] = reply.body["message"];
  }
  return reply;
}

// Errors answered in kube-scheduler's shape as well as the API's.
Router::Handler Extender(Router::Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& r) {
    try {
      return handler(r);
    } catch (const ApiError& e) {
      return WithErrorKey({e.code(), e.ToJson()});
    }
  };
}

}  // namespace

void AddExtenderRoutes(Router& router, ApiContext& context) {
  auto pods = std::make_shared<PodCache>();
  router.Post(
      "/scheduler/filter", "/scheduler/filter",
      Extender([&context, pods](const httplib::Request& r) {
        const ExtenderArgs args = Decoded("ExtenderArgs", r.body, DecodeExtenderArgs);
        pods->Remember(args.pod.uid, args.pod_json);
        if (!IsBatchPod(args.pod)) {
          return Reply{200, EncodeFilterResult(context.Read(
                                [&](const ControlPlane& p) { return ExtenderFilter(p, args); }))};
        }
        const auto [body, key] = BatchPodJob(args.pod);
        Reply submitted;
        try {
          submitted =
              context.Mutate({.kind = EventKind::kSubmitJob, .body = body, .idempotency_key = key});
        } catch (const ApiError& e) {
          if (e.code() == 503) throw;
          ExtenderFilterResult failed;
          failed.full_nodes = args.nodes.has_value();
          failed.error = "archimedes: the batch pod cannot be planned: " + std::string(e.what());
          return Reply{200, EncodeFilterResult(failed)};
        }
        const std::string job = submitted.body["metadata"]["name"];
        return Reply{200, EncodeFilterResult(context.Read([&](const ControlPlane& p) {
                       return ExtenderBatchFilter(p, args, job);
                     }))};
      }));
  router.Post("/scheduler/prioritize", "/scheduler/prioritize",
              Extender([&context, pods](const httplib::Request& r) {
                const ExtenderArgs args = Decoded("ExtenderArgs", r.body, DecodeExtenderArgs);
                pods->Remember(args.pod.uid, args.pod_json);
                const std::vector<HostPriority> list = context.Read(
                    [&](const ControlPlane& p) { return ExtenderPrioritize(p, args); });
                return Reply{200, EncodeHostPriorityList(list)};
              }));
  router.Post("/scheduler/preempt", "/scheduler/preempt",
              Extender([&context, pods](const httplib::Request& r) {
                const ExtenderPreemptionArgs args =
                    Decoded("ExtenderPreemptionArgs", r.body, DecodePreemptionArgs);
                const auto victims = context.Read(
                    [&](const ControlPlane& p) { return ExtenderPreempt(p, args, *pods); });
                return Reply{200, EncodePreemptionResult(victims)};
              }));
  router.Post(
      "/scheduler/bind", "/scheduler/bind", Extender([&context, pods](const httplib::Request& r) {
        const ExtenderBindingArgs args = Decoded("ExtenderBindingArgs", r.body, DecodeBindingArgs);
        const std::optional<nlohmann::json> seen = pods->Find(args.pod_uid);
        if (!seen) {
          return Reply{200,
                       EncodeBindingResult("archimedes: pod " + args.pod_namespace + "/" +
                                           args.pod_name + " (uid " + args.pod_uid +
                                           ") was not filtered by this extender since it started; "
                                           "it binds only pods it filtered")};
        }
        const KubePod pod =
            Decoded("Pod", seen->dump(), [](const nlohmann::json& j) { return DecodePod(j); });
        if (IsBatchPod(pod)) {
          // Its job's task holds the node the plan gave it; filter passed only that one.
          return Reply{200, EncodeBindingResult("")};
        }
        const auto [name, body] = PodService(pod, args.node);
        try {
          context.Mutate({.kind = EventKind::kPutService, .target = name, .body = body});
        } catch (const ApiError& e) {
          if (e.code() == 503) throw;
          return Reply{200, EncodeBindingResult("archimedes: " + std::string(e.what()))};
        }
        return Reply{200, EncodeBindingResult("")};
      }));
  router.Post(
      "/scheduler/nodes", "/scheduler/nodes", Extender([&context](const httplib::Request& r) {
        std::vector<nlohmann::json> nodes;
        try {
          std::vector<nlohmann::json> docs = ParseDocuments("request body", r.body);
          if (docs.empty()) {
            throw BadRequest("the body holds no Node (kubectl get nodes -o yaml, or -o json)");
          }
          nodes = ExpandLists(std::move(docs));
          // Every one is checked before any is registered.
          for (const nlohmann::json& doc : nodes) {
            DecodeKubeNode(doc);
            KubeletAddress(doc);
          }
        } catch (const KubeError& e) {
          throw BadRequest(e.what(), e.path());
        }
        nlohmann::json items = nlohmann::json::array();
        int status = 200;
        for (const nlohmann::json& doc : nodes) {
          Reply reply = RegisterKubeNode(context, doc);
          if (reply.status == 201) status = 201;
          items.push_back(std::move(reply.body));
        }
        return Reply{status, {{"items", items}}};
      }));
}

}  // namespace archimedes
