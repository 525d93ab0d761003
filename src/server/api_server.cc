#include "server/api_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "engine/policy.h"
#include "model/duration.h"
#include "model/wall_clock.h"
#include "server/api_error.h"
#include "server/etcd_location.h"
#include "server/kube_scheduler.h"
#include "server/magi_decisions.h"
#include "server/magi_heartbeats.h"
#include "server/replica.h"
#include "server/sqlite_journal.h"
#include "store/etcd_cluster.h"

namespace archimedes {
namespace {

std::string JournalPath(const ServerConfig& config) {
  return (std::filesystem::path(config.data) / "journal.db").string();
}

std::unique_ptr<Journal> OpenJournal(const ServerConfig& config) {
  // What decides how the events replay: replayed under other settings they would give another
  // state.
  // The policy first: a buffer differs with it.
  const JournalSettings settings = {
      {"policy", config.policy},
      {"buffer", BufferSetting(config)},
      {"seed", std::to_string(config.seed)},
      {"clock", config.clock == ClockMode::kWall ? "wall" : "virtual"},
      {"cycle", FormatDuration(config.cycle_s)},
      {"usage-round", FormatDuration(config.usage_round_s)},
      {"adopt-profiles", FormatDuration(config.adopt_profiles_s)}};
  if (IsEtcdStore(config.store)) {
    for (const auto& [key, bytes] : {std::pair{"max-body", config.max_body_bytes},
                                     std::pair{"max-priors-body", MaxPriorsBody(config)}}) {
      if (bytes > kMaxEtcdEventBytes) {
        throw ConfigError(std::string(key) + " " + std::to_string(bytes) +
                          " bytes: with the etcd store at most 1Mi (an event is one etcd value)");
      }
    }
    const EtcdLocation location = ParseEtcdLocation(config.store);
    try {
      return std::make_unique<EtcdJournal>(std::make_unique<EtcdCluster>(location.endpoints),
                                           location.prefix, settings);
    } catch (const StoreError& e) {
      throw JournalError(e.what());
    }
  }
  std::error_code error;
  std::filesystem::create_directories(config.data, error);
  if (error) {
    throw JournalError("cannot create the data folder " + config.data + ": " + error.message());
  }
  return std::make_unique<SqliteJournal>(JournalPath(config), settings);
}

constexpr size_t kKeepAliveRequests = 1000;

}  // namespace

ApiServer::ApiServer(ServerConfig config)
    : config_(std::move(config)),
      journal_(OpenJournal(config_)),
      plane_(ConfiguredPolicy(config_), PlaneOptions{.cycle_s = config_.cycle_s,
                                                     .usage_round_s = config_.usage_round_s,
                                                     .adopt_profiles_s = config_.adopt_profiles_s,
                                                     .seed = config_.seed}),
      context_(config_, plane_, *journal_, metrics_) {
  // A missing token or CA file stops the start before anything listens.
  if (!config_.kube_api.empty()) {
    kube_api_ = ResolveKubeApi(config_.kube_api, config_.kube_token_file, config_.kube_ca_file);
  }
  const int threads = config_.http_threads;
  // Small answers go out at once rather than waiting for the client's delayed ack.
  http_.set_tcp_nodelay(true);
  http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // httplib closes a kept-alive connection after 5 requests; each reconnect then costs a thread
  // hand-off and a fresh read buffer. nginx's default (keepalive_requests) is 1,000.
  http_.set_keep_alive_max_count(kKeepAliveRequests);
  // httplib reads (or, above this, skips) a whole body before answering, which every client can
  // take; the router then holds each route to its own limit (router.h's BodyLimitOf).
  http_.set_payload_max_length(
      static_cast<size_t>(std::max(config_.max_body_bytes, MaxPriorsBody(config_))));
  // httplib's own refusals (no route, a body over the largest limit, a malformed request) in the
  // API's error shape; answers of the handlers already have one.
  http_.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& request, httplib::Response& response) {
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        std::string message = "no route " + request.method + " " + request.path;
        std::string reason = "NotFound";
        if (response.status == 413) {
          const BodyLimit limit = BodyLimitOf(config_, request);
          reason = "RequestEntityTooLarge";
          message = BodyTooLarge(limit.setting, limit.bytes).what();
          // httplib parses a form-encoded body (curl -d's default type) as a form, up to its own
          // small limit, whatever the route takes.
          if (request.get_header_value("Content-Type")
                  .starts_with("application/x-www-form-urlencoded")) {
            message =
                "a body sent as application/x-www-form-urlencoded (curl -d's default) is "
                "refused above " +
                std::to_string(CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH) +
                " bytes: send it as application/json (curl -H 'Content-Type: "
                "application/json')";
          }
        } else if (response.status != 404) {
          reason = "BadRequest";
          message = "the request could not be read";
        }
        response.set_content(ApiError(response.status, reason, message).ToJson().dump(),
                             "application/json");
        metrics_.ObserveRequest("unmatched", request.method, response.status, 0);
        return httplib::Server::HandlerResponse::Handled;
      }));
  // cpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed in Debian's
  // library): a fleet's agents reconnecting at once to a restarted server would see their SYNs
  // dropped and retried for minutes (bench/agent_fanout.sh). The listening socket is kept here and
  // given the system's largest backlog once bound (listen again only updates the backlog).
  http_.set_socket_options([this](socket_t socket) {
    httplib::default_socket_options(socket);
    listening_socket_ = socket;
  });
  Router router(http_, context_);
  AddNodeRoutes(router, context_);
  AddServiceRoutes(router, context_);
  AddJobRoutes(router, context_);
  AddPlanRoutes(router, context_);
  AddSlaRoutes(router, context_);
  AddProfileRoutes(router, context_);
  AddAgentRoutes(router, context_);
  AddSystemRoutes(router, context_);
  AddLeaderRoutes(router, context_);
  AddExtenderRoutes(router, context_);
  AddMagiRoutes(router, context_);
  AddUiRoutes(router, context_);
  if (config_.port == 0) {
    port_ = http_.bind_to_any_port(config_.host);
  } else if (http_.bind_to_port(config_.host, config_.port)) {
    port_ = config_.port;
  } else {
    port_ = -1;
  }
  if (port_ <= 0) throw std::runtime_error("cannot listen on " + ListenAddress(config_));
  if (listening_socket_ >= 0) ::listen(listening_socket_, SOMAXCONN);
  if (config_.advertise.empty()) {
    config_.advertise = "http://" + config_.host + ":" + std::to_string(port_);
  }
  context_.leader = config_.advertise;
  etcd_journal_ = dynamic_cast<EtcdJournal*>(journal_.get());
}

