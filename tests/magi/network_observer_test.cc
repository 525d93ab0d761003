// NetworkObserver's probes against real sockets on loopback: a node is probed as its target says,
// a TCP connect and GET /healthz (an agent) or the TCP connect alone (a kubelet's port).
#include "magi/network_observer.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "store/memory_store.h"

namespace archimedes::magi {
namespace {

constexpr std::chrono::milliseconds kTimeout{500};

// A loopback TCP port held while the object lives, listening (connects succeed, nothing is ever
// answered: a TLS-only kubelet as a client without credentials sees it) or not (refused).
class Port {
 public:
  explicit Port(bool listening, int family = AF_INET) {
    fd_ = socket(family, SOCK_STREAM, 0);
    sockaddr_storage storage{};
    socklen_t len = 0;
    if (family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&storage);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof(sockaddr_in);
    } else {
      auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      len = sizeof(sockaddr_in6);
    }
    auto* addr = reinterpret_cast<sockaddr*>(&storage);
    ok_ = fd_ >= 0 && bind(fd_, addr, len) == 0 && getsockname(fd_, addr, &len) == 0 &&
          (!listening || listen(fd_, 16) == 0);
    port_ = family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(addr)->sin_port)
                              : ntohs(reinterpret_cast<sockaddr_in6*>(addr)->sin6_port);
    host_ = family == AF_INET ? "127.0.0.1" : "[::1]";
  }
  ~Port() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ok_; }
  std::string address() const { return host_ + ":" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
  std::string host_;
};

// GET /healthz answered 200 on a loopback port.
class HealthServer {
 public:
  HealthServer() {
    server_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~HealthServer() {
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::vector<size_t> Missed(const std::vector<NodeTarget>& nodes) {
  MemoryStore store;
  NetworkObserver observer(store, "/m/", kTimeout);
  std::vector<size_t> missed;
  for (const MissedProbe& m : observer.ProbeAll(nodes, 0)) missed.push_back(m.node);
  return missed;
}

TEST(NetworkObserverTest, AKubeletPortThatAcceptsIsAnAnswerThoughItSpeaksNoHttp) {
  Port kubelet(true);
  ASSERT_TRUE(kubelet.ok());
  EXPECT_EQ(Missed({{"k1", "p", kubelet.address(), ""}}), std::vector<size_t>{});
  // The same port probed as an agent's misses: it does not answer GET /healthz.
  EXPECT_EQ(Missed({{"k1", "p", kubelet.address(), "http://" + kubelet.address() + "/healthz"}}),
            std::vector<size_t>{0});
}

TEST(NetworkObserverTest, AClosedKubeletPortIsAMissWithTheTcpError) {
  Port closed(false);
  ASSERT_TRUE(closed.ok());
  MemoryStore store;
  NetworkObserver observer(store, "/m/", kTimeout);
  const std::vector<MissedProbe> missed = observer.ProbeAll({{"k1", "p", closed.address(), ""}}, 0);
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_FALSE(missed[0].result.tcp_ok);
  EXPECT_NE(missed[0].result.error.find("tcp connect " + closed.address()), std::string::npos)
      << missed[0].result.error;
}

TEST(NetworkObserverTest, AnAgentAnswersBoth) {
  HealthServer agent;
  Port kubelet(true);
  Port closed(false);
  ASSERT_TRUE(kubelet.ok() && closed.ok());
  EXPECT_EQ(Missed({{"a", "p", agent.address(), "http://" + agent.address() + "/healthz"},
                    {"k", "p", kubelet.address(), ""},
                    {"c", "p", closed.address(), ""}}),
            std::vector<size_t>{2});
}

TEST(NetworkObserverTest, AnIpv6KubeletIsReachedByItsBracketedAddress) {
  Port kubelet(true, AF_INET6);
  if (!kubelet.ok()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  EXPECT_EQ(Missed({{"k6", "p", kubelet.address(), ""}}), std::vector<size_t>{});
}

}  // namespace
}  // namespace archimedes::magi
