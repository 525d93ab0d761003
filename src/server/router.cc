#include "server/router.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string_view>

#include "model/wall_clock.h"
#include "server/api_error.h"
#include "server/journal.h"

namespace archimedes {

void ApiContext::CheckReady() const {
  if (!ready) throw Unavailable("the state is still being restored from the store; retry soon");
}

Reply ApiContext::Mutate(Event event) {
  Reply reply;
  int64_t journal_seq = 0;
  {
    std::lock_guard lock(mu);
    CheckReady();
    if (!leading) {
      throw ApiError(503, "NotLeader",
                     leader.empty() ? "this replica follows and no leader is known yet; retry soon"
                                    : "this replica follows; send writes to the leader, " + leader);
    }
    // Under the wall clock the engine's time is never more than a cycle behind the wall when a
    // write applies: one that finds it further behind (before the first tick after a start or a
    // takeover) brings it forward first, or a job would be submitted at a stale time.
    if (config.clock == ClockMode::kWall && event.kind != EventKind::kClock &&
        plane.now() + config.cycle_s < WallSeconds()) {
      try {
        plane.Apply(
            {.kind = EventKind::kClock, .body = nlohmann::json{{"time", WallSeconds()}}.dump()},
            &journal_seq);
      } catch (const ApiError&) {
        // The wall clock stepped back meanwhile: the write applies at the engine's time.
      }
    }
    reply = plane.Apply(std::move(event), &journal_seq);
  }
  if (journal_seq == 0) return reply;
  // Outside the lock, so that the requests arriving meanwhile apply and share the next write.
  try {
    plane_journal.Sync(journal_seq);
  } catch (const JournalError& e) {
    // The engine has applied events the store does not hold: only a restart, which rebuilds the
    // state from the store, makes them agree again. Nothing stored is lost, and no client was
    // told that these events were.
    std::cerr << "archimedes serve: the store failed, stopping: " << e.what() << std::endl;
    std::abort();
  }
  {
    // Taken so that a long-poll between its check and its wait does not miss the wake-up.
    std::lock_guard lock(mu);
  }
  actions_changed.notify_all();
  return reply;
}

BodyLimit BodyLimitOf(const ServerConfig& config, const httplib::Request& r) {
  if (r.method == "PUT" && r.path == "/v1/priors") {
    return {"max-priors-body", MaxPriorsBody(config)};
  }
  return {"max-body", config.max_body_bytes};
}

httplib::Server::Handler Router::Wrap(const std::string& route, Handler handler) {
  // The router is a builder that may be gone when requests come: the handler keeps the context.
  return [&context = context_, route, handler = std::move(handler)](const httplib::Request& request,
                                                                    httplib::Response& response) {
    const auto start = std::chrono::steady_clock::now();
    Reply reply;
    try {
      // A body of unannounced length (chunked) is read up to the largest limit of any route.
      const BodyLimit limit = BodyLimitOf(context.config, request);
      if (static_cast<int64_t>(request.body.size()) > limit.bytes) {
        throw BodyTooLarge(limit.setting, limit.bytes);
      }
      reply = handler(request);
    } catch (const ApiError& e) {
      reply = {e.code(), e.ToJson()};
    } catch (const std::exception& e) {
      reply = {500, ApiError(500, "InternalError", e.what()).ToJson()};
    }
    response.status = reply.status;
    if (reply.body.is_string()) {
      response.set_content(reply.body.get<std::string>(), "text/plain; version=0.0.4");
    } else {
      // A message may quote the request's bytes, which need not be UTF-8.
      response.set_content(
          reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
          "application/json");
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    context.metrics.ObserveRequest(route, request.method, reply.status, seconds);
  };
}

void Router::Get(const std::string& pattern, const std::string& route, Handler handler) {
  http_.Get(pattern, Wrap(route, std::move(handler)));
}
void Router::Put(const std::string& pattern, const std::string& route, Handler handler) {
  http_.Put(pattern, Wrap(route, std::move(handler)));
}
void Router::Post(const std::string& pattern, const std::string& route, Handler handler) {
  http_.Post(pattern, Wrap(route, std::move(handler)));
}
void Router::Delete(const std::string& pattern, const std::string& route, Handler handler) {
  http_.Delete(pattern, Wrap(route, std::move(handler)));
}

void Router::Asset(const std::string& path, const std::string& content_type,
                   std::string_view bytes) {
  std::string pattern;
  for (const char c : path) {
    if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) pattern += '\\';
    pattern += c;
  }
  http_.Get(pattern, [&context = context_, path, content_type, bytes](const httplib::Request&,
                                                                      httplib::Response& response) {
    const auto start = std::chrono::steady_clock::now();
    // Fixed for the life of the binary, but a new binary may bring new ones: always revalidate.
    response.set_header("Cache-Control", "no-cache");
    response.set_content(bytes.data(), bytes.size(), content_type);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    context.metrics.ObserveRequest(path, "GET", 200, seconds);
  });
}

}  // namespace archimedes