ApiServer::~ApiServer() { Stop(); }

std::string ApiServer::store_description() const {
  return etcd_journal_ != nullptr ? journal_->path() : "sqlite " + journal_->path();
}

int64_t ApiServer::Run() {
  std::thread listener([this] { http_.listen_after_bind(); });
  int64_t replayed = 0;
  std::unique_ptr<Replica> replica;
  try {
    if (etcd_journal_ != nullptr) {
      replica = std::make_unique<Replica>(*etcd_journal_, context_, config_.advertise,
                                          config_.leader_lease_s);
      replayed = replica->Start();
    } else {
      std::lock_guard lock(context_.mu);
      replayed = plane_.Restore(*journal_);
      context_.ready = true;
    }
  } catch (...) {
    http_.stop();
    listener.join();
    throw;
  }
  // MAGI's decisions reach the engine only through etcd, where its members record them, and the
  // agents' contacts reach the members there as the nodes' heartbeats.
  std::unique_ptr<MagiDecisionWatch> decisions;
  std::unique_ptr<MagiHeartbeats> heartbeats;
  if (etcd_journal_ != nullptr) {
    const EtcdLocation location = ParseEtcdLocation(config_.store);
    decisions = std::make_unique<MagiDecisionWatch>(context_, location);
    decisions->Start();
    if (ApiContext::WatchesAgents(config_) && config_.magi_heartbeat_s > 0) {
      heartbeats = std::make_unique<MagiHeartbeats>(location, config_.magi_heartbeat_s);
    }
  }
  std::unique_ptr<KubeScheduler> kube;
  if (!config_.kube_api.empty()) {
    kube = std::make_unique<KubeScheduler>(context_, kube_api_);
    kube->Start();
  }
  std::unique_lock lock(stop_mu_);
  while (!stop_requested_) {
    if (config_.clock == ClockMode::kWall && context_.leading) {
      lock.unlock();
      try {
        context_.Mutate(
            {.kind = EventKind::kClock, .body = nlohmann::json{{"time", WallSeconds()}}.dump()});
      } catch (const ApiError&) {
        // The wall clock stepped back: the engine's time never does; the next tick catches up.
      }
      JudgeAgents();
      if (heartbeats) RenewHeartbeats(*heartbeats);
      lock.lock();
    }
    if (decisions && context_.leading) {
      lock.unlock();
      decisions->Reconcile();
      lock.lock();
    }
    stop_cv_.wait_for(lock, std::chrono::seconds(config_.cycle_s),
                      [this] { return stop_requested_; });
  }
  lock.unlock();
  if (kube) kube->Stop();
  if (decisions) decisions->Stop();
  http_.stop();
  listener.join();
  if (replica) replica->Stop();
  return replayed;
}

