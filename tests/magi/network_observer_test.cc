// NetworkObserver's probes against real sockets on loopback: a node is probed as its target says,
// a TCP connect and GET /healthz (an agent) or the TCP connect alone (a kubelet's port).
#include "magi/network_observer.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <string>
#include <vector>

#include "magi/loopback.h"
#include "store/memory_store.h"

namespace archimedes::magi {
namespace {

constexpr std::chrono::milliseconds kTimeout{500};

using testing::HttpStub;
using testing::LoopbackPort;

std::vector<size_t> Missed(const std::vector<NodeTarget>& nodes) {
  MemoryStore store;
  NetworkObserver observer(store, "/m/", kTimeout);
  std::vector<size_t> missed;
  for (const MissedProbe& m : observer.ProbeAll(nodes, 0)) missed.push_back(m.node);
  return missed;
}

TEST(NetworkObserverTest, AKubeletPortThatAcceptsIsAnAnswerThoughItSpeaksNoHttp) {
  LoopbackPort kubelet(true);
  ASSERT_TRUE(kubelet.ok());
  EXPECT_EQ(Missed({{"k1", "p", kubelet.address(), ""}}), std::vector<size_t>{});
  // The same port probed as an agent's misses: it does not answer GET /healthz.
  EXPECT_EQ(Missed({{"k1", "p", kubelet.address(), "http://" + kubelet.address() + "/healthz"}}),
            std::vector<size_t>{0});
}

TEST(NetworkObserverTest, AClosedKubeletPortIsAMissWithTheTcpError) {
  LoopbackPort closed(false);
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
  HttpStub agent("/healthz");
  LoopbackPort kubelet(true);
  LoopbackPort closed(false);
  ASSERT_TRUE(kubelet.ok() && closed.ok());
  EXPECT_EQ(Missed({{"a", "p", agent.address(), "http://" + agent.address() + "/healthz"},
                    {"k", "p", kubelet.address(), ""},
                    {"c", "p", closed.address(), ""}}),
            std::vector<size_t>{2});
}

TEST(NetworkObserverTest, AnIpv6KubeletIsReachedByItsBracketedAddress) {
  LoopbackPort kubelet(true, AF_INET6);
  if (!kubelet.ok()) GTEST_SKIP() << "no IPv6 loopback on this machine";
  EXPECT_EQ(Missed({{"k6", "p", kubelet.address(), ""}}), std::vector<size_t>{});
}

}  // namespace
}  // namespace archimedes::magi
