// /v1/plan: the engine's batch plan, each pending task's node and window (start, expected end),
// earliest start first; `?node=NAME` keeps one node's. Empty under a policy that does not plan.
#include "server/router.h"

namespace archimedes {

void AddPlanRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/plan", "/v1/plan", [&context](const httplib::Request& r) {
    const std::string node = r.get_param_value("node");
    return Reply{200, context.Read([&](const ControlPlane& p) { return p.Plan(node); })};
  });
}

}  // namespace archimedes
