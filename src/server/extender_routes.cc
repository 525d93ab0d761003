// /scheduler: the scheduler extender kube-scheduler calls (server/extender.h, docs/kubernetes.md):
// POST filter, prioritize, preempt and bind with its extender/v1 messages; and POST nodes, which
// registers Kubernetes Node objects (JSON or YAML, a NodeList too: `kubectl get nodes -o yaml`)
// as the fleet. A malformed message is a 400 whose body also carries kube-scheduler's `Error` key.
#include <memory>
#include <mutex>
#include <optional>

#include "kube/documents.h"
#include "kube/fields.h"
#include "kube/kube_node.h"
#include "server/api_error.h"
#include "server/extender.h"
#include "server/objects.h"
#include "server/router.h"

namespace archimedes {
namespace {

// What a Kubernetes Node's Ready condition says, read as kube/kube_node.h reads it: true for
// "True", false for "False" or "Unknown", nothing when the node has no Ready condition (no
// opinion: a node written by hand).
std::optional<bool> StatedReady(const nlohmann::json& node) {
  std::optional<bool> ready;
  for (const Field& c : Field(&node, "").Get("status").Get("conditions").Items()) {
    if (c.Get("type").String() == "Ready") ready = c.Get("status").String() == "True";
  }
  return ready;
}

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
        const auto [name, body] = BoundPodService(pod, args.node);
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
        std::vector<Node> nodes;
        std::vector<std::optional<bool>> stated_ready;  // what the node's Ready condition says
        std::vector<std::string> kubelets;              // where its kubelet listens
        try {
          std::vector<nlohmann::json> docs = ParseDocuments("request body", r.body);
          if (docs.empty()) {
            throw BadRequest("the body holds no Node (kubectl get nodes -o yaml, or -o json)");
          }
          for (const nlohmann::json& doc : ExpandLists(std::move(docs))) {
            nodes.push_back(DecodeKubeNode(doc));
            stated_ready.push_back(StatedReady(doc));
            kubelets.push_back(KubeletAddress(doc));
          }
        } catch (const KubeError& e) {
          throw BadRequest(e.what(), e.path());
        }
        nlohmann::json items = nlohmann::json::array();
        int status = 200;
        for (size_t i = 0; i < nodes.size(); ++i) {
          const Node& node = nodes[i];
          nlohmann::json spec = EncodeNodeSpec(node);
          // MAGI's members probe the kubelet's port: a TCP connect, as it answers only TLS with
          // credentials (docs/magi.md).
          if (!kubelets[i].empty()) {
            spec["address"] = kubelets[i];
            spec["probe"] = "tcp";
          }
          const nlohmann::json body = {{"apiVersion", "archimedes.io/v1"},
                                       {"kind", "Node"},
                                       {"metadata", {{"labels", node.labels}}},
                                       {"spec", spec}};
          Reply reply = context.Mutate(
              {.kind = EventKind::kPutNode, .target = node.name, .body = body.dump()});
          if (reply.status == 201) status = 201;
          // The API server's NotReady is one observer's view (the kubelet's heartbeats reaching
          // it): the node turns Suspect, nothing new placed there and nothing moved off it; only
          // MAGI's quorum (or an operator) fails it. Ready again lifts that suspicion, not the
          // quorum's.
          const std::string condition = reply.body["status"].value("condition", "");
          bool held_by_quorum = false;
          {
            std::lock_guard lock(context.mu);
            held_by_quorum = context.HeldByQuorum(node.name);
          }
          std::optional<nlohmann::json> status;
          if (stated_ready[i] == false && condition == "Ready") {
            status = nlohmann::json::object(
                {{"condition", "Suspect"},
                 {"reason", "the Kubernetes API server reports it not Ready"}});
          }
          if (stated_ready[i] == true && condition == "Suspect" && !held_by_quorum) {
            status = nlohmann::json::object({{"condition", "Ready"}});
          }
          if (status) {
            reply = context.Mutate({.kind = EventKind::kNodeStatus,
                                    .target = node.name,
                                    .body = nlohmann::json{{"status", *status}}.dump()});
          }
          items.push_back(reply.body);
        }
        return Reply{status, {{"items", items}}};
      }));
}

}  // namespace archimedes
