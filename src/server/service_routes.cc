// /v1/services: long-running services. PUT creates one or scales it (replicas and labels may
// change; anything else is fixed at creation), DELETE stops its replicas.
#include "server/router.h"

namespace archimedes {

void AddServiceRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/services", "/v1/services", [&context](const httplib::Request&) {
    return Reply{200, context.Read([](const ControlPlane& p) { return p.ListServices(); })};
  });
  router.Get(
      R"(/v1/services/([^/]+))", "/v1/services/{name}", [&context](const httplib::Request& r) {
        return Reply{
            200, context.Read([&](const ControlPlane& p) { return p.GetService(PathName(r)); })};
      });
  router.Put(R"(/v1/services/([^/]+))", "/v1/services/{name}",
             [&context](const httplib::Request& r) {
               return context.Mutate(
                   {.kind = EventKind::kPutService, .target = PathName(r), .body = r.body});
             });
  router.Delete(R"(/v1/services/([^/]+))", "/v1/services/{name}",
                [&context](const httplib::Request& r) {
                  return context.Mutate({.kind = EventKind::kDeleteService, .target = PathName(r)});
                });
}

}  // namespace archimedes
