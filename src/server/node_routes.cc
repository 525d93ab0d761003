// /v1/nodes: the fleet. PUT adds a node or changes its labels, DELETE drains it (its containers
// are evicted, lowest priority first, and placed again) and removes it. PUT /status, the status
// subresource, fails a node (NotReady: down with its containers, which are placed again) or
// recovers it (Ready).
#include "server/router.h"

namespace archimedes {

void AddNodeRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/nodes", "/v1/nodes", [&context](const httplib::Request&) {
    return Reply{200, context.Read([](const ControlPlane& p) { return p.ListNodes(); })};
  });
  router.Get(R"(/v1/nodes/([^/]+))", "/v1/nodes/{name}", [&context](const httplib::Request& r) {
    return Reply{200, context.Read([&](const ControlPlane& p) { return p.GetNode(PathName(r)); })};
  });
  router.Put(R"(/v1/nodes/([^/]+))", "/v1/nodes/{name}", [&context](const httplib::Request& r) {
    return context.Mutate({.kind = EventKind::kPutNode, .target = PathName(r), .body = r.body});
  });
  router.Get(R"(/v1/nodes/([^/]+)/status)", "/v1/nodes/{name}/status",
             [&context](const httplib::Request& r) {
               return Reply{200, context.Read([&](const ControlPlane& p) {
                              return p.GetNode(PathName(r));
                            })};
             });
  router.Put(R"(/v1/nodes/([^/]+)/status)", "/v1/nodes/{name}/status",
             [&context](const httplib::Request& r) {
               return context.Mutate(
                   {.kind = EventKind::kNodeStatus, .target = PathName(r), .body = r.body});
             });
  router.Delete(R"(/v1/nodes/([^/]+))", "/v1/nodes/{name}", [&context](const httplib::Request& r) {
    return context.Mutate({.kind = EventKind::kDeleteNode, .target = PathName(r)});
  });
}

}  // namespace archimedes
