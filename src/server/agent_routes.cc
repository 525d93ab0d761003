// What node agents use: their actions by long-poll, the status of the containers they run, the
// usage they measure.
//
// GET /v1/nodes/{name}/actions?after=SEQ&wait=30s&limit=N answers at once when the node has
// actions numbered above SEQ, else when one comes or `wait` (at most 60s) passes — then with no
// items. An agent passes the last `seq` it carried out as `after`, so it resumes where it was,
// across restarts of either side. GET /v1/actions?after=SEQ&limit=N is every node's actions and
// those of none (jobs reported late or rejected, scale-outs) in one feed, without waiting: for an
// agent of a whole fleet.
#include <charconv>
#include <chrono>

#include "model/duration.h"
#include "server/api_error.h"
#include "server/router.h"

namespace archimedes {
namespace {

constexpr int64_t kMaxWaitSeconds = 60;
constexpr int kMaxLimit = 10000;

int64_t IntegerParam(const httplib::Request& r, const std::string& name, int64_t fallback,
                     int64_t min, int64_t max) {
  if (!r.has_param(name)) return fallback;
  const std::string text = r.get_param_value(name);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw BadRequest(name + " \"" + text + "\" is not a whole number in [" + std::to_string(min) +
                         ", " + std::to_string(max) + "]",
                     name);
  }
  return value;
}

int64_t WaitParam(const httplib::Request& r) {
  if (!r.has_param("wait")) return 0;
  const std::string text = r.get_param_value("wait");
  int64_t seconds = 0;
  try {
    seconds = ParseDuration(text);
  } catch (const DurationError& e) {
    throw BadRequest(std::string("wait: ") + e.what(), "wait");
  }
  if (seconds < 0 || seconds > kMaxWaitSeconds) {
    throw BadRequest(
        "wait \"" + text + "\" must be between 0s and " + FormatDuration(kMaxWaitSeconds), "wait");
  }
  return seconds;
}

}  // namespace

void AddAgentRoutes(Router& router, ApiContext& context) {
  router.Get(
      R"(/v1/nodes/([^/]+)/actions)", "/v1/nodes/{name}/actions",
      [&context](const httplib::Request& r) {
        const int64_t after = IntegerParam(r, "after", 0, 0, std::numeric_limits<int64_t>::max());
        const int limit = static_cast<int>(IntegerParam(r, "limit", 1000, 1, kMaxLimit));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(WaitParam(r));
        const std::string node = PathName(r);
        std::unique_lock lock(context.mu);
        context.CheckReady();
        nlohmann::json page = context.plane.NodeActions(node, after, limit);
        // The node's agent is alive: in contact until this answers (server/node_liveness.h).
        const auto now = std::chrono::steady_clock::now();
        context.liveness.Contact(node, now,
                                 std::chrono::ceil<std::chrono::seconds>(deadline - now));
        while (page["items"].empty() && !context.stopping &&
               context.actions_changed.wait_until(lock, deadline) != std::cv_status::timeout) {
          page = context.plane.NodeActions(node, after, limit);
        }
        if (page["items"].empty()) page = context.plane.NodeActions(node, after, limit);
        return Reply{200, page};
      });
  router.Get("/v1/actions", "/v1/actions", [&context](const httplib::Request& r) {
    const int64_t after = IntegerParam(r, "after", 0, 0, std::numeric_limits<int64_t>::max());
    const int limit = static_cast<int>(IntegerParam(r, "limit", 1000, 1, kMaxLimit));
    return Reply{200, context.Read([&](ControlPlane& p) { return p.FleetActions(after, limit); })};
  });
  router.Post(R"(/v1/containers/([^/]+)/status)", "/v1/containers/{name}/status",
              [&context](const httplib::Request& r) {
                return context.Mutate(
                    {.kind = EventKind::kContainerStatus, .target = PathName(r), .body = r.body});
              });
  router.Post("/v1/usage", "/v1/usage", [&context](const httplib::Request& r) {
    return context.Mutate({.kind = EventKind::kUsage, .body = r.body});
  });
}

}  // namespace archimedes
