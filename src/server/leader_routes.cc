// GET /v1/leader: which replica leads, for clients and operators ({"leader": URL, "role":
// "leader" | "follower"}). With the SQLite store the one process always leads.
#include "server/router.h"

namespace archimedes {

void AddLeaderRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/leader", "/v1/leader", [&context](const httplib::Request&) {
    std::lock_guard lock(context.mu);
    return Reply{200,
                 {{"leader", context.leader}, {"role", context.leading ? "leader" : "follower"}}};
  });
}

}  // namespace archimedes
