// `archimedes serve` highly available on a real three-member etcd cluster: real replicas (the
// binary), a real kill -9 of the leader in the middle of submissions from concurrent clients, and
// a real freeze (SIGSTOP) of a leader past its lease. A follower takes the lead within the lease
// TTL + 5 s with every job the old leader acknowledged, each once; actions keep their sequence
// numbers and no number is given twice; a deposed leader writes nothing.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/etcd_cluster.h"
#include "server/serve_process.h"
#include "server/test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kLeaseSeconds = 2;

std::string JobBody(int client, int k) {
  return json{{"spec",
               {{"kind", k % 3 == 0 ? "serverless" : "offline"},
                {"function", "work-" + std::to_string(client)},
                {"tasks", 1 + k % 2},
                {"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}},
                {"durationEstimate", "10m"},
                {"delayTolerance", "1h"}}}}
      .dump();
}

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
  for (auto& r : replicas) all.push_back(r.get());
  const int first = AwaitLeader(all, std::chrono::seconds(10));
  ASSERT_GE(first, 0) << "no replica took the lead";
  testing::ServeProcess& leader = *replicas[first];
  testing::ServeProcess& follower = *replicas[(first + 1) % 3];
  const std::string leader_url = "http://127.0.0.1:" + std::to_string(leader.port());
  EXPECT_EQ(Leader(follower.port())["leader"], leader_url);

  httplib::Client setup("127.0.0.1", leader.port());
  for (int n = 1; n <= 4; ++n) {
    const std::string body =
        json{{"spec", {{"capacity", {{"cpu", "8"}, {"memory", "32Gi"}}}}}}.dump();
    ASSERT_EQ(setup.Put("/v1/nodes/n" + std::to_string(n), body, "application/json")->status, 201);
  }
  // A follower refuses writes, naming the leader.
  httplib::Client to_follower("127.0.0.1", follower.port());
  auto refused = to_follower.Post("/v1/jobs", JobBody(9, 9), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(json::parse(refused->body)["reason"], "NotLeader");
  EXPECT_NE(refused->body.find(leader_url), std::string::npos) << refused->body;

  std::mutex mu;
  std::map<std::string, std::string> acknowledged;  // Idempotency-Key → job name
  std::vector<std::string> attempted;
  std::map<int64_t, json> delivered;  // node n1's actions, as its agent got them from a follower
  std::atomic<bool> dead{false};
  std::vector<std::thread> threads;
  for (int client = 0; client < 3; ++client) {
    threads.emplace_back([&, client] {
      httplib::Client c("127.0.0.1", leader.port());
      for (int k = 0; !dead; ++k) {
        const std::string key = "c" + std::to_string(client) + "-" + std::to_string(k);
        {
          std::lock_guard lock(mu);
          attempted.push_back(key);
        }
        auto r =
            c.Post("/v1/jobs", {{"Idempotency-Key", key}}, JobBody(client, k), "application/json");
        if (!r) break;  // the leader is gone
        ASSERT_EQ(r->status, 201) << r->body;
        std::lock_guard lock(mu);
        acknowledged[key] = json::parse(r->body)["metadata"]["name"];
      }
    });
  }
  threads.emplace_back([&] {
    httplib::Client c("127.0.0.1", leader.port());
    while (!dead && c.Post("/v1/clock", R"({"advance":"1s"})", "application/json")) {
    }
  });
  threads.emplace_back([&] {
    httplib::Client agent("127.0.0.1", follower.port());
    int64_t after = 0;
    while (!dead) {
      auto r = agent.Get("/v1/nodes/n1/actions?wait=1s&after=" + std::to_string(after));
      if (!r) break;
      const json page = json::parse(r->body);  // a 404 until the follower has seen node n1
      if (!page.contains("items")) continue;
      for (const json& action : page["items"]) {
        after = action["seq"];
        std::lock_guard lock(mu);
        delivered[after] = action;
      }
    }
  });
  std::mt19937 random(std::random_device{}());
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 + random() % 1000));
  const int status = leader.Kill(SIGKILL);
  const auto killed = Clock::now();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  std::vector<testing::ServeProcess*> survivors;
  for (int i = 1; i <= 2; ++i) survivors.push_back(replicas[(first + i) % 3].get());
  const int next = AwaitLeader(survivors, std::chrono::seconds(kLeaseSeconds + 5));
  const double failover_s = std::chrono::duration<double>(Clock::now() - killed).count();
  dead = true;
  for (std::thread& t : threads) t.join();
  ASSERT_GE(next, 0) << "no follower took the lead within the lease TTL + 5 s";
  std::cout << "failover after kill -9: " << failover_s << " s (lease " << kLeaseSeconds << " s); "
            << acknowledged.size() << " jobs acknowledged, " << delivered.size()
            << " actions delivered" << std::endl;
  ASSERT_GT(acknowledged.size(), 20u) << "too few submissions before the kill to test anything";
  ASSERT_FALSE(delivered.empty()) << "the follower served no actions";

  testing::ServeProcess& new_leader = *survivors[next];
  testing::ServeProcess& still_follower = *survivors[1 - next];
  httplib::Client c("127.0.0.1", new_leader.port());
  const json jobs = json::parse(c.Get("/v1/jobs")->body)["items"];
  std::set<std::string> names;
  for (const json& job : jobs) names.insert(job["metadata"]["name"].get<std::string>());
  EXPECT_EQ(names.size(), jobs.size());
  for (const auto& [key, name] : acknowledged) EXPECT_TRUE(names.count(name)) << key;
  int made_now = 0;
  for (const std::string& key : attempted) {
    const int client = key[1] - '0';
    const int k = std::stoi(key.substr(key.find('-') + 1));
    auto r = c.Post("/v1/jobs", {{"Idempotency-Key", key}}, JobBody(client, k), "application/json");
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->status == 200 || r->status == 201) << r->body;
    if (acknowledged.count(key)) {
      EXPECT_EQ(r->status, 200) << key;
      EXPECT_EQ(json::parse(r->body)["metadata"]["name"], acknowledged[key]) << key;
    }
    made_now += r->status == 201;
  }
  EXPECT_EQ(jobs.size() + made_now, attempted.size()) << "exactly one job per key";

  // Every action an agent received keeps its number; the new leader numbers after them.
  ASSERT_EQ(c.Post("/v1/clock", R"({"advance":"30s"})", "application/json")->status, 200);
  const json after_failover = json::parse(c.Get("/v1/nodes/n1/actions?limit=10000")->body)["items"];
  std::map<int64_t, json> by_seq;
  for (const json& action : after_failover) {
    EXPECT_TRUE(by_seq.emplace(action["seq"].get<int64_t>(), action).second) << action;
  }
  for (const auto& [seq, action] : delivered) {
    ASSERT_TRUE(by_seq.count(seq)) << "action " << seq << " is gone";
    EXPECT_EQ(by_seq[seq], action) << "action " << seq << " was renumbered";
  }
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
  ASSERT_EQ(
      to_old.Post("/v1/jobs", {{"Idempotency-Key", "before"}}, JobBody(0, 1), "application/json")
          ->status,
      201);

  old_leader.Signal(SIGSTOP);  // hangs past its lease, as a long pause or a partition would
  ASSERT_EQ(AwaitLeader({&follower}, std::chrono::seconds(kLeaseSeconds + 5)), 0);
  httplib::Client to_new("127.0.0.1", follower.port());
  ASSERT_EQ(
      to_new.Post("/v1/jobs", {{"Idempotency-Key", "after"}}, JobBody(0, 2), "application/json")
          ->status,
      201);

  // A write reaches the old leader as it wakes: it must not be acknowledged, nor stored.
  std::thread zombie_write([&] {
    httplib::Client c("127.0.0.1", old_leader.port());
    c.set_read_timeout(5, 0);
    auto r = c.Post("/v1/jobs", {{"Idempotency-Key", "zombie"}}, JobBody(0, 3), "application/json");
    EXPECT_TRUE(!r || r->status >= 500) << r->status << " " << r->body;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  old_leader.Signal(SIGCONT);
  zombie_write.join();
  const int status = old_leader.Wait();
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "a deposed leader stops: its memory may hold what the log does not";

  auto zombie =
      to_new.Post("/v1/jobs", {{"Idempotency-Key", "zombie"}}, JobBody(0, 3), "application/json");
  EXPECT_EQ(zombie->status, 201) << "the deposed leader's write was stored";
  auto before =
      to_new.Post("/v1/jobs", {{"Idempotency-Key", "before"}}, JobBody(0, 1), "application/json");
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
    auto r = leader.Post("/v1/jobs", {{"Idempotency-Key", "k" + std::to_string(k)}}, JobBody(0, k),
                         "application/json");
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
