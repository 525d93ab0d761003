// The load a kill -9 must not harm, shared by the durability and HA tests: `clients` threads
// submit jobs under Idempotency-Keys, at most `total` of them in all, until the server stops
// answering; one advances the virtual clock, and an agent long-polls node n1's actions.
// Afterwards, on the restarted or newly leading server, ExpectEveryJobOnce and ExpectActionsKept
// check what was acknowledged and delivered, and Resume submits the rest of the `total`.
#ifndef ARCHIMEDES_TESTS_SERVER_KILL_LOAD_H_
#define ARCHIMEDES_TESTS_SERVER_KILL_LOAD_H_

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace archimedes::testing {

// Submission `k` of client `client`: the same body every time it is sent.
inline std::string KillLoadJob(int client, int k) {
  return nlohmann::json{{"spec",
                         {{"kind", k % 3 == 0 ? "serverless" : "offline"},
                          {"function", "work-" + std::to_string(client)},
                          {"tasks", 1 + k % 2},
                          {"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}},
                          {"durationEstimate", "10m"},
                          {"delayTolerance", "1h"}}}}
      .dump();
}

// Nodes n1..n4 of 8 cores and 32 GiB.
inline void PutKillLoadNodes(int port) {
  httplib::Client c("127.0.0.1", port);
  for (int n = 1; n <= 4; ++n) {
    const std::string body =
        nlohmann::json{{"spec", {{"capacity", {{"cpu", "8"}, {"memory", "32Gi"}}}}}}.dump();
    auto r = c.Put("/v1/nodes/n" + std::to_string(n), body, "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 201) << r->body;
  }
}

class KillLoad {
 public:
  // Submissions and the clock go to `submit_port`; the agent polls `agent_port`.
  KillLoad(int clients, int submit_port, int agent_port,
           int64_t total = std::numeric_limits<int64_t>::max())
      : clients_(clients), total_(total) {
    Resume(submit_port, agent_port);
  }
  ~KillLoad() { Stop(); }
  KillLoad(const KillLoad&) = delete;
  KillLoad& operator=(const KillLoad&) = delete;

  // After Stop: the same load against a restarted server, from the next submission and the last
  // action delivered.
  void Resume(int submit_port, int agent_port) {
    stop_ = false;
    threads_.clear();
    for (int client = 0; client < clients_; ++client) {
      submitters_.emplace_back([this, client, submit_port] { Submit(client, submit_port); });
    }
    threads_.emplace_back([this, submit_port] {
      httplib::Client c("127.0.0.1", submit_port);
      while (!stop_ && c.Post("/v1/clock", R"({"advance":"1s"})", "application/json")) {
      }
    });
    threads_.emplace_back([this, agent_port] { Poll(agent_port); });
  }

  void Stop() {
    stop_ = true;
    Finish();
  }
  // Waits until every one of the `total` submissions was answered, then stops.
  void Finish() {
    for (std::thread& t : submitters_) {
      if (t.joinable()) t.join();
    }
    submitters_.clear();
    stop_ = true;
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  // Submissions answered with a 2xx so far; safe while the load runs.
  int64_t acknowledged_count() const { return acknowledged_count_; }

  // After Stop.
  const std::map<std::string, std::string>& acknowledged() const { return acknowledged_; }
  // Submissions sent, answered or not (each under its own key).
  int64_t attempted_count() const { return static_cast<int64_t>(attempted_.size()); }
  const std::map<int64_t, nlohmann::json>& delivered() const { return delivered_; }

  // Every acknowledged job is on the server behind `c`, once; sending every submission again
  // under its key finds the job it made, or makes the one never stored: one job per key.
  void ExpectEveryJobOnce(httplib::Client& c) const {
    const nlohmann::json jobs = nlohmann::json::parse(c.Get("/v1/jobs")->body)["items"];
    std::set<std::string> names;
    for (const nlohmann::json& job : jobs) names.insert(job["metadata"]["name"].get<std::string>());
    EXPECT_EQ(names.size(), jobs.size());
    for (const auto& [key, name] : acknowledged_) EXPECT_TRUE(names.count(name)) << key;
    size_t made_now = 0;
    for (const auto& [key, submission] : attempted_) {
      auto r = c.Post("/v1/jobs", {{"Idempotency-Key", key}},
                      KillLoadJob(submission.first, static_cast<int>(submission.second)),
                      "application/json");
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->status == 200 || r->status == 201) << r->body;
      if (auto found = acknowledged_.find(key); found != acknowledged_.end()) {
        EXPECT_EQ(r->status, 200) << key;
        EXPECT_EQ(nlohmann::json::parse(r->body)["metadata"]["name"], found->second) << key;
      }
      made_now += r->status == 201;
    }
    EXPECT_EQ(jobs.size() + made_now, attempted_.size()) << "exactly one job per key";
    EXPECT_EQ(nlohmann::json::parse(c.Get("/v1/jobs")->body)["items"].size(), attempted_.size());
  }

  // Every action the agent received is on the server behind `c` under its number, unchanged, and
  // no number is given twice.
  void ExpectActionsKept(httplib::Client& c) const {
    const nlohmann::json actions =
        nlohmann::json::parse(c.Get("/v1/nodes/n1/actions?limit=10000")->body)["items"];
    std::map<int64_t, nlohmann::json> by_seq;
    for (const nlohmann::json& action : actions) {
      EXPECT_TRUE(by_seq.emplace(action["seq"].get<int64_t>(), action).second) << action;
    }
    for (const auto& [seq, action] : delivered_) {
      ASSERT_TRUE(by_seq.count(seq)) << "action " << seq << " is gone";
      EXPECT_EQ(by_seq[seq], action) << "action " << seq << " was renumbered";
    }
  }

 private:
  void Submit(int client, int port) {
    httplib::Client c("127.0.0.1", port);
    while (!stop_) {
      const int64_t k = next_++;
      if (k >= total_) return;
      const std::string key = "c" + std::to_string(client) + "-" + std::to_string(k);
      {
        std::lock_guard lock(mu_);
        attempted_[key] = {client, k};
      }
      auto r = c.Post("/v1/jobs", {{"Idempotency-Key", key}},
                      KillLoadJob(client, static_cast<int>(k)), "application/json");
      if (!r) break;  // the server is gone
      ASSERT_EQ(r->status, 201) << r->body;
      std::lock_guard lock(mu_);
      acknowledged_[key] = nlohmann::json::parse(r->body)["metadata"]["name"];
      ++acknowledged_count_;
    }
  }

  void Poll(int port) {
    httplib::Client agent("127.0.0.1", port);
    while (!stop_) {
      auto r = agent.Get("/v1/nodes/n1/actions?wait=1s&after=" + std::to_string(after_));
      if (!r) break;
      const nlohmann::json page = nlohmann::json::parse(r->body);
      if (!page.contains("items")) continue;  // a follower that has not seen node n1 yet: 404
      for (const nlohmann::json& action : page["items"]) {
        after_ = action["seq"];
        std::lock_guard lock(mu_);
        delivered_[after_] = action;
      }
    }
  }

  const int clients_;
  const int64_t total_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> next_{0};  // the next submission's number, over all clients
  std::atomic<int64_t> acknowledged_count_{0};
  int64_t after_ = 0;  // the last action delivered
  std::mutex mu_;
  std::map<std::string, std::pair<int, int64_t>> attempted_;  // key → (client, k)
  std::map<std::string, std::string> acknowledged_;           // key → job name
  std::map<int64_t, nlohmann::json> delivered_;               // seq → action
  std::vector<std::thread> submitters_;
  std::vector<std::thread> threads_;  // the clock and the agent
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SERVER_KILL_LOAD_H_
