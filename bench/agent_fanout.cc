// The actions long-poll fan-out of `archimedes serve` (issue 16, point 8): N simulated agents,
// each holding `GET /v1/nodes/node-I/actions?after=SEQ&wait=30s` open on its own connection, and
// how long after one scheduling cycle hands every node one action each agent has it in hand.
//
//   agent_fanout URL AGENTS [CONNECTS_AT_ONCE, default 4]
//
// The server must run with the virtual clock, an empty state and `--http-threads` above AGENTS
// (each waiting long-poll holds a thread); bench/agent_fanout.sh starts one so. The tool
// registers AGENTS nodes, starts the agents (each connects and polls once, then long-polls on that
// connection), waits until all are connected and 0.5 s more, creates a service of AGENTS replicas
// at most one per node, then advances the clock one second (one cycle: AGENTS Bind actions) and
// times each agent's receipt from that request's start. Prints the receipt latency's p50, p99 and
// max, and the clock request's own time.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;

struct Url {
  std::string host;
  int port = 0;
};

Url ParseUrl(const std::string& url) {
  const std::string scheme = "http://";
  const std::string rest = url.rfind(scheme, 0) == 0 ? url.substr(scheme.size()) : url;
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos) return {};
  return {rest.substr(0, colon), std::atoi(rest.c_str() + colon + 1)};
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "agent_fanout: %s\n", what.c_str());
  std::exit(1);
}

void Expect(const httplib::Result& r, const std::string& what) {
  if (!r || r->status >= 300) {
    Die(what + ": " + (r ? "HTTP " + std::to_string(r->status) + " " + r->body : "no answer"));
  }
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) Die("usage: agent_fanout URL AGENTS [CONNECTS_AT_ONCE]");
  const Url url = ParseUrl(argv[1]);
  const int agents = std::atoi(argv[2]);
  const int at_once = argc == 4 ? std::atoi(argv[3]) : 4;
  if (url.port <= 0 || agents <= 0 || at_once <= 0) {
    Die("usage: agent_fanout http://HOST:PORT AGENTS [CONNECTS_AT_ONCE]");
  }
  httplib::Client admin(url.host, url.port);
  admin.set_read_timeout(std::chrono::seconds(120));
  for (int i = 0; i < agents; ++i) {
    Expect(admin.Put("/v1/nodes/node-" + std::to_string(i),
                     R"({"spec":{"capacity":{"cpu":"8","memory":"32Gi"}}})", "application/json"),
           "PUT node");
  }

  std::atomic<int> connected{0};
  std::counting_semaphore<> connecting(at_once);
  std::vector<double> latency_ms(static_cast<size_t>(agents), -1);
  std::atomic<int64_t> trigger_ns{0};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(agents));
  const auto begun = Clock::now();
  for (int i = 0; i < agents; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client client(url.host, url.port);
      client.set_read_timeout(std::chrono::seconds(90));
      client.set_keep_alive(true);
      const std::string path = "/v1/nodes/node-" + std::to_string(i) + "/actions?after=0";
      // Connected first (a poll that answers at once), so that the long-poll below waits on a
      // connection already made: the timed part is the fan-out, not a thousand connects, which
      // go CONNECTS_AT_ONCE at a time (a few: agents that start over minutes; all: a storm of
      // agents reconnecting to a restarted server).
      connecting.acquire();
      const httplib::Result first = client.Get(path);
      connecting.release();
      if (!first || first->status != 200) return;
      ++connected;
      for (int attempt = 0; attempt < 3; ++attempt) {
        const httplib::Result r = client.Get(path + "&wait=30s");
        const auto now = Clock::now().time_since_epoch();
        if (!r || r->status != 200) continue;
        const nlohmann::json page = nlohmann::json::parse(r->body);
        if (page["items"].empty()) continue;  // the wait ran out first
        latency_ms[static_cast<size_t>(i)] =
            static_cast<double>(std::chrono::nanoseconds(now).count() - trigger_ns.load()) / 1e6;
        return;
      }
    });
  }

  // Every agent connected, then a moment for its long-poll to arrive and wait.
  const auto deadline = Clock::now() + std::chrono::seconds(300);
  while (connected < agents && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (connected < agents) {
    Die(std::to_string(connected) + " of " + std::to_string(agents) + " agents connected in 300 s");
  }
  const double connect_s = std::chrono::duration<double>(Clock::now() - begun).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  Expect(admin.Put("/v1/services/fanout",
                   nlohmann::json{{"spec",
                                   {{"replicas", agents},
                                    {"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}},
                                    {"maxPerNode", 1}}}}
                       .dump(),
                   "application/json"),
         "PUT service");
  const auto start = Clock::now();
  trigger_ns = std::chrono::nanoseconds(start.time_since_epoch()).count();
  Expect(admin.Post("/v1/clock", R"({"advance":"1s"})", "application/json"), "POST /v1/clock");
  const double clock_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  for (std::thread& t : threads) t.join();

  std::vector<double> received;
  for (double ms : latency_ms) {
    if (ms >= 0) received.push_back(ms);
  }
  std::printf("agents %d (connecting %d at a time), received %zu\n", agents, at_once,
              received.size());
  std::printf("all connected and polled once in %.1f s\n", connect_s);
  std::printf("clock advance (one cycle, %d binds, stored): %.1f ms\n", agents, clock_ms);
  if (!received.empty()) {
    std::printf("receipt after the clock request's start: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
                Quantile(received, 0.5), Quantile(received, 0.99),
                *std::max_element(received.begin(), received.end()));
  }
  return received.size() == static_cast<size_t>(agents) ? 0 : 2;
}
