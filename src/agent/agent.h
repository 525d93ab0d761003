// `archimedes agent`: a machine of a fleet without Kubernetes, driven by `archimedes serve`
// (docs/agent.md). It registers the machine as a node, long-polls the node's actions and carries
// them out in order: Bind, Migrate and StartTask start the container's command (a service's
// `command`, a task's `function`) through a shim (agent/container_process.h) in a cgroup capped at
// its limits (agent/cgroups.h); Evict and Stop end it (SIGTERM, SIGKILL after the grace period);
// Throttle caps the CPU of all batch work. It reports each container Running once started and how
// it ended — Succeeded, Failed with its exit code, OOMKilled when the kernel killed it at its
// memory limit — and posts the containers' usage every `usage_every_ms`.
//
// State lives in `state_dir`: the last action carried out and a folder per container, so a
// restarted agent resumes after that action and re-adopts what it started, or reports what ended
// while it was away. An action is carried out at most once.
#ifndef ARCHIMEDES_AGENT_AGENT_H_
#define ARCHIMEDES_AGENT_AGENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "agent/cgroups.h"
#include "model/resources.h"

namespace archimedes {

class AgentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct AgentOptions {
  std::string server = "http://127.0.0.1:8080";
  std::string node;
  std::map<std::string, std::string> labels;
  std::string pod;
  std::string zone;
  Resources capacity;  // zero: read from the machine (agent/machine.h)
  Resources reserved;  // kept for the system: allocatable = capacity - reserved
  std::string state_dir = "/var/lib/archimedes-agent";
  bool cgroups = true;  // false: plain processes, not even trying
  std::string cgroup_name = "archimedes";
  int64_t usage_every_ms = 10000;
  int64_t stop_grace_ms = 10000;
  int64_t poll_wait_s = 20;
  // HOST:PORT where the agent answers GET /healthz (what MAGI's members probe); "" for none. The
  // node is registered with `address` (HOST:PORT others reach it at) when that is given.
  std::string health_listen;
  std::string address;
  std::function<void(const std::string&)> log;  // a line per thing that happened
};

class Agent {
 public:
  // Reads the state folder and opens the cgroups (saying once, through `log`, when none can be
  // used). Throws AgentError when the state folder cannot be made.
  explicit Agent(AgentOptions options);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // "cgroup v1 at …", "no cgroups".
  std::string cgroups() const;

  // Registers the node (retrying while the server cannot be reached) and runs until `stop` is
  // set. Throws AgentError when the server refuses the node (another capacity under its name) or
  // the health address cannot be listened on.
  void Run(const std::atomic<bool>& stop);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_AGENT_AGENT_H_
