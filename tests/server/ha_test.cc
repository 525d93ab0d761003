// `archimedes serve` highly available on a real three-member etcd cluster: real replicas (the
// binary), a real kill -9 of the leader in the middle of submissions from concurrent clients, and
// a real freeze (SIGSTOP) of a leader past its lease. A follower takes the lead within the lease
// TTL + 5 s with every job the old leader acknowledged, each once; actions keep their sequence
// numbers and no number is given twice; a deposed leader writes nothing.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/etcd_cluster.h"
#include "server/kill_load.h"
#include "server/test_server.h"
#include "support/serve_process.h"

namespace archimedes {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kLeaseSeconds = 2;

class HaTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::filesystem::exists(testing::kEtcdBinary)) {
      etcd_ = std::make_unique<testing::EtcdTestCluster>(3);
    }
  }
  static void TearDownTestSuite() { etcd_.reset(); }
  void SetUp() override { ARCHIMEDES_REQUIRE_ETCD(); }
  void TearDown() override {
    for (const std::string& dir : dirs_) std::filesystem::remove_all(dir);
  }

  // Replicas of one scheduler under `prefix`.
  std::vector<std::unique_ptr<testing::ServeProcess>> StartReplicas(
      int n, const std::string& prefix, int lease_seconds = kLeaseSeconds) {
    std::vector<std::unique_ptr<testing::ServeProcess>> replicas;
    for (int i = 0; i < n; ++i) {
      dirs_.push_back(testing::MakeTempDir());
      replicas.push_back(std::make_unique<testing::ServeProcess>(
          dirs_.back(), std::vector<std::string>{"--store", etcd_->store(prefix), "--leader-lease",
                                                 std::to_string(lease_seconds) + "s"}));
    }
    return replicas;
  }

  static json Leader(int port) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(0, 300000);
    c.set_read_timeout(1, 0);
    auto r = c.Get("/v1/leader");
    return r && r->status == 200 ? json::parse(r->body) : json::object();
  }

  // The archimedes_leader sample of /metrics at `port`: 1 or 0, -1 when there is none.
  static int LeaderGauge(int port) {
    httplib::Client c("127.0.0.1", port);
    auto r = c.Get("/metrics");
    if (!r || r->status != 200) return -1;
    const std::string sample =
        "archimedes_leader{replica=\"http://127.0.0.1:" + std::to_string(port) + "\"} ";
    const size_t at = r->body.find(sample);
    return at == std::string::npos ? -1 : r->body[at + sample.size()] - '0';
  }

  // Waits until one of `candidates` leads; returns its index, or -1 after `within`.
  static int AwaitLeader(const std::vector<testing::ServeProcess*>& candidates,
                         std::chrono::milliseconds within) {
    const auto until = Clock::now() + within;
    while (Clock::now() < until) {
      for (size_t i = 0; i < candidates.size(); ++i) {
        if (Leader(candidates[i]->port()).value("role", "") == "leader") return static_cast<int>(i);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  static std::unique_ptr<testing::EtcdTestCluster> etcd_;
  std::vector<std::string> dirs_;
};

std::unique_ptr<testing::EtcdTestCluster> HaTest::etcd_;

TEST_F(HaTest, KillNineOfTheLeaderFailsOverWithEveryAcknowledgedJob) {
  auto replicas = StartReplicas(3, "/ha-kill");
  std::vector<testing::ServeProcess*> all;
  all.reserve(replicas.size());
  for (auto& r : replicas) all.push_back(r.get());
  const int first = AwaitLeader(all, std::chrono::seconds(10));
  ASSERT_GE(first, 0) << "no replica took the lead";
  testing::ServeProcess& leader = *replicas[first];
  testing::ServeProcess& follower = *replicas[(first + 1) % 3];
  const std::string leader_url = "http://127.0.0.1:" + std::to_string(leader.port());
  EXPECT_EQ(Leader(follower.port())["leader"], leader_url);
  // /metrics says who leads: 1 on the leader, 0 on both followers.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(LeaderGauge(replicas[i]->port()), i == first ? 1 : 0) << "replica " << i;
  }

  testing::PutKillLoadNodes(leader.port());
  // A follower refuses writes, naming the leader.
  httplib::Client to_follower("127.0.0.1", follower.port());
  auto refused = to_follower.Post("/v1/jobs", testing::KillLoadJob(9, 9), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(json::parse(refused->body)["reason"], "NotLeader");
  EXPECT_NE(refused->body.find(leader_url), std::string::npos) << refused->body;

  // The agent gets node n1's actions from a follower.
  testing::KillLoad load(3, leader.port(), follower.port());
  std::mt19937 random(std::random_device{}());
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 + random() % 1000));
  const int status = leader.Kill(SIGKILL);
  const auto killed = Clock::now();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  std::vector<testing::ServeProcess*> survivors;
  for (int i = 1; i <= 2; ++i) survivors.push_back(replicas[(first + i) % 3].get());
  const int next = AwaitLeader(survivors, std::chrono::seconds(kLeaseSeconds + 5));
  const double failover_s = std::chrono::duration<double>(Clock::now() - killed).count();
  load.Stop();
  ASSERT_GE(next, 0) << "no follower took the lead within the lease TTL + 5 s";
  std::cout << "failover after kill -9: " << failover_s << " s (lease " << kLeaseSeconds << " s); "
            << load.acknowledged().size() << " jobs acknowledged, " << load.delivered().size()
            << " actions delivered" << std::endl;
  ASSERT_GT(load.acknowledged().size(), 20u)
      << "too few submissions before the kill to test anything";
  ASSERT_FALSE(load.delivered().empty()) << "the follower served no actions";

  testing::ServeProcess& new_leader = *survivors[next];
  testing::ServeProcess& still_follower = *survivors[1 - next];
  EXPECT_EQ(LeaderGauge(new_leader.port()), 1);
  EXPECT_EQ(LeaderGauge(still_follower.port()), 0);
  httplib::Client c("127.0.0.1", new_leader.port());
  load.ExpectEveryJobOnce(c);
  // Every action an agent received keeps its number; the new leader numbers after them.
  ASSERT_EQ(c.Post("/v1/clock", R"({"advance":"30s"})", "application/json")->status, 200);
  load.ExpectActionsKept(c);
  // The remaining follower follows the new leader.
  const size_t total = json::parse(c.Get("/v1/jobs")->body)["items"].size();
  httplib::Client other("127.0.0.1", still_follower.port());
  const auto until = Clock::now() + std::chrono::seconds(5);
  size_t seen = 0;
  while (Clock::now() < until &&
         (seen = json::parse(other.Get("/v1/jobs")->body)["items"].size()) != total) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(seen, total);
  EXPECT_EQ(Leader(still_follower.port())["leader"],
            "http://127.0.0.1:" + std::to_string(new_leader.port()));
}

