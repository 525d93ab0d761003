// `archimedes serve` (the real binary) as a child process, with a virtual clock and the
// k8s-default policy unless `extra` names others, listening on a free loopback port read from its
// startup line; killed with SIGKILL unless Kill was called.
#ifndef ARCHIMEDES_TESTS_SUPPORT_SERVE_PROCESS_H_
#define ARCHIMEDES_TESTS_SUPPORT_SERVE_PROCESS_H_

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace archimedes::testing {

class ServeProcess {
 public:
  // `extra`: more flags; the policy is k8s-default unless they name one.
  explicit ServeProcess(const std::string& data, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {ARCHIMEDES_BINARY, "serve", "--listen",       "127.0.0.1:0",
                                     "--data",          data,    "--http-threads", "32"};
    const auto given = [&extra](const char* flag) {
      return std::find(extra.begin(), extra.end(), flag) != extra.end();
    };
    if (!given("--clock")) args.insert(args.end(), {"--clock", "virtual"});
    if (!given("--policy")) args.insert(args.end(), {"--policy", "k8s-default"});
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      execv(ARCHIMEDES_BINARY, argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    const size_t at = line.find("http://127.0.0.1:");
    if (at == std::string::npos) throw std::runtime_error("no startup line: \"" + line + "\"");
    port_ = std::stoi(line.substr(at + 17));
    httplib::Client client("127.0.0.1", port_);
    for (int i = 0; i < 1000; ++i) {
      auto r = client.Get("/readyz");
      if (r && r->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("the server did not become ready");
  }
  ~ServeProcess() {
    if (pid_ > 0) Kill(SIGKILL);
  }
  // Sends `signal` and returns the exit status.
  int Kill(int signal) {
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  // Sends `signal` without waiting (SIGSTOP, SIGCONT).
  void Signal(int signal) { kill(pid_, signal); }
  // Waits for the process to end; returns its status.
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_SERVE_PROCESS_H_
