// What every route shares: the control plane behind one lock, the wake-up of long-polls when new
// actions come, the metrics; and the Router, which registers a handler for a method and a path
// pattern and turns whatever it throws into the API's error shape (api_error.h), timing and
// counting every request by route.
#ifndef ARCHIMEDES_SERVER_ROUTER_H_
#define ARCHIMEDES_SERVER_ROUTER_H_

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "server/config.h"
#include "server/control_plane.h"
#include "server/metrics.h"
#include "server/node_liveness.h"

namespace archimedes {

class ApiContext {
 public:
  ApiContext(const ServerConfig& config, ControlPlane& plane, Journal& journal,
             ServerMetrics& metrics)
      : config(config),
        plane(plane),
        plane_journal(journal),
        metrics(metrics),
        liveness(std::chrono::seconds(WatchesAgents(config) ? config.node_grace_s : 0)) {}

  // Whether this server judges nodes by their agents' contact (server/node_liveness.h): under the
  // wall clock, with a grace. With etcd a silent agent makes its node Suspect and only MAGI's
  // quorum makes it NotReady (DecidedByQuorum); without, the silence makes it NotReady.
  static bool WatchesAgents(const ServerConfig& config) {
    return config.clock == ClockMode::kWall && config.node_grace_s > 0;
  }
  static bool DecidedByQuorum(const ServerConfig& config) {
    return config.store.rfind("etcd://", 0) == 0;
  }

  // Applies a mutation under the lock, returns once it is stored, and wakes the long-polls. Throws
  // ApiError (503 until the state is restored, and on a follower). When the store fails, the
  // process stops: a restart rebuilds the state from what the store holds.
  Reply Mutate(Event event);
  // Runs `read` on the plane under the lock. Throws ApiError 503 until the state is restored.
  template <typename F>
  auto Read(F read) {
    std::lock_guard lock(mu);
    CheckReady();
    return read(plane);
  }
  void CheckReady() const;

  const ServerConfig& config;
  ControlPlane& plane;
  Journal& plane_journal;
  ServerMetrics& metrics;
  std::mutex mu;  // guards the plane
  std::condition_variable actions_changed;
  std::atomic<bool> ready{false};
  std::atomic<bool> stopping{false};
  // Whether this process applies writes; a follower (server/replica.h) answers them with 503
  // NotLeader naming `leader`, the leader's URL ("" when none is known), guarded by `mu`.
  std::atomic<bool> leading{true};
  std::string leader;
  NodeLiveness liveness;  // guarded by `mu`
  // With etcd: the nodes MAGI's quorum holds offline, those whose migration it approved, as last
  // listed and watched (server/magi_decisions.h), and whether that view is current; guarded by
  // `mu`.
  std::set<std::string> decided_offline;
  std::set<std::string> migration_approved;
  bool decisions_synced = false;
  // With kube-api and etcd: each Kubernetes node's Lease renewTime (wall seconds), as last listed
  // and watched, for MAGI's heartbeats (server/kube_scheduler.h); guarded by `mu`.
  std::map<std::string, int64_t> node_leases;

  // Whether only MAGI's quorum may bring `node` back: with etcd, the quorum holds it offline or
  // this server has not yet read whether it does. The caller holds `mu`.
  bool HeldByQuorum(const std::string& node) const {
    return DecidedByQuorum(config) && (!decisions_synced || decided_offline.count(node) > 0);
  }
};

// The largest body request `r` may have, and the setting that says so: max-priors-body for PUT
// /v1/priors, max-body for every other.
struct BodyLimit {
  const char* setting;
  int64_t bytes;
};
BodyLimit BodyLimitOf(const ServerConfig& config, const httplib::Request& r);

class Router {
 public:
  using Handler = std::function<Reply(const httplib::Request&)>;
  Router(httplib::Server& http, ApiContext& context) : http_(http), context_(context) {}

  // `pattern` is a regular expression of the path; `route` its name in metrics
  // ("/v1/nodes/{name}").
  void Get(const std::string& pattern, const std::string& route, Handler handler);
  void Put(const std::string& pattern, const std::string& route, Handler handler);
  void Post(const std::string& pattern, const std::string& route, Handler handler);
  void Delete(const std::string& pattern, const std::string& route, Handler handler);
  // GET `path` (exactly) answers `bytes`, which outlive the server, as `content_type`.
  void Asset(const std::string& path, const std::string& content_type, std::string_view bytes);

 private:
  httplib::Server::Handler Wrap(const std::string& route, Handler handler);

  httplib::Server& http_;
  ApiContext& context_;
};

// The routes, one file per resource.
void AddNodeRoutes(Router& router, ApiContext& context);
void AddServiceRoutes(Router& router, ApiContext& context);
void AddJobRoutes(Router& router, ApiContext& context);
void AddPlanRoutes(Router& router, ApiContext& context);      // the batch plan
void AddSlaRoutes(Router& router, ApiContext& context);       // every SLA contract
void AddProfileRoutes(Router& router, ApiContext& context);   // profiles learned online
void AddAgentRoutes(Router& router, ApiContext& context);     // actions, container status, usage
void AddSystemRoutes(Router& router, ApiContext& context);    // clock, metrics, health
void AddLeaderRoutes(Router& router, ApiContext& context);    // which replica leads
void AddExtenderRoutes(Router& router, ApiContext& context);  // kube-scheduler's extender
void AddMagiRoutes(Router& router, ApiContext& context);      // MAGI's decisions (etcd store)
void AddUiRoutes(Router& router, ApiContext& context);        // the dashboard at /ui

// A path segment: an object's name as the client wrote it (percent-decoded by the server).
inline std::string PathName(const httplib::Request& request) { return request.matches[1]; }

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_ROUTER_H_
