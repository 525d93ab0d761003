// `archimedes serve`: the engine as a long-running scheduler behind an HTTP API (docs/api.md).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "model/duration.h"
#include "server/api_server.h"
#include "server/config.h"
#include "server/router.h"

namespace archimedes::cli {
namespace {

struct ServeArgs {
  std::string config_path;
  std::map<std::string, std::string> flags;  // key → value, for the keys given as flags
};

int Run(const ServeArgs& args) {
  ServerConfig config;
  if (!args.config_path.empty()) ReadConfigFile(args.config_path, config);
  for (const auto& [key, value] : args.flags) SetConfigKey(config, key, value);
  CheckConfig(config);

  // SIGTERM and SIGINT are taken by one thread, which stops the server gracefully; every other
  // thread (started after this) inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  ApiServer server(config);
  std::cout << "archimedes serve: listening on http://" << config.host << ":" << server.port()
            << ", store " << server.store_description() << ", policy " << config.policy
            << ", clock " << (config.clock == ClockMode::kWall ? "wall" : "virtual") << std::endl;
  if (ApiContext::WatchesAgents(config) && ApiContext::DecidedByQuorum(config)) {
    std::cerr
        << "archimedes serve: a node whose agent is silent for "
        << FormatDuration(config.node_grace_s)
        << " turns Suspect (nothing new placed there); what runs there moves only when MAGI's "
           "quorum records it offline in etcd and approves the migration (docs/magi.md)"
        << std::endl;
  } else if (ApiContext::WatchesAgents(config)) {
    std::cerr << "archimedes serve: a node whose agent is silent for "
              << FormatDuration(config.node_grace_s)
              << " turns NotReady: one observer's view (MAGI's quorum needs the etcd store)"
              << std::endl;
  } else if (config.clock == ClockMode::kWall) {
    std::cerr << "archimedes serve: nodes turn NotReady only through PUT /v1/nodes/{name}/status "
                 "(MAGI's quorum, or an operator), never on one observer's view"
              << std::endl;
  }
  std::atomic<bool> signalled{false};
  std::thread watcher([&server, &signalled, signals] {
    int received = 0;
    sigwait(&signals, &received);
    signalled = true;
    server.Stop();
  });
  // The watcher waits for a signal; when the server ends otherwise, the process sends itself the
  // one it waits for (every thread blocks it, so the watcher's sigwait takes it).
  auto release_watcher = [&] {
    if (!signalled) kill(getpid(), SIGTERM);
    watcher.join();
  };
  try {
    server.Run();
  } catch (...) {
    release_watcher();
    throw;
  }
  release_watcher();
  return 0;
}

}  // namespace

void AddServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Run the scheduler as a service: HTTP API, state in a durable store (docs/api.md)");
  cmd->add_option("--config", args->config_path,
                  "YAML file of settings (each key below is also a flag; a flag wins)");
  for (const ConfigKey& key : ConfigKeys()) {
    cmd->add_option_function<std::string>(
        "--" + key.name, [args, name = key.name](const std::string& v) { args->flags[name] = v; },
        key.help);
  }
  cmd->callback([args] {
    const int rc = Run(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace archimedes::cli
