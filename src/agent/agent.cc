#include "agent/agent.h"

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/container_process.h"
#include "agent/machine.h"
#include "model/quantity.h"

namespace archimedes {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr auto kTick = std::chrono::milliseconds(100);
constexpr auto kRetry = std::chrono::seconds(1);
// How long a restarted agent gives a shim to write what it is about to write.
constexpr auto kShimGrace = std::chrono::seconds(1);
// The end of a failed container's log that goes to the agent's own log.
constexpr std::streamoff kLogTail = 2048;

json EncodeResources(const Resources& r) {
  json out = json::object();
  if (r.cpu() > 0) out["cpu"] = FormatMilli(r.cpu());
  if (r.memory() > 0) out["memory"] = FormatBytes(r.memory());
  return out;
}

// cpu and memory of an action's `limits` (absent or zero: no limit).
ContainerLimits LimitsOf(const json& action) {
  ContainerLimits limits;
  const auto it = action.find("limits");
  if (it == action.end() || !it->is_object()) return limits;
  if (auto cpu = it->find("cpu"); cpu != it->end() && cpu->is_string()) {
    limits.cpu_milli = ParseMilli(cpu->get<std::string>());
  }
  if (auto memory = it->find("memory"); memory != it->end() && memory->is_string()) {
    limits.memory_bytes = ParseUnits(memory->get<std::string>());
  }
  return limits;
}

std::string Text(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path, std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kLogTail));
  std::stringstream tail;
  tail << in.rdbuf();
  return tail.str();
}

// The CPU seconds and resident bytes of one process, for hosts without cgroups.
CgroupUsage ProcessUsage(pid_t pid) {
  CgroupUsage usage;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return usage;
  // Fields after the command's name, which may hold spaces: ") state ppid …"; utime and stime
  // are the 14th and 15th fields of the line.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 13 && rest >> field;) ++i;
  int64_t utime = 0, stime = 0;
  rest >> utime >> stime;
  usage.cpu_seconds =
      static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  int64_t size = 0, resident = 0;
  if (statm >> size >> resident) usage.memory_bytes = resident * sysconf(_SC_PAGESIZE);
  return usage;
}

}  // namespace

class Agent::Impl {
 public:
  explicit Impl(AgentOptions options) : options_(std::move(options)) {
    if (options_.node.empty()) throw AgentError("the agent needs a node name");
    containers_dir_ = options_.state_dir + "/containers";
    std::error_code error;
    fs::create_directories(containers_dir_, error);
    if (error) {
      throw AgentError("cannot make the state folder " + containers_dir_ + ": " + error.message());
    }
    if (options_.cgroups) {
      std::string why_not;
      cgroups_ = Cgroups::Open(ReadCgroupMounts(), options_.cgroup_name, &why_not);
      if (cgroups_.version() == Cgroups::Version::kNone) {
        Log("cgroups cannot be used (" + why_not +
            "): containers run as plain processes, without CPU or memory limits and with no OOM "
            "kill at their limit");
      }
    } else {
      Log("cgroups switched off (--no-cgroups): containers run as plain processes");
    }
    std::ifstream seq(options_.state_dir + "/seq");
    seq >> seq_;
    Adopt();
  }

  std::string cgroups() const { return cgroups_.Describe(); }

