// ReadServiceNodes against real HTTP servers on loopback ports standing in for `archimedes serve`
// (magi/loopback.h).
#include "magi/service_nodes.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "magi/loopback.h"

namespace archimedes::magi {
namespace {

constexpr std::chrono::milliseconds kTimeout{1000};

// GET /v1/nodes as serve answered it: node-3 and node-1 registered with an agent's address,
// node-2 without one (no agent to probe), a removed node absent. Items are not in name order.
constexpr char kNodeList[] = R"({"items":[
{"apiVersion":"archimedes.io/v1","kind":"Node","metadata":{"labels":{},"name":"node-3","resourceVersion":"7"},
 "spec":{"address":"10.0.0.13:7070","allocatable":{"cpu":"8","memory":"32Gi"},"capacity":{"cpu":"8","memory":"32Gi"},"pod":"rack-2","zone":"eu-1b"},
 "status":{"condition":"Ready","containers":2,"requested":{},"taskRequested":{},"usage":{}}},
{"apiVersion":"archimedes.io/v1","kind":"Node","metadata":{"labels":{"disk":"ssd"},"name":"node-1","resourceVersion":"3"},
 "spec":{"address":"10.0.0.11:7070","allocatable":{"cpu":"8","memory":"32Gi"},"capacity":{"cpu":"8","memory":"32Gi"},"pod":"rack-1","zone":"eu-1a"},
 "status":{"condition":"NotReady","containers":0,"requested":{},"taskRequested":{},"usage":{}}},
{"apiVersion":"archimedes.io/v1","kind":"Node","metadata":{"labels":{},"name":"node-2","resourceVersion":"5"},
 "spec":{"allocatable":{"cpu":"8","memory":"32Gi"},"capacity":{"cpu":"8","memory":"32Gi"},"pod":"rack-1","zone":"eu-1a"},
 "status":{"condition":"Ready","containers":1,"requested":{},"taskRequested":{},"usage":{}}}
],"kind":"NodeList"})";

using testing::HttpStub;
using testing::LoopbackPort;

void ExpectMentions(const std::string& text, const std::string& what) {
  EXPECT_NE(text.find(what), std::string::npos) << "\"" << what << "\" not in: " << text;
}

TEST(ServiceNodesTest, NodesWithAnAddressSortedByName) {
  HttpStub serve("/v1/nodes", 200, kNodeList);
  const std::vector<NodeTarget> nodes = ReadServiceNodes(serve.url(), kTimeout);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "node-1");
  EXPECT_EQ(nodes[0].pod, "rack-1");
  EXPECT_EQ(nodes[0].address, "10.0.0.11:7070");
  EXPECT_EQ(nodes[0].health_url, "http://10.0.0.11:7070/healthz");
  EXPECT_EQ(nodes[1].name, "node-3");
  EXPECT_EQ(nodes[1].pod, "rack-2");
  EXPECT_EQ(nodes[1].address, "10.0.0.13:7070");
  EXPECT_EQ(nodes[1].health_url, "http://10.0.0.13:7070/healthz");
}

// A Kubernetes node registered through POST /scheduler/nodes: its kubelet's port, TCP only.
TEST(ServiceNodesTest, AKubeletIsProbedByTcpOnly) {
  HttpStub serve("/v1/nodes", 200, R"({"kind":"NodeList","items":[
{"metadata":{"name":"gpu-node-a"},"spec":{"address":"10.0.1.21:10250","probe":"tcp","pod":"rack-1"}},
{"metadata":{"name":"agent-b"},"spec":{"address":"10.0.1.22:10248","probe":"healthz"}}]})");
  const std::vector<NodeTarget> nodes = ReadServiceNodes(serve.url(), kTimeout);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "agent-b");
  EXPECT_EQ(nodes[0].health_url, "http://10.0.1.22:10248/healthz");
  EXPECT_EQ(nodes[1].name, "gpu-node-a");
  EXPECT_EQ(nodes[1].address, "10.0.1.21:10250");
  EXPECT_EQ(nodes[1].health_url, "");
}

