// Many clients at once against one server: writers submitting jobs, agents long-polling their
// node's actions and posting usage, readers listing, the clock advancing — what a fleet does to
// the service. The answers must add up (every job accepted once, every action delivered once in
// order), and under ThreadSanitizer (scripts/test.sh) no access may race.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using testing::TestServer;

constexpr int kNodes = 4;
constexpr int kWriters = 4;
constexpr int kJobsPerWriter = 40;

std::string JobBody() {
  return json{{"spec",
               {{"kind", "offline"},
                {"function", "encode"},
                {"tasks", 1},
                {"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}},
                {"durationEstimate", "5m"},
                {"delayTolerance", "1h"}}}}
      .dump();
}

httplib::Client Connect(int port) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(std::chrono::seconds(30));
  return c;
}

TEST(ConcurrencyTest, ClientsAtOnceSeeOneConsistentServer) {
  TestServer server;
  const int port = server.port();
  for (int n = 0; n < kNodes; ++n) {
    const json node = {{"spec", {{"capacity", {{"cpu", "16"}, {"memory", "64Gi"}}}}}};
    auto r =
        server.client().Put("/v1/nodes/n" + std::to_string(n), node.dump(), "application/json");
    ASSERT_TRUE(r && r->status == 201);
  }

  std::atomic<bool> done = false;
  std::atomic<int> succeeded = 0;
  std::vector<std::vector<std::string>> accepted(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      httplib::Client c = Connect(port);
      for (int i = 0; i < kJobsPerWriter; ++i) {
        // Every writer retries its first job once: the key makes it the same job.
        const std::string key = "w" + std::to_string(w) + "-" + std::to_string(i);
        for (int attempt = 0; attempt < (i == 0 ? 2 : 1); ++attempt) {
          auto r = c.Post("/v1/jobs", {{"Idempotency-Key", key}}, JobBody(), "application/json");
          ASSERT_TRUE(r);
          ASSERT_TRUE(r->status == 201 || r->status == 200) << r->body;
          if (r->status == 201) accepted[w].push_back(json::parse(r->body)["metadata"]["name"]);
        }
      }
    });
  }
  // Each node's agent: long-polls its actions, checks they come in order and never twice, and
  // reports usage for the containers it was told to start.
  std::vector<std::vector<int64_t>> seqs(kNodes);
  for (int n = 0; n < kNodes; ++n) {
    threads.emplace_back([&, n] {
      httplib::Client c = Connect(port);
      const std::string node = "n" + std::to_string(n);
      int64_t after = 0;
      while (!done) {
        auto r = c.Get("/v1/nodes/" + node + "/actions?wait=1s&after=" + std::to_string(after));
        ASSERT_TRUE(r);
        ASSERT_EQ(r->status, 200) << r->body;
        const json page = json::parse(r->body);
        for (const json& action : page["items"]) {
          seqs[n].push_back(action["seq"]);
          after = action["seq"];
          if (action.value("kind", "") != "StartTask") continue;
          // A task runs, reports its usage and finishes; only the engine ending it first (an
          // eviction, a cancel) makes the container unknown.
          const std::string name = action["container"];
          const json sample = {{"container", name}, {"usage", {{"cpu", "400m"}}}};
          auto u = c.Post("/v1/usage", json{{"samples", {sample}}}.dump(), "application/json");
          ASSERT_TRUE(u);
          EXPECT_TRUE(u->status == 200 || u->status == 404) << u->body;
          auto s = c.Post("/v1/containers/" + name + "/status", R"({"phase":"Succeeded"})",
                          "application/json");
          ASSERT_TRUE(s);
          EXPECT_TRUE(s->status == 200 || s->status == 404) << s->body;
          if (s->status == 200) ++succeeded;
        }
      }
    });
  }
  threads.emplace_back([&] {
    httplib::Client c = Connect(port);
    while (!done) {
      ASSERT_TRUE(c.Get("/v1/jobs"));
      ASSERT_TRUE(c.Get("/v1/nodes"));
      ASSERT_TRUE(c.Get("/metrics"));
    }
  });
  threads.emplace_back([&] {
    httplib::Client c = Connect(port);
    while (!done) {
      auto r = c.Post("/v1/clock", json{{"advance", "1s"}}.dump(), "application/json");
      ASSERT_TRUE(r && r->status == 200);
    }
  });
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  // The agents and readers go on until a task has run to its end (or a loaded machine gave up).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (succeeded == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  done = true;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();

  std::set<std::string> names;
  for (const auto& list : accepted) names.insert(list.begin(), list.end());
  EXPECT_EQ(names.size(), static_cast<size_t>(kWriters * kJobsPerWriter));
  auto r = server.client().Get("/v1/jobs");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["items"].size(), names.size());
  size_t delivered = 0;
  for (const auto& node : seqs) {
    for (size_t i = 1; i < node.size(); ++i) EXPECT_LT(node[i - 1], node[i]);
    delivered += node.size();
  }
  EXPECT_GT(delivered, 0u);
  EXPECT_GT(succeeded, 0);
}

// A fleet's agents reconnecting at once to a restarted server: cpp-httplib listens with a backlog
// of 5, which drops their SYNs (retried for minutes: bench/agent_fanout.sh with every agent
// connecting at once); serve widens it to the system's limit. Read from the kernel as `ss` shows
// it: a listening socket's Send-Q is its backlog.
TEST(ConcurrencyTest, TheListeningSocketTakesAStormOfConnections) {
  testing::TestServer server;
  const std::string command =
      "ss -ltnH 'sport = :" + std::to_string(server.port()) + "' | awk '{print $3}'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[64] = {};
  const bool read = fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  ASSERT_TRUE(read) << command << " printed nothing";
  EXPECT_GE(std::atoi(line), 128) << "backlog " << line;
}

}  // namespace
}  // namespace archimedes
