// `archimedes serve` under the wall clock and real `archimedes agent` processes on loopback: jobs
// of short shell commands run where and when the engine said, services run their command and stop
// when deleted, a task above its memory limit is reported OOMKilled, and an agent killed with
// SIGKILL and restarted reports what ended while it was away.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/cgroups.h"
#include "support/command.h"
#include "support/serve_process.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;
using ::archimedes::testing::ServeProcess;
using ::archimedes::testing::TempPath;
using nlohmann::json;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Tests run in parallel processes, each with its own server numbering containers from job-0-1: each
// agent's cgroups are its own, or one would stop another's containers of the same name.
std::string CgroupName(const std::string& node) {
  return "archimedes-test-" + std::to_string(getpid()) + "-" + node;
}

// Removes the agents' groups when a test ends (a container's group is left while its end is not
// reported yet; its processes ended).
void RemoveCgroups(const std::string& node) {
  for (const CgroupMount& m : ReadCgroupMounts()) {
    const fs::path root = m.path + "/" + CgroupName(node);
    for (const char* part : {"batch", "services"}) {
      std::error_code error;
      for (const fs::directory_entry& group : fs::directory_iterator(root / part, error)) {
        if (group.is_directory()) rmdir(group.path().c_str());
      }
      rmdir((root / part).c_str());
    }
    rmdir(root.c_str());
  }
}

// `archimedes agent` as a child process; its output (both streams) in `<state>.log`.
class AgentProcess {
 public:
  AgentProcess(int port, const std::string& node, const std::string& state) : log_(state + ".log") {
    std::vector<std::string> args = {ARCHIMEDES_BINARY,  "agent",
                                     "--server",         "http://127.0.0.1:" + std::to_string(port),
                                     "--node",           node,
                                     "--state",          state,
                                     "--capacity",       "cpu=1800m,memory=2Gi",
                                     "--usage-every-ms", "300",
                                     "--stop-grace-ms",  "2000",
                                     "--poll-wait",      "2",
                                     "--cgroup",         CgroupName(node)};
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      const int out = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
      execv(ARCHIMEDES_BINARY, argv.data());
      _exit(127);
    }
  }
  ~AgentProcess() { Kill(SIGTERM); }
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  // Sends `signal` and waits; the exit status.
  int Kill(int signal) {
    if (pid_ <= 0) return 0;
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  std::string log() const { return Read(log_); }

 private:
  std::string log_;
  pid_t pid_ = -1;
};

class AgentProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = TempPath("run");
    fs::remove_all(root_);
    fs::create_directories(root_);
    server_ = std::make_unique<ServeProcess>(
        root_ + "/data", std::vector<std::string>{"--clock", "wall", "--policy", "archimedes"});
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }

  json Get(const std::string& path) {
    const httplib::Result r = client_->Get(path);
    if (!r || r->status != 200) return json();
    return json::parse(r->body);
  }
  int Send(const std::string& method, const std::string& path, const json& body) {
    const httplib::Result r = method == "PUT" ? client_->Put(path, body.dump(), "application/json")
                              : method == "DELETE"
                                  ? client_->Delete(path)
                                  : client_->Post(path, body.dump(), "application/json");
    return r ? r->status : 0;
  }
  // Waits up to `seconds` for `done`; false when it never held.
  static bool WaitFor(const std::function<bool()>& done, int seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
  }
  std::unique_ptr<AgentProcess> StartAgent(const std::string& node) {
    auto agent = std::make_unique<AgentProcess>(server_->port(), node, root_ + "/" + node);
    const bool registered = WaitFor(
        [&] { return agent->log().find("registered node " + node) != std::string::npos; }, 30);
    EXPECT_TRUE(registered) << agent->log();
    return agent;
  }
  std::string SubmitJob(const std::string& command, int tasks, const std::string& memory) {
    const json job = {{"apiVersion", "archimedes.io/v1"},
                      {"kind", "Job"},
                      {"spec",
                       {{"kind", "offline"},
                        {"function", command},
                        {"tasks", tasks},
                        {"requests", {{"cpu", "1"}, {"memory", memory}}},
                        {"durationEstimate", "5s"},
                        {"delayTolerance", "1h"}}}};
    const httplib::Result r = client_->Post("/v1/jobs", job.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 201) << (r ? r->body : "no answer");
    return r ? json::parse(r->body)["metadata"]["name"].get<std::string>() : "";
  }
  std::string Phase(const std::string& job) {
    const json j = Get("/v1/jobs/" + job);
    return j.is_object() ? j["status"]["phase"].get<std::string>() : "";
  }
  // On node-a, a task that sleeps `seconds` and then appends its container's name to Done() runs,
  // its agent is killed with SIGKILL, and the task ends while no agent is there. Returns the job.
  std::string EndATaskWhileItsAgentIsAway(int seconds) {
    auto a = StartAgent("node-a");
    std::string job =
        SubmitJob("sleep " + std::to_string(seconds) + "; echo $ARCHIMEDES_CONTAINER >> " + Done(),
                  1, "64Mi");
    EXPECT_TRUE(WaitFor([&] { return Phase(job) == "Running"; }, 30)) << a->log();
    a->Kill(SIGKILL);
    EXPECT_TRUE(WaitFor([&] { return fs::exists(Done()); }, 30)) << a->log();
    return job;
  }
  std::string Done() const { return root_ + "/done"; }
  static int LineCount(const std::string& path) {
    std::istringstream lines(Read(path));
    int count = 0;
    for (std::string line; std::getline(lines, line);) ++count;
    return count;
  }
  // The engine's StartTask actions by container.
  std::map<std::string, json> StartTasks() {
    std::map<std::string, json> starts;
    const json feed = Get("/v1/actions?after=0");
    for (const json& a : feed["items"]) {
      if (a["kind"] == "StartTask") starts[a["container"]] = a;
    }
    return starts;
  }

  void TearDown() override {
    for (const char* node : {"node-a", "node-b"}) RemoveCgroups(node);
  }

  std::string root_;
  std::unique_ptr<ServeProcess> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(AgentProcessTest, TasksRunWhereAndWhenTheEngineStartedThem) {
  auto a = StartAgent("node-a");
  auto b = StartAgent("node-b");
  const std::string runs = root_ + "/runs";
  const std::string command =
      "echo \"$ARCHIMEDES_NODE $ARCHIMEDES_CONTAINER $(date +%s)\" >> " + runs + "; sleep 2";
  // Each task takes more than half a node's CPU (1 of 1.8 cores): one task per node, so the
  // second job waits for the first to end.
  const std::string first = SubmitJob(command, 2, "64Mi");
  const std::string second = SubmitJob(command, 2, "64Mi");
  // The planner holds it a later window; it starts there at the latest (earlier when room frees).
  // (Queued until the next scheduling cycle plans it.)
  ASSERT_TRUE(WaitFor([&] { return Phase(second) != "Queued"; }, 10));
  const json waiting = Get("/v1/jobs/" + second)["status"];
  ASSERT_EQ(waiting["phase"], "Planned") << waiting.dump();
  const int64_t planned_start = waiting["plannedStart"];
  ASSERT_TRUE(
      WaitFor([&] { return Phase(first) == "Succeeded" && Phase(second) == "Succeeded"; }, 90))
      << Phase(first) << " " << Phase(second) << "\n"
      << a->log() << b->log();

  const std::map<std::string, json> starts = StartTasks();
  std::istringstream lines(Read(runs));
  std::map<std::string, int> runs_of;
  std::map<std::string, int> per_node;
  for (std::string node, container; lines >> node >> container;) {
    int64_t at = 0;
    lines >> at;
    ++runs_of[container];
    ++per_node[node];
    ASSERT_TRUE(starts.count(container)) << container;
    const json& start = starts.at(container);
    EXPECT_EQ(node, start["node"]) << container;
    const int64_t decided = start["time"];
    EXPECT_GE(at, decided) << container;
    EXPECT_LE(at, decided + 3) << container << ": ran " << at - decided << " s after its start";
  }
  EXPECT_EQ(runs_of.size(), 4u) << Get("/v1/actions?after=0").dump() << "\n"
                                << a->log() << b->log();
  for (const auto& [container, count] : runs_of) EXPECT_EQ(count, 1) << container;
  EXPECT_EQ(per_node.size(), 2u);
  EXPECT_EQ(starts.size(), 4u);
  // The second job's tasks started once the first's had ended: never two on one node at once.
  int64_t first_start = 0, second_start = 0;
  for (const auto& [container, start] : starts) {
    int64_t& slot = start["job"] == first ? first_start : second_start;
    slot = std::max<int64_t>(slot, start["time"].get<int64_t>());
  }
  EXPECT_GE(second_start, first_start + 2);
  EXPECT_LE(second_start, planned_start);
}

