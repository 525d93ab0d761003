#include "agent/container_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace archimedes {
namespace {

// Between fork and exec only async-signal-safe calls may run (the agent has threads): no
// allocation, no stdio. These write into fixed buffers.
char* FormatInt(long value, char* end) {
  *--end = '\0';
  const bool negative = value < 0;
  unsigned long v = negative ? -static_cast<unsigned long>(value) : value;
  do {
    *--end = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) *--end = '-';
  return end;
}

void WriteAll(int fd, const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    const ssize_t n = write(fd, text, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    left -= n;
  }
}

// Writes `text` to `tmp` and renames it to `path`: readers see all of it or nothing.
void WriteAtomically(const char* tmp, const char* path, const char* text) {
  const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  WriteAll(fd, text);
  fsync(fd);
  close(fd);
  rename(tmp, path);
}

// Inside the shim's child: joins the cgroups and becomes the command.
[[noreturn]] void RunCommand(char* const argv[], char* const envp[],
                             const std::vector<const char*>& procs) {
  setpgid(0, 0);
  // The agent's signal mask and ignored signals would pass through exec: a command must stop on
  // SIGTERM and die of a broken pipe as any process does. Dispositions first, so that a stop
  // already pending meets the default action, not the agent's handler.
  for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP}) signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  char buffer[32];
  const char* pid = FormatInt(getpid(), buffer + sizeof(buffer));
  for (const char* file : procs) {
    const int fd = open(file, O_WRONLY);
    const bool joined = fd >= 0 && write(fd, pid, strlen(pid)) > 0;
    if (fd >= 0) close(fd);
    if (!joined) {
      WriteAll(STDERR_FILENO, "archimedes agent: cannot join the cgroup: ");
      WriteAll(STDERR_FILENO, file);
      WriteAll(STDERR_FILENO, "\n");
      _exit(125);
    }
  }
  execve("/bin/sh", argv, envp);
  _exit(127);
}

}  // namespace

pid_t Launch(const LaunchSpec& spec) {
  // Everything the children need, made before fork.
  const std::string log = spec.dir + "/log";
  const std::string pid_tmp = spec.dir + "/pid.tmp";
  const std::string pid_file = spec.dir + "/pid";
  const std::string exit_tmp = spec.dir + "/exit.tmp";
  const std::string exit_file = spec.dir + "/exit";
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), spec.env.begin(), spec.env.end());
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string sh = "sh";
  std::string dash_c = "-c";
  std::string command = spec.command;
  char* argv[] = {sh.data(), dash_c.data(), command.data(), nullptr};
  std::vector<const char*> procs;
  procs.reserve(spec.procs_files.size());
  for (const std::string& p : spec.procs_files) procs.push_back(p.c_str());

  const pid_t shim = fork();
  if (shim < 0) throw LaunchError(std::string("fork failed: ") + std::strerror(errno));
  if (shim > 0) return shim;

  // The shim: its own session, so the agent's end (or its terminal's) does not reach it.
  setsid();
  const int null = open("/dev/null", O_RDONLY);
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (null < 0 || out < 0) _exit(126);
  dup2(null, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(out, STDERR_FILENO);
  close_range(3, ~0U, 0);
  const pid_t child = fork();
  if (child < 0) _exit(126);
  if (child == 0) RunCommand(argv, envp.data(), procs);
  // The child makes its group too; doing it here as well means the group exists before its pid is
  // published, so a stop sent right after the start reaches it.
  setpgid(child, child);
  char buffer[64];
  char* text = FormatInt(child, buffer + sizeof(buffer) - 1);
  buffer[sizeof(buffer) - 2] = '\n';
  buffer[sizeof(buffer) - 1] = '\0';
  WriteAtomically(pid_tmp.c_str(), pid_file.c_str(), text);
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) _exit(126);
  }
  char line[64] = "signaled ";
  char number[32];
  if (WIFEXITED(status)) {
    strcpy(line, "exited ");
    strcat(line, FormatInt(WEXITSTATUS(status), number + sizeof(number)));
  } else {
    strcat(line, FormatInt(WTERMSIG(status), number + sizeof(number)));
  }
  strcat(line, "\n");
  WriteAtomically(exit_tmp.c_str(), exit_file.c_str(), line);
  _exit(0);
}

std::optional<ExitStatus> ReadExit(const std::string& dir) {
  std::ifstream in(dir + "/exit");
  std::string how;
  int value = 0;
  if (!(in >> how >> value)) return std::nullopt;
  if (how == "exited") return ExitStatus{.exit_code = value};
  return ExitStatus{.exit_code = 128 + value, .signal = value};
}

std::optional<pid_t> ReadPid(const std::string& dir) {
  std::ifstream in(dir + "/pid");
  pid_t pid = 0;
  if (!(in >> pid) || pid <= 0) return std::nullopt;
  return pid;
}

bool SignalGroup(pid_t pid, int signal) { return kill(-pid, signal) == 0; }

}  // namespace archimedes
