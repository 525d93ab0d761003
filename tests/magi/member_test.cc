#include "magi/member.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "store/etcd_test_server.h"

namespace archimedes::magi {
namespace {

// A node that answers GET /healthz on a loopback port until stopped.
class HealthNode {
 public:
  HealthNode() {
    server_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~HealthNode() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  NodeTarget Target(const std::string& name) const {
    const std::string addr = "127.0.0.1:" + std::to_string(port_);
    return NodeTarget{name, "pod-x", addr, "http://" + addr + "/healthz"};
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

class MemberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_ETCD();
    etcd_ = std::make_unique<testing::EtcdTestServer>();
    store_ = std::make_unique<EtcdStore>(etcd_->endpoint());
    blocked_file_ =
        (std::filesystem::temp_directory_path() / ("magi-blocked-" + std::to_string(getpid())))
            .string();
    std::vector<NodeTarget> targets;
    for (int i = 0; i < 4; ++i) {
      nodes_.push_back(std::make_unique<HealthNode>());
      targets.push_back(nodes_.back()->Target("node-" + std::to_string(i)));
    }
    const std::vector<Member> membership = {
        {1, "pod-a"}, {2, "pod-b"}, {3, "pod-c"}, {4, "pod-d"}, {5, "pod-e"}};
    for (const Member& m : membership) {
      MemberConfig c;
      c.id = m.id;
      c.pod = m.pod;
      c.members = membership;
      c.nodes = targets;
      c.probe_timeout = std::chrono::milliseconds(200);
      c.lease_ttl = 10;
      if (m.id == 1) c.blocked_file = blocked_file_;
      members_.push_back(std::make_unique<MagiMember>(c, *store_, log_));
    }
  }
  void TearDown() override { std::filesystem::remove(blocked_file_); }

  void TickAll(int64_t now) {
    for (auto& m : members_) m->Tick(now);
  }

  std::unique_ptr<testing::EtcdTestServer> etcd_;
  std::unique_ptr<EtcdStore> store_;
  std::string blocked_file_;
  std::vector<std::unique_ptr<HealthNode>> nodes_;
  std::vector<std::unique_ptr<MagiMember>> members_;
  std::ostringstream log_;
};

TEST_F(MemberTest, OnePodsViewAloneDecidesNothing) {
  std::ofstream(blocked_file_) << "node-1\n";
  for (int64_t t = 1000; t < 1006; ++t) TickAll(t);
  EXPECT_TRUE(store_->GetPrefix("/archimedes/magi/decisions/").empty()) << log_.str();
  // Member 1 did suspect the node and said so; the others answered no.
  auto proposal = store_->Get("/archimedes/magi/proposals/node-offline/node-1");
  ASSERT_TRUE(proposal.has_value()) << log_.str();
  EXPECT_EQ(store_->GetPrefix("/archimedes/magi/votes/node-offline/node-1/").size(), 5u);
  auto vote2 = store_->Get("/archimedes/magi/votes/node-offline/node-1/2");
  EXPECT_EQ(nlohmann::json::parse(vote2->value)["verdict"], "no");
}

TEST_F(MemberTest, DeadNodeIsRecordedOfflineOnceThenMigrated) {
  TickAll(1000);
  nodes_[2]->Stop();
  for (int64_t t = 1001; t < 1006; ++t) TickAll(t);
  auto decision = store_->Get("/archimedes/magi/decisions/node-offline/node-2");
  ASSERT_TRUE(decision.has_value()) << log_.str();
  EXPECT_EQ(decision->version, 1);
  nlohmann::json record = nlohmann::json::parse(decision->value);
  EXPECT_EQ(record["outcome"], "passed");
  // Members tick in turn: the third yes vote, member 3's, completes the quorum and records it.
  EXPECT_EQ(record["yes"], 3);
  EXPECT_EQ(record["recorded_by"], 3);
  EXPECT_EQ(record["votes"].size(), 3u);
  EXPECT_TRUE(store_->Get("/archimedes/magi/decisions/migrate/node-2").has_value()) << log_.str();
  EXPECT_FALSE(store_->Get("/archimedes/magi/decisions/node-offline/node-1").has_value());

  // Later ticks neither rewrite the record nor leave the proposal open.
  for (int64_t t = 1006; t < 1009; ++t) TickAll(t);
  EXPECT_EQ(store_->Get("/archimedes/magi/decisions/node-offline/node-2")->mod_revision,
            decision->mod_revision);
  EXPECT_FALSE(store_->Get("/archimedes/magi/proposals/node-offline/node-2").has_value());
  size_t recorded = 0;
  for (size_t pos = 0;
       (pos = log_.str().find("recorded decision node-offline node-2", pos)) != std::string::npos;
       ++pos) {
    ++recorded;
  }
  EXPECT_EQ(recorded, 1u) << log_.str();
}

TEST_F(MemberTest, TwoMembersCannotDecide) {
  TickAll(1000);
  nodes_[3]->Stop();
  for (int64_t t = 1001; t < 1008; ++t) {
    members_[0]->Tick(t);
    members_[1]->Tick(t);
  }
  EXPECT_FALSE(store_->Get("/archimedes/magi/decisions/node-offline/node-3").has_value())
      << log_.str();
}

TEST(MemberConfigTest, RejectsInconsistentConfigs) {
  MemberConfig c;
  c.id = 1;
  c.pod = "pod-a";
  c.members = ParseMembers("1=pod-a,2=pod-b,3=pod-c");
  c.nodes = {NodeTarget{"n", "", "127.0.0.1:1", ""}};
  EXPECT_NO_THROW(ValidateConfig(c));
  c.pod = "pod-b";
  EXPECT_THROW(ValidateConfig(c), std::invalid_argument);
  c.pod = "pod-a";
  c.id = 9;
  EXPECT_THROW(ValidateConfig(c), std::invalid_argument);
  EXPECT_THROW(ParseMembers("1=pod-a,x=pod-b"), std::invalid_argument);
  EXPECT_THROW(ParseMembers("1=pod-a,"), std::invalid_argument);
}

TEST(NodesFileTest, ErrorsNameTheFileAndTheNode) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("magi-nodes-" + std::to_string(getpid())))
          .string();
  std::ofstream(path) << R"({"nodes": [{"name": "a", "address": "10.0.0.1"}]})";
  try {
    LoadNodesFile(path);
    FAIL() << "accepted an address without a port";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "nodes file " + path + ": node #1 (a): address \"10.0.0.1\" is not HOST:PORT");
  }
  std::ofstream(path)
      << R"({"nodes": [{"name": "a", "address": "h:1", "health_url": "http://h:1/"}]})";
  EXPECT_EQ(LoadNodesFile(path).at(0).health_url, "http://h:1/");
  std::ofstream(path) << "[";
  EXPECT_THROW(LoadNodesFile(path), std::runtime_error);
  std::filesystem::remove(path);
  EXPECT_THROW(LoadNodesFile(path), std::runtime_error);
}

}  // namespace
}  // namespace archimedes::magi