TEST_F(AgentProcessTest, AServiceRunsItsCommandReportsUsageAndStopsWhenDeleted) {
  auto a = StartAgent("node-a");
  const std::string marker = std::to_string(4000 + getpid() % 1000);
  const json service = {{"apiVersion", "archimedes.io/v1"},
                        {"kind", "Service"},
                        {"spec",
                         {{"replicas", 1},
                          {"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}},
                          {"limits", {{"memory", "128Mi"}}},
                          {"command", "exec sleep " + marker}}}};
  ASSERT_EQ(Send("PUT", "/v1/services/web", service), 201);
  ASSERT_TRUE(WaitFor([&] { return Get("/v1/services/web")["status"]["running"] == 1; }, 30))
      << a->log();
  auto sleeping = [&] {
    for (const fs::directory_entry& p : fs::directory_iterator("/proc")) {
      std::string cmdline = Read(p.path().string() + "/cmdline");
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      if (cmdline == "sleep " + marker + " ") return true;
    }
    return false;
  };
  EXPECT_TRUE(sleeping());
  EXPECT_TRUE(
      WaitFor([&] { return Get("/v1/nodes/node-a")["status"]["usage"].contains("memory"); }, 30))
      << Get("/v1/nodes/node-a").dump();
  ASSERT_EQ(Send("DELETE", "/v1/services/web", json()), 200);
  EXPECT_TRUE(WaitFor([&] { return !sleeping(); }, 30)) << a->log();
  EXPECT_TRUE(WaitFor([&] { return a->log().find("web-1 stopped") != std::string::npos; }, 10))
      << a->log();
}

TEST_F(AgentProcessTest, ATaskAboveItsMemoryLimitIsReportedOomKilled) {
  auto a = StartAgent("node-a");
  if (a->log().find("no cgroups") != std::string::npos) {
    GTEST_SKIP() << "this machine's cgroups cannot be used, so nothing enforces a memory limit:\n"
                 << a->log();
  }
  const std::string job =
      SubmitJob("x=$(head -c 134217728 /dev/zero | tr '\\0' x); echo ${#x}", 1, "32Mi");
  auto oom_killed = [&] {
    const json status = Get("/v1/jobs/" + job)["status"];
    return status.contains("lastTermination") && status["lastTermination"]["reason"] == "OOMKilled";
  };
  EXPECT_TRUE(WaitFor(oom_killed, 60)) << Get("/v1/jobs/" + job).dump() << "\n" << a->log();
  const json last = Get("/v1/jobs/" + job)["status"]["lastTermination"];
  EXPECT_EQ(last["exitCode"], 137);
  EXPECT_EQ(last["container"].get<std::string>().rfind(job + "-", 0), 0u) << last.dump();
  // The agent logs the end once the server has taken the report, so the line may trail the status.
  EXPECT_TRUE(
      WaitFor([&] { return a->log().find(" OOMKilled (exit code 137)") != std::string::npos; }, 10))
      << a->log();
  Send("DELETE", "/v1/jobs/" + job, json());
}

TEST_F(AgentProcessTest, ARestartedAgentReportsWhatEndedWhileItWasAway) {
  const std::string job = EndATaskWhileItsAgentIsAway(2);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(Phase(job), "Running");  // nobody told the server yet
  auto a = StartAgent("node-a");
  EXPECT_TRUE(WaitFor([&] { return Phase(job) == "Succeeded"; }, 30)) << a->log();
  EXPECT_NE(a->log().find("(ended while the agent was away)"), std::string::npos) << a->log();
  EXPECT_EQ(LineCount(Done()), 1) << Read(Done()) << a->log();  // not started a second time
}

// An agent killed after it started a task and before it saved the action's number finds the task
// in its folder on restart and goes on after that action: the server's feed gives the start again,
// and it must not run twice. The saved number is set back by hand to make that moment.
TEST_F(AgentProcessTest, AnAgentKilledBeforeSavingItsPlaceDoesNotStartATaskAgain) {
  const std::string job = EndATaskWhileItsAgentIsAway(1);
  ASSERT_FALSE(HasFailure());
  const std::map<std::string, json> starts = StartTasks();
  ASSERT_EQ(starts.size(), 1u);
  const int64_t start_seq = starts.begin()->second["seq"];
  std::ofstream(root_ + "/node-a/seq") << start_seq - 1 << "\n";
  auto a = StartAgent("node-a");
  EXPECT_TRUE(WaitFor([&] { return Phase(job) == "Succeeded"; }, 30)) << a->log();
  std::this_thread::sleep_for(std::chrono::seconds(3));  // a second run would have ended by now
  EXPECT_EQ(LineCount(Done()), 1) << Read(Done()) << a->log();
}

// What a machine's restart leaves: a container's folder whose shim and command are gone without an
// exit file. Killed here by hand (the shim first, so that it writes nothing); `exit_after_ms`,
// when set, writes the exit file that long after the agent starts, as a shim late to write it
// would.
class LostShimTest : public AgentProcessTest {
 protected:
  std::unique_ptr<AgentProcess> RestartWithTheTaskGone(std::optional<int> exit_after_ms) {
    auto a = StartAgent("node-a");
    job_ = SubmitJob("sleep 60", 1, "64Mi");
    EXPECT_TRUE(WaitFor([&] { return Phase(job_) == "Running"; }, 30)) << a->log();
    const std::map<std::string, json> starts = StartTasks();
    EXPECT_EQ(starts.size(), 1u);
    container_ = starts.begin()->first;
    const std::string dir = root_ + "/node-a/containers/" + container_;
    EXPECT_TRUE(WaitFor([&] { return fs::exists(dir + "/pid"); }, 10));
    const pid_t pid = std::stoi(Read(dir + "/pid"));
    std::istringstream stat(Read("/proc/" + std::to_string(pid) + "/stat"));
    std::string field;
    for (int i = 0; i < 4; ++i) stat >> field;  // pid, comm, state, ppid
    const pid_t shim = std::stoi(field);
    // The command's parent must still be its shim: never signal init or the test itself.
    EXPECT_GT(shim, 1);
    EXPECT_NE(shim, getpid());
    a->Kill(SIGKILL);
    if (shim > 1 && shim != getpid()) kill(shim, SIGKILL);
    kill(-pid, SIGKILL);
    EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0; }, 10));
    EXPECT_FALSE(fs::exists(dir + "/exit"));
    std::thread late;
    if (exit_after_ms) {
      late = std::thread([dir, ms = *exit_after_ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        std::ofstream(dir + "/exit.tmp") << "exited 0\n";
        std::error_code gone;  // the agent may have forgotten the container already
        fs::rename(dir + "/exit.tmp", dir + "/exit", gone);
      });
    }
    a = StartAgent("node-a");
    if (late.joinable()) late.join();
    return a;
  }
  std::string job_, container_;
};