  void Run(const std::atomic<bool>& stop) {
    httplib::Server health;
    std::thread health_listener;
    if (!options_.health_listen.empty()) {
      health.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content("ok " + options_.node + "\n", "text/plain");
      });
      const size_t colon = options_.health_listen.rfind(':');
      if (!health.bind_to_port(options_.health_listen.substr(0, colon),
                               std::stoi(options_.health_listen.substr(colon + 1)))) {
        throw AgentError("cannot listen on " + options_.health_listen + " for /healthz");
      }
      health_listener = std::thread([&health] { health.listen_after_bind(); });
    }
    struct StopHealth {
      httplib::Server& server;
      std::thread& listener;
      ~StopHealth() {
        if (!listener.joinable()) return;
        server.stop();
        listener.join();
      }
    } stop_health{health, health_listener};
    Register(stop);
    std::thread poller([this, &stop] { Poll(stop); });
    auto next_usage = Clock::now() + std::chrono::milliseconds(options_.usage_every_ms);
    while (!stop) {
      Tick();
      if (Clock::now() >= next_usage) {
        PostUsage();
        next_usage = Clock::now() + std::chrono::milliseconds(options_.usage_every_ms);
      }
      std::this_thread::sleep_for(kTick);
    }
    {
      std::lock_guard lock(client_mu_);
      if (poll_client_) poll_client_->stop();
    }
    poller.join();
  }

 private:
  struct Container {
    std::string name;
    bool batch = false;
    bool has_command = false;
    std::string dir;
    pid_t shim = -1;  // our child, to reap; -1 once reaped or when adopted
    std::optional<pid_t> pid;
    bool reported_running = false;
    // Stopped by an action: the server already knows it is gone, so its end is not reported.
    bool stopping = false;
    Clock::time_point kill_at{};
    double last_cpu_seconds = 0;
    Clock::time_point last_usage = Clock::now();
  };

  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }

  std::unique_ptr<httplib::Client> NewClient(int64_t read_timeout_s) const {
    auto client = std::make_unique<httplib::Client>(options_.server);
    client->set_connection_timeout(5);
    client->set_read_timeout(static_cast<time_t>(read_timeout_s));
    client->set_write_timeout(10);
    return client;
  }

  // --- Registration.

  void Register(const std::atomic<bool>& stop) {
    Resources capacity = options_.capacity;
    if (capacity == Resources{}) capacity = ReadMachineCapacity();
    Resources allocatable = capacity;
    allocatable -= options_.reserved;
    for (Dim d : kAllDims) {
      if (allocatable[d] < 0) {
        throw AgentError("the reserved " + std::string(DimName(d)) +
                         " is more than the machine has");
      }
    }
    json spec = {{"capacity", EncodeResources(capacity)},
                 {"allocatable", EncodeResources(allocatable)}};
    if (!options_.pod.empty()) spec["pod"] = options_.pod;
    if (!options_.zone.empty()) spec["zone"] = options_.zone;
    if (!options_.address.empty()) spec["address"] = options_.address;
    const json body = {{"apiVersion", "archimedes.io/v1"},
                       {"kind", "Node"},
                       {"metadata", {{"name", options_.node}, {"labels", options_.labels}}},
                       {"spec", spec}};
    auto client = NewClient(10);
    bool said = false;
    while (!stop) {
      const httplib::Result r =
          client->Put("/v1/nodes/" + options_.node, body.dump(), "application/json");
      if (r && (r->status == 200 || r->status == 201)) {
        Log("registered node " + options_.node + " (cpu " + FormatMilli(allocatable.cpu()) +
            ", memory " + FormatBytes(allocatable.memory()) + " allocatable) at " +
            options_.server);
        return;
      }
      if (r && r->status >= 400 && r->status < 500) {
        throw AgentError("the server refused node \"" + options_.node + "\": " + r->body);
      }
      if (!said) {
        Log("cannot register at " + options_.server + " (" +
            (r ? "status " + std::to_string(r->status) : httplib::to_string(r.error())) +
            "); retrying every second");
        said = true;
      }
      std::this_thread::sleep_for(kRetry);
    }
  }

  // --- Actions.

  void Poll(const std::atomic<bool>& stop) {
    {
      std::lock_guard lock(client_mu_);
      poll_client_ = NewClient(options_.poll_wait_s + 10);
    }
    bool said = false;
    while (!stop) {
      const std::string path = "/v1/nodes/" + options_.node +
                               "/actions?after=" + std::to_string(seq_) +
                               "&wait=" + std::to_string(options_.poll_wait_s) + "s";
      const httplib::Result r = poll_client_->Get(path);
      if (!r || r->status != 200) {
        if (stop) break;
        if (!said) {
          Log("cannot read actions (" +
              (r ? "status " + std::to_string(r->status) + ": " + r->body
                 : httplib::to_string(r.error())) +
              "); retrying every second");
          said = true;
        }
        std::this_thread::sleep_for(kRetry);
        continue;
      }
      said = false;
      const json page = json::parse(r->body, nullptr, false);
      if (page.is_discarded() || !page.contains("items")) continue;
      const int64_t last = page.value("lastSeq", int64_t{0});
      if (last < seq_) {
        // The server's log is shorter than what was carried out: another server, or its data
        // folder was replaced. Its actions are numbered afresh.
        Log("the server's last action is " + std::to_string(last) + ", before " +
            std::to_string(seq_) + " carried out here: reading its actions from the start");
        std::lock_guard lock(mu_);
        SaveSeq(0);
        continue;
      }
      for (const json& action : page["items"]) {
        std::lock_guard lock(mu_);
        Apply(action);
        SaveSeq(SeqOf(action));
      }
    }
  }

  int64_t SeqOf(const json& action) const { return action.value("seq", seq_); }

  void SaveSeq(int64_t seq) {
    seq_ = seq;
    const std::string tmp = options_.state_dir + "/seq.tmp";
    std::ofstream(tmp) << seq << "\n";
    fs::rename(tmp, options_.state_dir + "/seq");
  }

  void Apply(const json& action) {
    const std::string kind = Text(action, "kind");
    const std::string name = Text(action, "container");
    try {
      if (kind == "Bind" || kind == "Migrate") {
        Start(name, SeqOf(action), false, Text(action, "command"), LimitsOf(action),
              {"ARCHIMEDES_SERVICE=" + Text(action, "service")});
      } else if (kind == "StartTask") {
        Start(name, SeqOf(action), true, Text(action, "function"), LimitsOf(action),
              {"ARCHIMEDES_JOB=" + Text(action, "job")});
      } else if (kind == "Evict" || kind == "Stop") {
        StopContainer(name,
                      kind == "Evict" ? "evicted (" + Text(action, "reason") + ")" : "stopped");
      } else if (kind == "Throttle") {
        const int64_t cpu = LimitsOf(action).cpu_milli;
        cgroups_.ThrottleBatch(cpu);
        Log("batch CPU capped at " + FormatMilli(cpu));
      }
    } catch (const std::exception& e) {
      Log(kind + " " + name + " (action " + std::to_string(action.value("seq", int64_t{0})) +
          ") failed: " + e.what());
    }
  }

  // The action's `seq` is kept with the container: an agent killed after the start and before
  // it saved the sequence number must not start it again once restarted.
  void Start(const std::string& name, int64_t seq, bool batch, const std::string& command,
             ContainerLimits limits, std::vector<std::string> env) {
    if (name.empty() || containers_.count(name) > 0) return;
    Container c{.name = name, .batch = batch, .has_command = !command.empty()};
    c.dir = containers_dir_ + "/" + name;
    fs::create_directories(c.dir);
    std::ofstream(c.dir + "/spec.json")
        << json{{"batch", batch}, {"command", command}, {"seq", seq}}.dump() << "\n";
    try {
      const std::vector<std::string> procs = cgroups_.Create(name, batch, limits);
      if (c.has_command) {
        env.push_back("ARCHIMEDES_NODE=" + options_.node);
        env.push_back("ARCHIMEDES_CONTAINER=" + name);
        c.shim = Launch({.command = command, .dir = c.dir, .procs_files = procs, .env = env});
        Log("started " + name + ": " + command);
      } else {
        Log("holding " + name + ": its service gives no command to run");
      }
    } catch (const std::exception& e) {
      // Reported Failed (126, as a shell says of what it cannot run), so the engine places it
      // again instead of waiting for it.
      std::ofstream(c.dir + "/log") << "archimedes agent: cannot start: " << e.what() << "\n";
      std::ofstream(c.dir + "/exit") << "exited 126\n";
      c.has_command = true;
    }
    containers_.emplace(name, std::move(c));
  }

  void StopContainer(const std::string& name, const std::string& why) {
    auto it = containers_.find(name);
    if (it == containers_.end() || it->second.stopping) return;
    Container& c = it->second;
    c.stopping = true;
    c.kill_at = Clock::now() + std::chrono::milliseconds(options_.stop_grace_ms);
    // Logged before the signal, so the line is there by the time anyone sees the process gone.
    Log(name + " " + why);
    if (c.pid) SignalGroup(*c.pid, SIGTERM);
  }

  // --- Containers: what ended, what to report.

  struct Report {
    std::string name;
    std::string phase;
    int exit_code = 0;
  };

  // Reaps shims, signals what overstayed its stop, and reports starts and ends.
  void Tick() {
    std::vector<Report> reports;
    {
      std::lock_guard lock(mu_);
      for (auto& [name, c] : containers_) {
        if (c.shim > 0 && waitpid(c.shim, nullptr, WNOHANG) == c.shim) c.shim = -1;
        if (!c.pid) c.pid = ReadPid(c.dir);
        if (c.stopping && Clock::now() >= c.kill_at) {
          if (c.pid) SignalGroup(*c.pid, SIGKILL);
          for (int pid : cgroups_.Processes(name, c.batch)) kill(pid, SIGKILL);
        }
        if (!c.stopping && !c.reported_running) reports.push_back({name, "Running"});
        if (const std::optional<Report> end = Ended(c)) reports.push_back(*end);
      }
    }
    for (const Report& report : reports) {
      const bool delivered = Send(report);
      std::lock_guard lock(mu_);
      auto it = containers_.find(report.name);
      if (it == containers_.end() || !delivered) continue;
      if (report.phase == "Running") {
        it->second.reported_running = true;
      } else {
        Forget(it->second);
        containers_.erase(it);
      }
    }
    std::lock_guard lock(mu_);
    for (auto it = containers_.begin(); it != containers_.end();) {
      Container& c = it->second;
      const bool gone = c.has_command ? ReadExit(c.dir).has_value() : true;
      if (c.stopping && gone && Forget(c)) {
        it = containers_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // How `c` ended, when it did and its end is to be reported.
  std::optional<Report> Ended(const Container& c) const {
    if (c.stopping || !c.has_command) return std::nullopt;
    const std::optional<ExitStatus> exit = ReadExit(c.dir);
    if (!exit) return std::nullopt;
    Report report{.name = c.name, .exit_code = exit->exit_code};
    // A shell passes its child's death on as exit code 137: the group's OOM kill count tells.
    if (exit->exit_code != 0 && cgroups_.Read(c.name, c.batch).oom_kills > 0) {
      report.phase = "OOMKilled";
    } else if (exit->exit_code == 0 && c.batch) {
      report.phase = "Succeeded";
    } else {
      report.phase = "Failed";
    }
    return report;
  }

  // True when the server has it (404 counts: the server already forgot the container).
  bool Send(const Report& report) {
    if (!report_client_) report_client_ = NewClient(10);
    const json body = {{"phase", report.phase}, {"exitCode", report.exit_code}};
    const httplib::Result r = report_client_->Post("/v1/containers/" + report.name + "/status",
                                                   body.dump(), "application/json");
    if (!r || r->status >= 500) return false;
    if (report.phase != "Running") {
      std::string line = report.name + " " + report.phase;
      if (report.phase != "Succeeded") {
        line += " (exit code " + std::to_string(report.exit_code) + ")";
        const std::string tail = LogTail(containers_dir_ + "/" + report.name + "/log");
        if (!tail.empty()) line += "; the end of its output:\n" + tail;
      }
      Log(line);
    }
    return true;
  }

  // Kills what is left in the container's group and removes its group and folder; false while
  // processes remain (tried again next tick).
  bool Forget(const Container& c) {
    const std::vector<int> left = cgroups_.Processes(c.name, c.batch);
    if (!left.empty()) {
      for (int pid : left) kill(pid, SIGKILL);
      return false;
    }
    try {
      cgroups_.Remove(c.name, c.batch);
    } catch (const CgroupError& e) {
      Log(e.what());
      return false;
    }
    std::error_code ignored;
    fs::remove_all(c.dir, ignored);
    return true;
  }

  // --- Usage.

  void PostUsage() {
    json samples = json::array();
    {
      std::lock_guard lock(mu_);
      const auto now = Clock::now();
      for (auto& [name, c] : containers_) {
        if (c.stopping || !c.reported_running) continue;
        CgroupUsage usage;
        if (cgroups_.version() != Cgroups::Version::kNone) {
          usage = cgroups_.Read(name, c.batch);
        } else if (c.pid) {
          usage = ProcessUsage(*c.pid);
        }
        const double seconds = std::chrono::duration<double>(now - c.last_usage).count();
        const double cores = seconds > 0 ? (usage.cpu_seconds - c.last_cpu_seconds) / seconds : 0;
        c.last_cpu_seconds = usage.cpu_seconds;
        c.last_usage = now;
        samples.push_back(
            {{"container", name},
             {"usage",
              {{"cpu", FormatMilli(std::max<int64_t>(0, static_cast<int64_t>(cores * 1000)))},
               {"memory", FormatBytes(usage.memory_bytes)}}}});
      }
    }
    if (samples.empty()) return;
    if (!report_client_) report_client_ = NewClient(10);
    // A container the server forgot meanwhile (404, named by its index) is left out once.
    for (int attempt = 0; attempt < 2 && !samples.empty(); ++attempt) {
      const httplib::Result r =
          report_client_->Post("/v1/usage", json{{"samples", samples}}.dump(), "application/json");
      if (!r || r->status != 404) return;
      const json error = json::parse(r->body, nullptr, false);
      const std::string field = error.is_object() ? error.value("field", "") : "";
      const size_t open = field.find('[');
      if (open == std::string::npos) return;
      samples.erase(samples.begin() + std::stoi(field.substr(open + 1)));
    }
  }

  // --- Restart: what an earlier agent started.

  void Adopt() {
    for (const fs::directory_entry& entry : fs::directory_iterator(containers_dir_)) {
      const std::string name = entry.path().filename();
      const json spec = json::parse(std::ifstream(entry.path() / "spec.json"), nullptr, false);
      if (!spec.is_object()) {
        std::error_code ignored;
        fs::remove_all(entry.path(), ignored);
        continue;
      }
      // Actions are carried out in order and each saved after it, so the saved number lags what
      // was carried out by one action at most: the last start, found here.
      if (spec.value("seq", int64_t{0}) > seq_) SaveSeq(spec.value("seq", int64_t{0}));
      Container c{.name = name,
                  .batch = spec.value("batch", false),
                  .has_command = !spec.value("command", "").empty(),
                  .dir = entry.path()};
      c.pid = ReadPid(c.dir);
      c.last_cpu_seconds = cgroups_.Read(name, c.batch).cpu_seconds;
      containers_.emplace(name, std::move(c));
    }
    // A command gone without an exit file: the machine restarted, or its shim is between reaping
    // it and writing the file (or between its fork and the pid file) — so the shims get a moment
    // before such a container is called lost.
    auto lost = [](const Container& c) {
      if (!c.has_command || ReadExit(c.dir)) return false;
      const std::optional<pid_t> pid = c.pid ? c.pid : ReadPid(c.dir);
      return !pid || kill(*pid, 0) != 0;
    };
    const auto until = Clock::now() + kShimGrace;
    while (Clock::now() < until &&
           std::any_of(containers_.begin(), containers_.end(),
                       [&](const auto& entry) { return lost(entry.second); })) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (auto& [name, c] : containers_) {
      if (!c.pid) c.pid = ReadPid(c.dir);
      if (lost(c)) std::ofstream(c.dir + "/exit") << "exited 255\n";
      Log("adopted " + name + (ReadExit(c.dir) ? " (ended while the agent was away)" : ""));
    }
  }

  AgentOptions options_;
  Cgroups cgroups_;
  std::string containers_dir_;
  std::mutex mu_;  // containers_ and seq_
  std::map<std::string, Container> containers_;
  int64_t seq_ = 0;
  std::mutex client_mu_;  // poll_client_'s creation, against stop()
  std::unique_ptr<httplib::Client> poll_client_;
  std::unique_ptr<httplib::Client> report_client_;  // the main thread's
};

Agent::Agent(AgentOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Agent::~Agent() = default;
std::string Agent::cgroups() const { return impl_->cgroups(); }
void Agent::Run(const std::atomic<bool>& stop) { impl_->Run(stop); }

}  // namespace archimedes
