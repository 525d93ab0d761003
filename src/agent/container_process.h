// A container's process, started through a shim that outlives the agent, as containerd's shims
// do: the shim (a session of its own, outside the container's cgroups) starts `/bin/sh -c
// command` in its own process group inside the cgroups, writes the command's pid to `<dir>/pid`,
// waits for it, and writes how it ended to `<dir>/exit`. An agent restarted meanwhile reads both
// and knows what its predecessor started. Output goes to `<dir>/log`.
#ifndef ARCHIMEDES_AGENT_CONTAINER_PROCESS_H_
#define ARCHIMEDES_AGENT_CONTAINER_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace archimedes {

class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LaunchSpec {
  std::string command;                   // for /bin/sh -c
  std::string dir;                       // exists; gets pid, exit and log
  std::vector<std::string> procs_files;  // cgroup.procs of each hierarchy to join
  std::vector<std::string> env;          // NAME=value, added to the agent's environment
};

// Starts the shim; returns its pid, a child of the caller, which reaps it with waitpid. Throws
// LaunchError when the process cannot be made. A command that cannot join its cgroups ends at
// once with exit code 125 (the reason in its log); one /bin/sh cannot run, 127.
pid_t Launch(const LaunchSpec& spec);

struct ExitStatus {
  int exit_code = 0;  // 128 + the signal when signalled, as shells report it
  int signal = 0;     // 0 when it exited
};
// How the command of the container in `dir` ended; nullopt while it runs (or before it started).
std::optional<ExitStatus> ReadExit(const std::string& dir);
// The command's pid (its process group), once the shim wrote it.
std::optional<pid_t> ReadPid(const std::string& dir);

// Sends `signal` to the process group `pid` leads; false when there is none any more.
bool SignalGroup(pid_t pid, int signal);

}  // namespace archimedes

#endif  // ARCHIMEDES_AGENT_CONTAINER_PROCESS_H_