TEST_F(LostShimTest, ACommandGoneWithoutAnExitIsReportedFailed) {
  auto a = RestartWithTheTaskGone(std::nullopt);
  EXPECT_TRUE(WaitFor(
      [&] { return a->log().find(container_ + " Failed (exit code 255)") != std::string::npos; },
      10))
      << a->log();
  Send("DELETE", "/v1/jobs/" + job_, json());
}

TEST_F(LostShimTest, AnExitWrittenJustAfterTheRestartIsTheOneReported) {
  auto a = RestartWithTheTaskGone(300);
  EXPECT_TRUE(WaitFor([&] { return Phase(job_) == "Succeeded"; }, 10)) << a->log();
  EXPECT_EQ(a->log().find("exit code 255"), std::string::npos) << a->log();
}

// Without etcd there is no MAGI quorum: the server's own rule makes a node whose agent fell silent
// NotReady, its task runs again elsewhere, and the agent's return makes the node Ready and stops
// what it still ran there.
TEST_F(AgentProcessTest, ANodeWhoseAgentFellSilentFailsAndComesBackWithIt) {
  server_ = std::make_unique<ServeProcess>(
      root_ + "/data-grace",
      std::vector<std::string>{"--clock", "wall", "--policy", "archimedes", "--node-grace", "3s"});
  client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  std::map<std::string, std::unique_ptr<AgentProcess>> agents;
  agents["node-a"] = StartAgent("node-a");
  agents["node-b"] = StartAgent("node-b");
  const std::string marker = std::to_string(5000 + getpid() % 1000);
  const std::string job = SubmitJob("exec sleep " + marker, 1, "64Mi");
  ASSERT_TRUE(WaitFor([&] { return StartTasks().size() == 1; }, 30));
  const json first = StartTasks().begin()->second;
  const std::string lost = first["node"];
  const std::string other = lost == "node-a" ? "node-b" : "node-a";
  ASSERT_TRUE(WaitFor([&] { return Phase(job) == "Running"; }, 30));

  agents[lost]->Kill(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(
      WaitFor([&] { return Get("/v1/nodes/" + lost)["status"]["condition"] == "NotReady"; }, 30));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::cout << lost << " NotReady " << seconds << " s after its agent was killed\n";
  EXPECT_GE(seconds, 3.0);   // not before the grace
  EXPECT_LE(seconds, 10.0);  // the grace, the last long-poll (2 s) and a cycle, with room
  // The task starts again on the node that is left.
  ASSERT_TRUE(WaitFor([&] { return StartTasks().size() == 2; }, 30));
  for (const auto& [container, start] : StartTasks()) {
    if (container != first["container"]) {
      EXPECT_EQ(start["node"], other);
    }
  }
  auto sleepers = [&] {
    int count = 0;
    for (const fs::directory_entry& p : fs::directory_iterator("/proc")) {
      std::string cmdline = Read(p.path().string() + "/cmdline");
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      count += cmdline == "sleep " + marker + " ";
    }
    return count;
  };
  EXPECT_TRUE(WaitFor([&] { return sleepers() == 2; }, 30));  // the lost node's still runs

  agents[lost] = StartAgent(lost);
  EXPECT_TRUE(
      WaitFor([&] { return Get("/v1/nodes/" + lost)["status"]["condition"] == "Ready"; }, 30));
  // Told by the NodeFailed eviction, the returning agent stops what the engine placed elsewhere.
  EXPECT_TRUE(WaitFor([&] { return sleepers() == 1; }, 30)) << agents[lost]->log();
  Send("DELETE", "/v1/jobs/" + job, json());
  EXPECT_TRUE(WaitFor([&] { return sleepers() == 0; }, 30));
}

}  // namespace
}  // namespace archimedes