TEST(ServiceNodesTest, AnEmptyFleetIsNoNodes) {
  HttpStub serve("/v1/nodes", 200, R"({"items":[],"kind":"NodeList"})");
  EXPECT_TRUE(ReadServiceNodes(serve.url(), kTimeout).empty());
  // A trailing slash on the server is the same server.
  EXPECT_TRUE(ReadServiceNodes(serve.url() + "/", kTimeout).empty());
}

TEST(ServiceNodesTest, TheFirstServerThatAnswersIsRead) {
  LoopbackPort down(false);
  HttpStub serve("/v1/nodes", 200, kNodeList);
  const std::vector<NodeTarget> nodes = ReadServiceNodes(down.url() + "," + serve.url(), kTimeout);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "node-1");

  // A server that answers with an error is passed over too.
  HttpStub unavailable("/v1/nodes", 503, R"({"kind":"Status","message":"not the leader"})");
  EXPECT_EQ(ReadServiceNodes(unavailable.url() + "," + serve.url(), kTimeout).size(), 2u);
}

TEST(ServiceNodesTest, AllServersDownNamesEach) {
  LoopbackPort first(false);
  LoopbackPort second(false);
  try {
    ReadServiceNodes(first.url() + "," + second.url(), kTimeout);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    ExpectMentions(e.what(), first.url() + ": ");
    ExpectMentions(e.what(), second.url() + ": ");
  }
}

TEST(ServiceNodesTest, AServerAnsweringAnErrorIsNamedWithItsStatus) {
  HttpStub unavailable("/v1/nodes", 503, "not the leader");
  try {
    ReadServiceNodes(unavailable.url(), kTimeout);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    ExpectMentions(e.what(), unavailable.url() + ": status 503 not the leader");
  }
}

TEST(ServiceNodesTest, AnAnswerThatIsNotANodeListIsAnError) {
  for (const char* body : {"<html>archimedes</html>", R"({"kind":"Node","metadata":{}})",
                           R"({"kind":"NodeList","items":{}})", "[]"}) {
    HttpStub serve("/v1/nodes", 200, body);
    try {
      ReadServiceNodes(serve.url(), kTimeout);
      ADD_FAILURE() << "no error for " << body;
    } catch (const std::runtime_error& e) {
      ExpectMentions(e.what(), serve.url() + "/v1/nodes: not a NodeList");
    }
  }
}

// Items of the wrong shape are a malformed answer too, reported as one (a std::runtime_error
// naming the server), not as whatever the JSON library throws.
TEST(ServiceNodesTest, MalformedItemsAreAnError) {
  for (const char* body : {R"({"kind":"NodeList","items":[1]})",
                           R"({"kind":"NodeList","items":[{"metadata":{"name":"n"},"spec":null}]})",
                           R"({"kind":"NodeList","items":[{"metadata":{"name":"n"},)"
                           R"("spec":{"address":7070}}]})",
                           R"({"kind":"NodeList","items":[{"metadata":{"name":"n"},)"
                           R"("spec":{"address":"h:1","probe":"icmp"}}]})"}) {
    HttpStub serve("/v1/nodes", 200, body);
    try {
      ReadServiceNodes(serve.url(), kTimeout);
      ADD_FAILURE() << "no error for " << body;
    } catch (const std::runtime_error& e) {
      ExpectMentions(e.what(), serve.url());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a std::runtime_error for " << body << ": " << e.what();
    }
  }
}

TEST(ServiceNodesTest, NoServerGivenIsAnError) {
  EXPECT_THROW(ReadServiceNodes("", kTimeout), std::runtime_error);
  EXPECT_THROW(ReadServiceNodes(",", kTimeout), std::runtime_error);
}

}  // namespace
}  // namespace archimedes::magi