void ApiServer::JudgeAgents() {
  if (!ApiContext::WatchesAgents(config_)) return;
  const bool quorum = ApiContext::DecidedByQuorum(config_);
  const NodeState silent_state = quorum ? NodeState::kSuspect : NodeState::kNotReady;
  std::vector<std::pair<std::string, NodeState>> changes;
  {
    std::lock_guard lock(context_.mu);
    const auto now = std::chrono::steady_clock::now();
    for (const std::string& node : context_.liveness.Silent(now)) {
      const std::optional<NodeState> state = plane_.NodeStateOf(node);
      if (!state) context_.liveness.Forget(node);
      if (state == NodeState::kReady || (!quorum && state == NodeState::kSuspect)) {
        changes.emplace_back(node, silent_state);
      }
    }
    for (const std::string& node : context_.liveness.Heard(now)) {
      const std::optional<NodeState> state = plane_.NodeStateOf(node);
      // Under MAGI a node the quorum holds offline comes back only once it is readmitted.
      if (state && *state != NodeState::kReady && !context_.HeldByQuorum(node)) {
        changes.emplace_back(node, NodeState::kReady);
      }
    }
  }
  const std::string silence = "its agent was silent for " + FormatDuration(config_.node_grace_s) +
                              (quorum ? "; nothing moves until MAGI's quorum decides" : "");
  for (const auto& [node, state] : changes) {
    const char* condition = NodeStateName(state);
    const std::string reason = state == NodeState::kReady ? "" : silence;
    try {
      context_.Mutate(
          {.kind = EventKind::kNodeStatus,
           .target = node,
           .body =
               nlohmann::json{{"status", {{"condition", condition}, {"reason", reason}}}}.dump()});
      std::cerr << "archimedes serve: node " << node << " " << condition << ": "
                << (reason.empty() ? "its agent is back" : reason) << std::endl;
    } catch (const ApiError& e) {
      std::cerr << "archimedes serve: node " << node << " stays: " << e.what() << std::endl;
    }
  }
}

void ApiServer::RenewHeartbeats(MagiHeartbeats& heartbeats) {
  const int64_t now = WallSeconds();
  const auto steady_now = std::chrono::steady_clock::now();
  std::map<std::string, int64_t> latest;  // each node's latest proof of life, wall seconds
  {
    std::lock_guard lock(context_.mu);
    for (const auto& [node, last] : context_.liveness.LastContacts(steady_now)) {
      latest[node] =
          now - std::chrono::duration_cast<std::chrono::seconds>(steady_now - last).count();
    }
    // A Kubernetes node's kubelet renews its Lease (serve --kube-api reads them).
    for (const auto& [node, renewed] : context_.node_leases) {
      const auto [it, added] = latest.emplace(node, renewed);
      if (!added) it->second = std::max(it->second, renewed);
    }
  }
  heartbeats.Renew({latest.begin(), latest.end()}, now);
}

void ApiServer::Stop() {
  {
    std::lock_guard lock(stop_mu_);
    stop_requested_ = true;
  }
  stop_cv_.notify_all();
  context_.stopping = true;
  {
    // Taken so that a long-poll between its check and its wait does not miss the wake-up.
    std::lock_guard lock(context_.mu);
  }
  context_.actions_changed.notify_all();
}

}  // namespace archimedes