TEST_F(HaTest, AFrozenLeaderIsDeposedAndWritesNothing) {
  auto replicas = StartReplicas(2, "/ha-freeze");
  const int first = AwaitLeader({replicas[0].get(), replicas[1].get()}, std::chrono::seconds(10));
  ASSERT_GE(first, 0);
  testing::ServeProcess& old_leader = *replicas[first];
  testing::ServeProcess& follower = *replicas[1 - first];
  httplib::Client to_old("127.0.0.1", old_leader.port());
  ASSERT_EQ(to_old
                .Put("/v1/nodes/n1", R"({"spec":{"capacity":{"cpu":"8","memory":"32Gi"}}})",
                     "application/json")
                ->status,
            201);
  ASSERT_EQ(to_old
                .Post("/v1/jobs", {{"Idempotency-Key", "before"}}, testing::KillLoadJob(0, 1),
                      "application/json")
                ->status,
            201);

  old_leader.Signal(SIGSTOP);  // hangs past its lease, as a long pause or a partition would
  ASSERT_EQ(AwaitLeader({&follower}, std::chrono::seconds(kLeaseSeconds + 5)), 0);
  httplib::Client to_new("127.0.0.1", follower.port());
  ASSERT_EQ(to_new
                .Post("/v1/jobs", {{"Idempotency-Key", "after"}}, testing::KillLoadJob(0, 2),
                      "application/json")
                ->status,
            201);

  // A write reaches the old leader as it wakes: it must not be acknowledged, nor stored.
  std::thread zombie_write([&] {
    httplib::Client c("127.0.0.1", old_leader.port());
    c.set_read_timeout(5, 0);
    auto r = c.Post("/v1/jobs", {{"Idempotency-Key", "zombie"}}, testing::KillLoadJob(0, 3),
                    "application/json");
    EXPECT_TRUE(!r || r->status >= 500) << r->status << " " << r->body;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  old_leader.Signal(SIGCONT);
  zombie_write.join();
  const int status = old_leader.Wait();
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "a deposed leader stops: its memory may hold what the log does not";

  auto zombie = to_new.Post("/v1/jobs", {{"Idempotency-Key", "zombie"}}, testing::KillLoadJob(0, 3),
                            "application/json");
  EXPECT_EQ(zombie->status, 201) << "the deposed leader's write was stored";
  auto before = to_new.Post("/v1/jobs", {{"Idempotency-Key", "before"}}, testing::KillLoadJob(0, 1),
                            "application/json");
  EXPECT_EQ(before->status, 200);
  EXPECT_EQ(json::parse(to_new.Get("/v1/jobs")->body)["items"].size(), 3u);
}

TEST_F(HaTest, AGracefulStopHandsTheLeadOverAtOnce) {
  auto replicas = StartReplicas(2, "/ha-stop", /*lease_seconds=*/30);
  const int first = AwaitLeader({replicas[0].get(), replicas[1].get()}, std::chrono::seconds(10));
  ASSERT_GE(first, 0);
  const auto stopped = Clock::now();
  EXPECT_EQ(replicas[first]->Kill(SIGTERM), 0) << "SIGTERM is a graceful stop with exit status 0";
  EXPECT_EQ(AwaitLeader({replicas[1 - first].get()}, std::chrono::seconds(5)), 0)
      << "the lead waited for the 30 s lease instead of passing at once";
  EXPECT_LT(Clock::now() - stopped, std::chrono::seconds(5));
}

TEST_F(HaTest, TheEtcdLeaderDyingLosesNoWrite) {
  testing::EtcdTestCluster etcd(3);  // its own: one of its members is killed
  std::vector<std::unique_ptr<testing::ServeProcess>> replicas;
  for (int i = 0; i < 2; ++i) {
    dirs_.push_back(testing::MakeTempDir());
    replicas.push_back(std::make_unique<testing::ServeProcess>(
        dirs_.back(), std::vector<std::string>{"--store", etcd.store(), "--leader-lease", "5s"}));
  }
  const int first = AwaitLeader({replicas[0].get(), replicas[1].get()}, std::chrono::seconds(10));
  ASSERT_GE(first, 0);
  httplib::Client leader("127.0.0.1", replicas[first]->port());
  leader.set_read_timeout(10, 0);
  ASSERT_EQ(leader
                .Put("/v1/nodes/n1", R"({"spec":{"capacity":{"cpu":"8","memory":"32Gi"}}})",
                     "application/json")
                ->status,
            201);
  etcd.KillLeader();  // the others elect a new one meanwhile
  for (int k = 0; k < 20; ++k) {
    auto r = leader.Post("/v1/jobs", {{"Idempotency-Key", "k" + std::to_string(k)}},
                         testing::KillLoadJob(0, k), "application/json");
    ASSERT_TRUE(r) << "job " << k << ": the leader is gone";
    EXPECT_EQ(r->status, 201) << r->body;
  }
  EXPECT_EQ(Leader(replicas[first]->port())["role"], "leader");
  httplib::Client follower("127.0.0.1", replicas[1 - first]->port());
  const auto until = Clock::now() + std::chrono::seconds(5);
  size_t seen = 0;
  while (Clock::now() < until &&
         (seen = json::parse(follower.Get("/v1/jobs")->body)["items"].size()) != 20) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(seen, 20u) << "the follower follows through the members left";
}

}  // namespace
}  // namespace archimedes
