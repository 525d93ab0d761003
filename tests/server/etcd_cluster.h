// A real three-member etcd cluster for tests: /usr/bin/etcd started three times on free loopback
// ports with temporary data folders, as one cluster; stopped and removed by the destructor.
#ifndef ARCHIMEDES_TESTS_SERVER_ETCD_CLUSTER_H_
#define ARCHIMEDES_TESTS_SERVER_ETCD_CLUSTER_H_

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "store/etcd_test_server.h"

namespace archimedes::testing {

class EtcdTestCluster {
 public:
  explicit EtcdTestCluster(int members = 3) {
    std::string templ =
        (std::filesystem::temp_directory_path() / "archimedes-etcd-cluster-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    std::string initial;
    for (int i = 0; i < members; ++i) {
      members_.push_back({"m" + std::to_string(i), FreeLoopbackPort(), FreeLoopbackPort(), -1});
      initial += (i ? "," : "") + members_[i].name +
                 "=http://127.0.0.1:" + std::to_string(members_[i].peer_port);
    }
    for (Member& m : members_) Start(m, initial);
    for (Member& m : members_) AwaitHealthy(m);
  }
  ~EtcdTestCluster() {
    for (Member& m : members_) {
      if (m.pid > 0) {
        kill(m.pid, SIGKILL);
        waitpid(m.pid, nullptr, 0);
      }
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  EtcdTestCluster(const EtcdTestCluster&) = delete;
  EtcdTestCluster& operator=(const EtcdTestCluster&) = delete;

  // "etcd://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3" followed by `prefix`.
  std::string store(const std::string& prefix = "") const {
    std::string out = "etcd://";
    for (size_t i = 0; i < members_.size(); ++i) {
      out += (i ? "," : "") + std::string("127.0.0.1:") + std::to_string(members_[i].client_port);
    }
    return out + prefix;
  }
  // Kills the member that leads the etcd cluster (its raft leader) with SIGKILL; returns its
  // index.
  int KillLeader() {
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i].pid <= 0) continue;
      httplib::Client c("127.0.0.1", members_[i].client_port);
      auto r = c.Post("/v3/maintenance/status", "{}", "application/json");
      if (!r || r->status != 200) continue;
      const std::string& body = r->body;
      auto field = [&body](const std::string& name) {
        const size_t at = body.find("\"" + name + "\":\"");
        if (at == std::string::npos) return std::string();
        const size_t start = at + name.size() + 4;
        return body.substr(start, body.find('"', start) - start);
      };
      if (!field("leader").empty() && field("leader") == field("member_id")) {
        kill(members_[i].pid, SIGKILL);
        waitpid(members_[i].pid, nullptr, 0);
        members_[i].pid = -1;
        return static_cast<int>(i);
      }
    }
    throw std::runtime_error("no etcd member says it leads");
  }

  std::vector<std::string> endpoints() const {
    std::vector<std::string> out;
    for (const Member& m : members_) {
      out.push_back("http://127.0.0.1:" + std::to_string(m.client_port));
    }
    return out;
  }

 private:
  struct Member {
    std::string name;
    int client_port;
    int peer_port;
    pid_t pid;
  };

  void Start(Member& m, const std::string& initial) {
    const std::string client = "http://127.0.0.1:" + std::to_string(m.client_port);
    const std::string peer = "http://127.0.0.1:" + std::to_string(m.peer_port);
    const std::string data = (dir_ / m.name).string();
    const std::string log = (dir_ / (m.name + ".log")).string();
    m.pid = fork();
    if (m.pid < 0) throw std::runtime_error("fork failed");
    if (m.pid == 0) {
      if (!freopen(log.c_str(), "a", stdout) || !freopen(log.c_str(), "a", stderr)) _exit(126);
      execl(kEtcdBinary, kEtcdBinary, "--name", m.name.c_str(), "--data-dir", data.c_str(),
            "--listen-client-urls", client.c_str(), "--advertise-client-urls", client.c_str(),
            "--listen-peer-urls", peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(),
            "--initial-cluster", initial.c_str(), "--initial-cluster-state", "new",
            "--initial-cluster-token", dir_.filename().c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }

  void AwaitHealthy(const Member& m) {
    httplib::Client probe("127.0.0.1", m.client_port);
    probe.set_connection_timeout(0, 200000);
    for (int i = 0; i < 150; ++i) {
      if (auto res = probe.Get("/health"); res && res->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    throw std::runtime_error("etcd member " + m.name + " did not become healthy in 15s; see " +
                             (dir_ / (m.name + ".log")).string());
  }

  std::filesystem::path dir_;
  std::vector<Member> members_;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SERVER_ETCD_CLUSTER_H_
