// A 2xx means stored: the real binary is killed with SIGKILL in the middle of submissions from
// several concurrent clients and restarted on the same data folder. Every job a client was told
// about is there exactly once (a retry of any submission under its Idempotency-Key finds the job
// it made, if any was made), and every action an agent received keeps its sequence number.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/serve_process.h"
#include "server/test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;

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

TEST(DurabilityTest, KillNineLosesNoAcknowledgedJobAndRenumbersNoAction) {
  const std::string data = testing::MakeTempDir();
  std::mt19937 random(std::random_device{}());
  std::map<std::string, std::string> acknowledged;  // Idempotency-Key → job name
  std::vector<std::string> attempted;               // every key sent
  std::map<int64_t, json> delivered;                // node n1's actions as its agent got them
  {
    testing::ServeProcess server(data);
    httplib::Client setup("127.0.0.1", server.port());
    for (int n = 1; n <= 4; ++n) {
      const std::string body =
          json{{"spec", {{"capacity", {{"cpu", "8"}, {"memory", "32Gi"}}}}}}.dump();
      ASSERT_EQ(setup.Put("/v1/nodes/n" + std::to_string(n), body, "application/json")->status,
                201);
    }
    std::mutex mu;
    std::atomic<bool> dead{false};
    std::vector<std::thread> threads;
    for (int client = 0; client < 4; ++client) {
      threads.emplace_back([&, client] {
        httplib::Client c("127.0.0.1", server.port());
        for (int k = 0; !dead; ++k) {
          const std::string key = "c" + std::to_string(client) + "-" + std::to_string(k);
          {
            std::lock_guard lock(mu);
            attempted.push_back(key);
          }
          auto r = c.Post("/v1/jobs", {{"Idempotency-Key", key}}, JobBody(client, k),
                          "application/json");
          if (!r) break;  // the server is gone
          ASSERT_EQ(r->status, 201) << r->body;
          std::lock_guard lock(mu);
          acknowledged[key] = json::parse(r->body)["metadata"]["name"];
        }
      });
    }
    threads.emplace_back([&] {
      httplib::Client c("127.0.0.1", server.port());
      while (!dead && c.Post("/v1/clock", R"({"advance":"1s"})", "application/json")) {
      }
    });
    threads.emplace_back([&] {
      httplib::Client agent("127.0.0.1", server.port());
      int64_t after = 0;
      while (!dead) {
        auto r = agent.Get("/v1/nodes/n1/actions?wait=1s&after=" + std::to_string(after));
        if (!r) break;
        const json page = json::parse(r->body);
        for (const json& action : page["items"]) {
          after = action["seq"];
          std::lock_guard lock(mu);
          delivered[after] = action;
        }
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + random() % 700));
    const int status = server.Kill(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    dead = true;
    for (std::thread& t : threads) t.join();
  }
  ASSERT_GT(acknowledged.size(), 50u) << "too few submissions before the kill to test anything";
  ASSERT_FALSE(delivered.empty());

  testing::ServeProcess server(data);
  httplib::Client c("127.0.0.1", server.port());
  const json jobs = json::parse(c.Get("/v1/jobs")->body)["items"];
  std::set<std::string> names;
  for (const json& job : jobs) names.insert(job["metadata"]["name"].get<std::string>());
  EXPECT_EQ(names.size(), jobs.size());
  for (const auto& [key, name] : acknowledged) EXPECT_TRUE(names.count(name)) << key;
  // Every stored submission is found again under its key; the ones never stored are made now.
  int made_now = 0;
  for (const std::string& key : attempted) {
    const int client = key[1] - '0';
    const int k = std::stoi(key.substr(key.find('-') + 1));
    auto r = c.Post("/v1/jobs", {{"Idempotency-Key", key}}, JobBody(client, k), "application/json");
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->status == 200 || r->status == 201) << r->body;
    const std::string name = json::parse(r->body)["metadata"]["name"];
    if (acknowledged.count(key)) {
      EXPECT_EQ(r->status, 200) << key;
      EXPECT_EQ(name, acknowledged[key]) << key;
    }
    made_now += r->status == 201;
  }
  // Exactly once: one job per key, whether stored before the kill or now.
  EXPECT_EQ(json::parse(c.Get("/v1/jobs")->body)["items"].size(), attempted.size());
  EXPECT_EQ(jobs.size() + made_now, attempted.size());

  const json replayed = json::parse(c.Get("/v1/nodes/n1/actions?limit=10000")->body)["items"];
  std::map<int64_t, json> by_seq;
  for (const json& action : replayed) by_seq[action["seq"]] = action;
  for (const auto& [seq, action] : delivered) {
    ASSERT_TRUE(by_seq.count(seq)) << "action " << seq << " is gone";
    EXPECT_EQ(by_seq[seq], action);
  }
  EXPECT_EQ(server.Kill(SIGTERM), 0) << "SIGTERM is a graceful stop with exit status 0";
  std::filesystem::remove_all(data);
}

}  // namespace
}  // namespace archimedes
