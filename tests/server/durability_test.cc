// A 2xx means stored: the real binary is killed with SIGKILL at a random moment of 10,000
// submissions from several concurrent clients (issue 16, point 4) and restarted on the same data
// folder. Every job a client was told about is there exactly once (a retry of any submission
// under its Idempotency-Key finds the job it made, if any was made), and every action an agent
// received keeps its sequence number; the rest of the 10,000 then go to the restarted server, and
// all 10,000 are there, one per key.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/kill_load.h"
#include "server/test_server.h"
#include "support/serve_process.h"

namespace archimedes {
namespace {

constexpr int64_t kJobs = 10000;
constexpr int kClients = 4;

TEST(DurabilityTest, KillNineLosesNoAcknowledgedJobAndRenumbersNoAction) {
  const auto started = std::chrono::steady_clock::now();
  const std::string data = testing::MakeTempDir();
  std::mt19937 random(std::random_device{}());
  // The kill comes once this many submissions were acknowledged: anywhere in the middle.
  const int64_t kill_after = 500 + static_cast<int64_t>(random() % (kJobs - 1000));
  std::unique_ptr<testing::KillLoad> load;
  {
    testing::ServeProcess server(data);
    testing::PutKillLoadNodes(server.port());
    load = std::make_unique<testing::KillLoad>(kClients, server.port(), server.port(), kJobs);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (load->acknowledged_count() < kill_after && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(200 + random() % 800));
    }
    const int status = server.Kill(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    load->Stop();
  }
  ASSERT_GE(static_cast<int64_t>(load->acknowledged().size()), kill_after)
      << "the submissions did not reach the kill point in 120 s";
  ASSERT_FALSE(load->delivered().empty());
  const size_t before_kill = load->acknowledged().size();

  testing::ServeProcess server(data);
  httplib::Client c("127.0.0.1", server.port());
  c.set_read_timeout(std::chrono::seconds(60));
  load->ExpectEveryJobOnce(c);
  load->ExpectActionsKept(c);

  // The rest of the 10,000, concurrently again, to the restarted server.
  load->Resume(server.port(), server.port());
  load->Finish();
  // Those in flight at the kill were answered by the retries above, not in acknowledged().
  EXPECT_EQ(load->attempted_count(), kJobs);
  load->ExpectEveryJobOnce(c);
  load->ExpectActionsKept(c);
  EXPECT_EQ(server.Kill(SIGTERM), 0) << "SIGTERM is a graceful stop with exit status 0";
  std::filesystem::remove_all(data);
  std::cout << kJobs << " submissions from " << kClients << " clients, kill -9 after "
            << before_kill << " acknowledged, " << load->delivered().size()
            << " actions delivered: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
            << " s" << std::endl;
}

}  // namespace
}  // namespace archimedes
