// A real etcd for tests: /usr/bin/etcd started on free loopback ports with a temporary data
// directory, stopped and removed by the destructor. Tests that need it skip when etcd is absent
// (and fail in CI, CI=true, where it must be installed):
//
//   ARCHIMEDES_REQUIRE_ETCD();
//   archimedes::testing::EtcdTestServer etcd;
//   archimedes::EtcdStore store(etcd.endpoint());
#ifndef ARCHIMEDES_TESTS_STORE_ETCD_TEST_SERVER_H_
#define ARCHIMEDES_TESTS_STORE_ETCD_TEST_SERVER_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include <httplib.h>

#include "support/shared_data.h"

#define ARCHIMEDES_REQUIRE_ETCD()                                                            \
  do {                                                                                       \
    if (!std::filesystem::exists(::archimedes::testing::kEtcdBinary)) {                      \
      if (::archimedes::testing::InContinuousIntegration()) {                                \
        FAIL() << "CI=true and " << ::archimedes::testing::kEtcdBinary << " is absent";      \
      }                                                                                      \
      GTEST_SKIP() << ::archimedes::testing::kEtcdBinary                                     \
                   << " is absent: install etcd-server (scripts/setup.sh) to run this test"; \
    }                                                                                        \
  } while (0)

namespace archimedes::testing {

inline constexpr const char* kEtcdBinary = "/usr/bin/etcd";

// A loopback TCP port that was free a moment ago.
inline int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("cannot find a free loopback port");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

class EtcdTestServer {
 public:
  EtcdTestServer() {
    std::string templ =
        (std::filesystem::temp_directory_path() / "archimedes-etcd-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    client_port_ = FreeLoopbackPort();
    peer_port_ = FreeLoopbackPort();
    Start();
  }
  ~EtcdTestServer() {
    Stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  EtcdTestServer(const EtcdTestServer&) = delete;
  EtcdTestServer& operator=(const EtcdTestServer&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(client_port_); }

  // Stops etcd gracefully; its data directory stays for Start.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  void Start() {
    const std::string client = "http://127.0.0.1:" + std::to_string(client_port_);
    const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
    const std::string data = (dir_ / "data").string();
    const std::string log = (dir_ / "etcd.log").string();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      if (!freopen(log.c_str(), "a", stdout) || !freopen(log.c_str(), "a", stderr)) _exit(126);
      execl(kEtcdBinary, kEtcdBinary, "--name", "test", "--data-dir", data.c_str(),
            "--listen-client-urls", client.c_str(), "--advertise-client-urls", client.c_str(),
            "--listen-peer-urls", peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(),
            "--initial-cluster", ("test=" + peer).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    httplib::Client probe(client);
    probe.set_connection_timeout(0, 200000);
    for (int i = 0; i < 100; ++i) {
      if (auto res = probe.Get("/health"); res && res->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    Stop();
    throw std::runtime_error("etcd did not become healthy in 10s; see " + log);
  }

 private:
  std::filesystem::path dir_;
  int client_port_ = 0;
  int peer_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_STORE_ETCD_TEST_SERVER_H_
