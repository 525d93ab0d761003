// /v1/sla: every SLA contract (live services and all jobs) with its target, what it achieved so
// far and its breaches, as the engine records them (engine/sla_record.h); `?kind=service|job`
// keeps one kind.
#include "server/router.h"

namespace archimedes {

void AddSlaRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/sla", "/v1/sla", [&context](const httplib::Request& r) {
    const std::string kind = r.get_param_value("kind");
    return Reply{200, context.Read([&](const ControlPlane& p) { return p.Sla(kind); })};
  });
}

}  // namespace archimedes
