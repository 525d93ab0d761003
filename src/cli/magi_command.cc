// `archimedes magi`: runs one MAGI member (docs/magi.md), or with --serve-health a tiny node
// health server that the fault test and demos probe.
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "magi/member.h"
#include "magi/network_observer.h"
#include "magi/probe.h"
#include "magi/service_nodes.h"
#include "model/host_port.h"
#include "model/limits.h"
#include "model/wall_clock.h"
#include "store/etcd_store.h"
#include "trace/magi_nodes_file.h"

namespace archimedes::cli {
namespace {

constexpr int64_t kMillisecondsPerDay = kSecondsPerDay * 1000;

std::atomic<bool> g_stop{false};

void RequestStop(int) { g_stop = true; }

struct MagiOptions {
  int id = 0;
  std::string pod;
  std::string store;
  std::string nodes_file;
  std::string nodes_from;
  std::string members;
  int quorum = 3;
  int min_pods = 2;
  int64_t window = 120;
  int64_t vote_ttl = 30;
  int failures = 3;
  int readmit_after = magi::JudgePolicy{}.answers_to_readmit;
  int64_t heartbeat_grace = 30;
  int64_t probe_interval_ms = 1000;
  int64_t probe_timeout_ms = 500;
  int64_t lease_ttl = 5;
  int64_t duration = 0;
  std::string blocked_file;
  std::string key_prefix = "/archimedes/magi/";
  std::string serve_health;
  std::string name;
};

// Sleeps until a stop signal or the end of `duration` seconds (0: until a signal).
void WaitForStop(int64_t duration, const std::function<void()>& every_second) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(duration);
  auto next_beat = std::chrono::steady_clock::now();
  while (!g_stop && (duration <= 0 || std::chrono::steady_clock::now() < end)) {
    if (every_second && std::chrono::steady_clock::now() >= next_beat) {
      every_second();
      next_beat += std::chrono::seconds(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void ServeHealth(const MagiOptions& o) {
  if (const std::string problem = HostPortProblem(o.serve_health); !problem.empty()) {
    throw std::invalid_argument("--serve-health " + problem);
  }
  const size_t colon = o.serve_health.rfind(':');
  const std::string host = o.serve_health.substr(0, colon);
  const int port = std::stoi(o.serve_health.substr(colon + 1));
  const std::string name = o.name.empty() ? o.serve_health : o.name;
  httplib::Server server;
  server.Get("/healthz", [&name](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok " + name + "\n", "text/plain");
  });
  if (!server.bind_to_port(host, port)) {
    throw std::runtime_error("--serve-health: cannot listen on " + o.serve_health);
  }
  std::thread listener([&server] { server.listen_after_bind(); });
  std::cout << "health server for " << name << " listening on " << o.serve_health << std::endl;

  // With a store, the node also heartbeats there, as a kubelet does to the API server.
  std::unique_ptr<EtcdStore> store;
  if (!o.store.empty()) store = std::make_unique<EtcdStore>(o.store, std::chrono::seconds(1));
  const std::string heartbeat_key = o.key_prefix + "heartbeats/" + name;
  WaitForStop(o.duration, [&] {
    if (!store) return;
    try {
      store->Put(heartbeat_key, nlohmann::json{{"at", WallSeconds()}}.dump());
    } catch (const StoreError&) {
      // The heartbeat channel is down; members judge from their own probes.
    }
  });
  server.stop();
  listener.join();
}

// The nodes file, read strictly in src/trace/, as the targets a member probes.
std::vector<magi::NodeTarget> ReadNodeTargets(const std::string& path) {
  std::vector<magi::NodeTarget> targets;
  for (WatchedNode& node : ReadMagiNodesFile(path)) {
    targets.push_back({std::move(node.name), std::move(node.pod), std::move(node.address),
                       std::move(node.health_url)});
  }
  return targets;
}

void RunMember(const MagiOptions& o) {
  magi::MemberConfig config;
  config.id = o.id;
  config.pod = o.pod;
  config.members = magi::ParseMembers(o.members);
  if (o.nodes_from.empty()) {
    config.nodes = ReadNodeTargets(o.nodes_file);
  } else {
    const auto timeout = std::chrono::milliseconds(std::max<int64_t>(o.probe_timeout_ms, 2000));
    config.nodes_source = [servers = o.nodes_from, timeout] {
      return magi::ReadServiceNodes(servers, timeout);
    };
  }
  config.rule = magi::QuorumRule{o.quorum, o.min_pods, o.window, o.vote_ttl};
  config.policy.failures_to_suspect = o.failures;
  config.policy.heartbeat_grace = o.heartbeat_grace;
  config.policy.answers_to_readmit = o.readmit_after;
  config.probe_interval = std::chrono::milliseconds(o.probe_interval_ms);
  config.lease_ttl = o.lease_ttl;
  config.key_prefix = o.key_prefix;
  EtcdStore store(o.store, std::chrono::milliseconds(std::max<int64_t>(o.probe_timeout_ms, 1000)));
  magi::NetworkObserver observer(store, o.key_prefix, std::chrono::milliseconds(o.probe_timeout_ms),
                                 o.blocked_file);
  magi::MagiMember member(std::move(config), store, observer, std::cout);
  member.Run(std::chrono::seconds(o.duration), g_stop);
}

}  // namespace

void AddMagiCommand(CLI::App& app) {
  auto o = std::make_shared<MagiOptions>();
  CLI::App* cmd = app.add_subcommand(
      "magi", "Run one MAGI member: probe nodes, vote through etcd, record quorum decisions");
  cmd->add_option("--id", o->id, "This member's id (must appear in --members)");
  cmd->add_option("--pod", o->pod, "This member's POD (failure domain)");
  cmd->add_option("--store", o->store, "etcd endpoint, e.g. http://127.0.0.1:2379");
  cmd->add_option("--nodes", o->nodes_file, "JSON file of the nodes to watch (docs/magi.md)");
  cmd->add_option("--nodes-from", o->nodes_from,
                  "Watch the nodes archimedes serve knows instead: its URL (or several, "
                  "comma-separated), read every 5 s");
  cmd->add_option("--members", o->members, "The membership: ID=POD,... e.g. 1=pod-a,2=pod-b");
  cmd->add_option("--quorum", o->quorum, "Yes votes needed for a decision")->capture_default_str();
  cmd->add_option("--min-pods", o->min_pods, "Distinct PODs the yes votes must come from")
      ->capture_default_str();
  AddDurationFlag(cmd, "--window", &o->window, "How long a proposal stays open for votes", 1,
                  kMaxDurationSeconds);
  AddDurationFlag(cmd, "--vote-ttl", &o->vote_ttl, "Age after which a vote no longer counts", 1,
                  kMaxDurationSeconds);
  cmd->add_option("--failures", o->failures, "Failed probes in a row before voting yes")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--readmit-after", o->readmit_after,
                  "Probes in a row a node recorded offline must answer before voting to readmit "
                  "it; 0: only an operator readmits")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  AddDurationFlag(cmd, "--heartbeat-grace", &o->heartbeat_grace,
                  "A node heartbeat younger than this proves the node alive", 0,
                  kMaxDurationSeconds);
  // Probes wait in poll(2), whose timeout is an int of milliseconds: a day keeps far below it.
  AddDurationFlag(cmd, "--probe-interval-ms", &o->probe_interval_ms, "Time between probe rounds", 1,
                  kMillisecondsPerDay, TimeUnit::kMilliseconds);
  AddDurationFlag(cmd, "--probe-timeout-ms", &o->probe_timeout_ms, "Timeout of each TCP/HTTP probe",
                  1, kMillisecondsPerDay, TimeUnit::kMilliseconds);
  AddDurationFlag(cmd, "--lease-ttl", &o->lease_ttl, "TTL of this member's etcd lease", 1,
                  kMaxDurationSeconds);
  AddDurationFlag(cmd, "--duration", &o->duration, "Exit after this long; 0 runs until signalled",
                  0, kMaxDurationSeconds);
  cmd->add_option("--blocked-file", o->blocked_file,
                  "Fault injection: file of node names this member treats as unreachable");
  cmd->add_option("--key-prefix", o->key_prefix, "etcd key prefix of this MAGI")
      ->capture_default_str();
  cmd->add_option("--serve-health", o->serve_health,
                  "Instead of a member, serve GET /healthz on HOST:PORT (a test node); with "
                  "--store it also heartbeats there");
  cmd->add_option("--name", o->name, "With --serve-health: the node's name");
  cmd->callback([o] {
    signal(SIGTERM, RequestStop);
    signal(SIGINT, RequestStop);
    if (!o->serve_health.empty()) {
      ServeHealth(*o);
      return;
    }
    for (auto [flag, missing] : {std::pair{"--id", o->id == 0},
                                 {"--pod", o->pod.empty()},
                                 {"--store", o->store.empty()},
                                 {"--members", o->members.empty()}}) {
      if (missing) throw std::invalid_argument(std::string("magi: ") + flag + " is required");
    }
    if (o->nodes_file.empty() == o->nodes_from.empty()) {
      throw std::invalid_argument(
          "magi: give exactly one of --nodes (a file) and --nodes-from (archimedes serve's URL)");
    }
    RunMember(*o);
  });
}

}  // namespace archimedes::cli
