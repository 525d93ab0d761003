// `archimedes agent`: a machine of a fleet without Kubernetes, driven by `archimedes serve`
// (docs/agent.md).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/agent.h"
#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "model/host_port.h"
#include "model/quantity.h"

namespace archimedes::cli {
namespace {

struct AgentArgs {
  AgentOptions options;
  std::vector<std::string> labels;
  std::string capacity;
  std::string reserved;
  bool no_cgroups = false;
};

// "cpu=4,memory=8Gi" (`flag` names the option in errors).
Resources ParseResourceList(const std::string& flag, const std::string& text) {
  Resources r;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    const std::optional<Dim> dim =
        eq == std::string::npos ? std::nullopt : ParseDim(item.substr(0, eq));
    if (!dim) {
      throw CLI::ValidationError(flag,
                                 "\"" + item + "\" is not DIMENSION=QUANTITY (cpu=4,memory=8Gi)");
    }
    try {
      r[*dim] = ParseResourceAmount(*dim, item.substr(eq + 1));
    } catch (const QuantityError& e) {
      throw CLI::ValidationError(flag, e.what());
    }
    start = end + 1;
  }
  return r;
}

std::string HostName() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

int Run(AgentArgs& args) {
  AgentOptions& options = args.options;
  if (options.node.empty()) options.node = HostName();
  for (const std::string& label : args.labels) {
    const size_t eq = label.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw CLI::ValidationError("--label", "\"" + label + "\" is not KEY=VALUE");
    }
    options.labels[label.substr(0, eq)] = label.substr(eq + 1);
  }
  if (!args.capacity.empty()) options.capacity = ParseResourceList("--capacity", args.capacity);
  if (!args.reserved.empty()) options.reserved = ParseResourceList("--reserved", args.reserved);
  options.cgroups = !args.no_cgroups;
  for (const auto& [flag, value] : {std::pair{"--health-listen", options.health_listen},
                                    std::pair{"--address", options.address}}) {
    if (const std::string problem = HostPortProblem(value); !value.empty() && !problem.empty()) {
      throw CLI::ValidationError(flag, problem);
    }
  }
  if (options.address.empty() && !options.health_listen.empty()) {
    const std::string host = options.health_listen.substr(0, options.health_listen.rfind(':'));
    options.address = host == "0.0.0.0" || host == "::" || host == "[::]"
                          ? HostName() + options.health_listen.substr(host.size())
                          : options.health_listen;
  }
  options.log = [](const std::string& line) {
    std::cerr << "archimedes agent: " << line << std::endl;
  };

  // SIGTERM and SIGINT are taken by one thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  Agent agent(options);
  std::cout << "archimedes agent: node " << options.node << ", server " << options.server
            << ", state " << options.state_dir << ", " << agent.cgroups()
            << (options.health_listen.empty() ? std::string(", no health endpoint")
                                              : ", /healthz on " + options.health_listen +
                                                    " (reached at " + options.address + ")")
            << std::endl;
  std::atomic<bool> stop{false};
  std::thread watcher([&stop, signals] {
    int received = 0;
    sigwait(&signals, &received);
    stop = true;
  });
  auto release_watcher = [&] {
    if (!stop) kill(getpid(), SIGTERM);
    watcher.join();
  };
  try {
    agent.Run(stop);
  } catch (const AgentError& e) {
    release_watcher();
    std::cerr << "archimedes agent: " << e.what() << std::endl;
    return 1;
  }
  release_watcher();
  return 0;
}

}  // namespace

void AddAgentCommand(CLI::App& app) {
  auto args = std::make_shared<AgentArgs>();
  CLI::App* cmd = app.add_subcommand(
      "agent",
      "Run a machine's containers for `archimedes serve`, where there is no Kubernetes "
      "(docs/agent.md)");
  AgentOptions& o = args->options;
  cmd->add_option("--server", o.server, "URL of archimedes serve")->capture_default_str();
  cmd->add_option("--node", o.node, "Node name (default: the host name)");
  cmd->add_option("--label", args->labels, "A node label KEY=VALUE (repeat for more)");
  cmd->add_option("--pod", o.pod, "Failure domain (POD) of the node");
  cmd->add_option("--zone", o.zone, "Zone of the node");
  cmd->add_option("--capacity", args->capacity,
                  "What the node offers, e.g. cpu=8,memory=16Gi (default: read from the machine)");
  cmd->add_option("--reserved", args->reserved,
                  "Kept for the system, e.g. cpu=500m,memory=1Gi (allocatable = capacity - "
                  "reserved)");
  cmd->add_option("--state", o.state_dir, "Folder of the agent's state")->capture_default_str();
  cmd->add_option("--cgroup", o.cgroup_name,
                  "Name of the agent's group in each cgroup hierarchy (one per agent on a machine)")
      ->capture_default_str();
  cmd->add_option("--health-listen", o.health_listen,
                  "HOST:PORT to answer GET /healthz on, for MAGI's probes (default: none)");
  cmd->add_option("--address", o.address,
                  "HOST:PORT at which MAGI reaches the health endpoint (default: --health-listen, "
                  "with the host name for 0.0.0.0)");
  cmd->add_flag("--no-cgroups", args->no_cgroups,
                "Run containers as plain processes, without cgroup limits");
  AddDurationFlag(cmd, "--usage-every-ms", &o.usage_every_ms,
                  "How often the containers' usage is posted", 100, int64_t{3600} * 1000,
                  TimeUnit::kMilliseconds);
  AddDurationFlag(cmd, "--stop-grace-ms", &o.stop_grace_ms,
                  "Between SIGTERM and SIGKILL when a container is stopped", 0,
                  int64_t{3600} * 1000, TimeUnit::kMilliseconds);
  AddDurationFlag(cmd, "--poll-wait", &o.poll_wait_s, "How long one long-poll of actions waits", 0,
                  60);
  cmd->callback([args] {
    const int rc = Run(*args);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace archimedes::cli
