// The clock (virtual clocks only), /metrics, /healthz (the process answers) and /readyz (the
// state is restored: ready to serve).
#include "server/api_error.h"
#include "server/router.h"

namespace archimedes {

void AddSystemRoutes(Router& router, ApiContext& context) {
  router.Get("/v1/clock", "/v1/clock", [&context](const httplib::Request&) {
    return Reply{200, context.Read([](const ControlPlane& p) {
                   return nlohmann::json{{"time", p.now()}, {"lastSeq", p.last_seq()}};
                 })};
  });
  router.Post("/v1/clock", "/v1/clock", [&context](const httplib::Request& r) {
    if (context.config.clock != ClockMode::kVirtual) {
      throw Conflict(
          "the clock is the wall clock: it moves by itself (start the server with "
          "--clock virtual to move it)");
    }
    const auto start = std::chrono::steady_clock::now();
    Reply reply = context.Mutate({.kind = EventKind::kClock, .body = r.body});
    context.metrics.ObserveCycle(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return reply;
  });
  router.Get("/metrics", "/metrics", [&context](const httplib::Request&) {
    return Reply{200, context.Read([&](const ControlPlane& p) {
                   return nlohmann::json(context.metrics.Render(p));
                 })};
  });
  router.Get("/healthz", "/healthz", [](const httplib::Request&) {
    return Reply{200, {{"status", "ok"}}};
  });
  router.Get("/readyz", "/readyz", [&context](const httplib::Request&) {
    context.CheckReady();
    return Reply{200, {{"status", "ready"}}};
  });
}

}  // namespace archimedes
