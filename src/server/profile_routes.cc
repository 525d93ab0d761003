// /v1/profiles: the application profiles learned online from the usage the agents report (class,
// curves per dimension and time bin, right-sizing advice, health warnings); /v1/profiles/{app}
// one application's, with its class and warnings. Rebuilt at most once per usage round. An
// application's name may hold a slash (a Kubernetes workload's is "namespace/name"): the rest of
// the path is the name, written as is or with the slash escaped (%2F).
//
// /v1/priors: what the engine places by, learned from history (a profiles file, the mix of task
// shapes): PUT sets it, GET says what is set. The online profiles above are shown, not placed by.
#include "server/router.h"

namespace archimedes {

void AddProfileRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/profiles", "/v1/profiles", [&context](const httplib::Request&) {
    return Reply{200, context.Read([](const ControlPlane& p) { return p.Profiles(); })};
  });
  router.Get(R"(/v1/profiles/(.+))", "/v1/profiles/{app}", [&context](const httplib::Request& r) {
    return Reply{200, context.Read([&](const ControlPlane& p) { return p.Profile(PathName(r)); })};
  });
  router.Get("/v1/priors", "/v1/priors", [&context](const httplib::Request&) {
    return Reply{200, context.Read([](const ControlPlane& p) { return p.Priors(); })};
  });
  router.Put("/v1/priors", "/v1/priors", [&context](const httplib::Request& r) {
    return context.Mutate({.kind = EventKind::kPutPriors, .body = r.body});
  });
}

}  // namespace archimedes
