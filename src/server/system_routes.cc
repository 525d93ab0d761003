// The clock (virtual clocks only) and its step-by-step drive, the server's settings, /metrics,
// /healthz (the process answers) and /readyz (the state is restored: ready to serve).
#include "model/duration.h"
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
  router.Post("/v1/clock/drive", "/v1/clock/drive", [&context](const httplib::Request& r) {
    if (context.config.clock != ClockMode::kVirtual) {
      throw Conflict("only a virtual clock is driven: start the server with --clock virtual");
    }
    return context.Mutate({.kind = EventKind::kClock, .target = "drive", .body = r.body});
  });
  router.Get("/v1/server", "/v1/server", [&context](const httplib::Request&) {
    const ServerConfig& c = context.config;
    return Reply{200,
                 {{"policy", c.policy},
                  {"buffer", BufferSetting(c)},
                  {"seed", c.seed},
                  {"clock", c.clock == ClockMode::kVirtual ? "virtual" : "wall"},
                  {"cycle", FormatDuration(c.cycle_s)},
                  {"usageRound", FormatDuration(c.usage_round_s)},
                  {"store", c.store}}};
  });
  router.Get("/metrics", "/metrics", [&context](const httplib::Request&) {
    return Reply{200, context.Read([&](const ControlPlane& p) {
                   return nlohmann::json(
                       context.metrics.Render(p, context.config.advertise, context.leading));
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
