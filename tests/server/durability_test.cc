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

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/kill_load.h"
#include "server/serve_process.h"
#include "server/test_server.h"

namespace archimedes {
namespace {

TEST(DurabilityTest, KillNineLosesNoAcknowledgedJobAndRenumbersNoAction) {
  const std::string data = testing::MakeTempDir();
  std::mt19937 random(std::random_device{}());
  std::unique_ptr<testing::KillLoad> load;
  {
    testing::ServeProcess server(data);
    testing::PutKillLoadNodes(server.port());
    load = std::make_unique<testing::KillLoad>(4, server.port(), server.port());
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + random() % 700));
    const int status = server.Kill(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    load->Stop();
  }
  ASSERT_GT(load->acknowledged().size(), 50u)
      << "too few submissions before the kill to test anything";
  ASSERT_FALSE(load->delivered().empty());

  testing::ServeProcess server(data);
  httplib::Client c("127.0.0.1", server.port());
  load->ExpectEveryJobOnce(c);
  load->ExpectActionsKept(c);
  EXPECT_EQ(server.Kill(SIGTERM), 0) << "SIGTERM is a graceful stop with exit status 0";
  std::filesystem::remove_all(data);
}

}  // namespace
}  // namespace archimedes
