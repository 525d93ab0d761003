// The exposition is valid for real: Debian's Prometheus scrapes the real server on loopback, and
// its query API returns a latency-histogram bucket and a job-phase gauge from the scrape.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/test_server.h"
#include "support/serve_process.h"

namespace archimedes {
namespace {

using nlohmann::json;

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("cannot find a free loopback port");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// The series a PromQL query returns, once Prometheus has them (at most `seconds`, and not after
// the process `pid` ended).
json WaitForSeries(httplib::Client& prometheus, pid_t pid, const std::string& query, int seconds) {
  for (int i = 0; i < seconds * 5 && waitpid(pid, nullptr, WNOHANG) == 0; ++i) {
    auto r = prometheus.Get("/api/v1/query", httplib::Params{{"query", query}}, {});
    if (r && r->status == 200) {
      const json result = json::parse(r->body)["data"]["result"];
      if (!result.empty()) return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return json::array();
}

TEST(PrometheusTest, ScrapesTheServerAndAnswersQueries) {
  if (access("/usr/bin/prometheus", X_OK) != 0) {
    GTEST_SKIP() << "Debian's prometheus is not installed (scripts/setup.sh installs it)";
  }
  const std::string dir = testing::MakeTempDir();
  testing::ServeProcess server(dir + "/data");
  httplib::Client api("127.0.0.1", server.port());
  ASSERT_EQ(api.Put("/v1/nodes/n1", R"({"spec":{"capacity":{"cpu":"8","memory":"32Gi"}}})",
                    "application/json")
                ->status,
            201);
  ASSERT_EQ(api.Post("/v1/jobs",
                     R"({"spec":{"kind":"offline","tasks":1,"requests":{"cpu":"1"},
                     "durationEstimate":"1h","delayTolerance":"1h"}})",
                     "application/json")
                ->status,
            201);
  ASSERT_EQ(api.Post("/v1/clock", R"({"advance":"1s"})", "application/json")->status, 200);

  const int port = FreePort();
  std::ofstream(dir + "/prometheus.yml")
      << "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: archimedes\n"
      << "    static_configs:\n      - targets: ['127.0.0.1:" << server.port() << "']\n";
  const pid_t prometheus = fork();
  if (prometheus == 0) {
    const std::string config = "--config.file=" + dir + "/prometheus.yml";
    const std::string storage = "--storage.tsdb.path=" + dir + "/tsdb";
    const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port);
    freopen((dir + "/prometheus.log").c_str(), "w", stderr);
    execl("/usr/bin/prometheus", "prometheus", config.c_str(), storage.c_str(), listen.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  httplib::Client client("127.0.0.1", port);
  const json up = WaitForSeries(client, prometheus, "up{job=\"archimedes\"} == 1", 60);
  const json bucket = WaitForSeries(
      client, prometheus, "archimedes_schedule_cycle_duration_seconds_bucket{le=\"+Inf\"}", 10);
  const json running = WaitForSeries(client, prometheus, "archimedes_jobs{phase=\"Running\"}", 10);
  const json requests = WaitForSeries(
      client, prometheus, "archimedes_http_requests_total{route=\"/v1/jobs\",code=\"201\"}", 10);
  kill(prometheus, SIGTERM);
  waitpid(prometheus, nullptr, 0);

  ASSERT_FALSE(up.empty()) << "no successful scrape; see " << dir << "/prometheus.log";
  ASSERT_FALSE(bucket.empty());
  EXPECT_EQ(bucket[0]["value"][1], "1");
  ASSERT_FALSE(running.empty());
  EXPECT_EQ(running[0]["value"][1], "1");
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0]["value"][1], "1");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace archimedes
