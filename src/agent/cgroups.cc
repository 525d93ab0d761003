#include "agent/cgroups.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace archimedes {
namespace {

constexpr int64_t kPeriodMicros = 100000;
// The kernel refuses CFS quotas below 1 ms.
constexpr int64_t kMinQuotaMicros = 1000;

std::string Errno() { return std::strerror(errno); }

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

void WriteFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw CgroupError("cannot open " + path + ": " + Errno());
  const ssize_t written = write(fd, text.data(), text.size());
  const std::string why = Errno();
  close(fd);
  if (written != static_cast<ssize_t>(text.size())) {
    throw CgroupError("cannot write \"" + text + "\" to " + path + ": " + why);
  }
}

// Best effort: a file some kernels lack (swap accounting switched off).
void WriteIfPresent(const std::string& path, const std::string& text) {
  if (access(path.c_str(), F_OK) != 0) return;
  try {
    WriteFile(path, text);
  } catch (const CgroupError&) {
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t ReadNumber(const std::string& path) {
  try {
    return std::stoll(ReadFile(path));
  } catch (const std::exception&) {
    return 0;
  }
}

// The value of `key` in a file of "key value" lines (cpu.stat, memory.stat, memory.events).
int64_t ReadKey(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  int64_t value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return 0;
}

void MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw CgroupError("cannot make " + path + ": " + Errno());
  }
}

std::string CpuMax(int64_t cpu_milli) {
  if (cpu_milli <= 0) return "max " + std::to_string(kPeriodMicros);
  const int64_t quota = std::max(kMinQuotaMicros, cpu_milli * kPeriodMicros / 1000);
  return std::to_string(quota) + " " + std::to_string(kPeriodMicros);
}

std::string CfsQuota(int64_t cpu_milli) {
  if (cpu_milli <= 0) return "-1";
  return std::to_string(std::max(kMinQuotaMicros, cpu_milli * kPeriodMicros / 1000));
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

const char* const kParts[] = {"services", "batch"};

}  // namespace

std::vector<CgroupMount> ReadCgroupMounts(const std::string& mounts_file) {
  std::ifstream in(mounts_file);
  std::vector<CgroupMount> mounts;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string device, path, type, options;
    if (!(fields >> device >> path >> type >> options)) continue;
    if (type == "cgroup2") {
      mounts.push_back({.path = path, .v2 = true});
    } else if (type == "cgroup") {
      CgroupMount m{.path = path};
      std::istringstream opts(options);
      for (std::string o; std::getline(opts, o, ',');) {
        if (o == "cpu" || o == "cpuacct" || o == "memory") m.controllers.push_back(o);
      }
      if (!m.controllers.empty()) mounts.push_back(std::move(m));
    }
  }
  return mounts;
}

Cgroups Cgroups::Open(const std::vector<CgroupMount>& mounts, const std::string& name,
                      std::string* why_not) {
  std::vector<std::string> reasons;
  for (const CgroupMount& m : mounts) {
    if (!m.v2) continue;
    const std::vector<std::string> controllers = Words(ReadFile(m.path + "/cgroup.controllers"));
    if (!Contains(controllers, "cpu") || !Contains(controllers, "memory")) {
      reasons.push_back("cgroup v2 at " + m.path +
                        " has no cpu and memory controllers (they are bound to v1)");
      continue;
    }
    try {
      Cgroups c;
      c.version_ = Version::kV2;
      c.memory_root_ = c.cpu_root_ = c.cpuacct_root_ = m.path + "/" + name;
      WriteFile(m.path + "/cgroup.subtree_control", "+cpu +memory");
      MakeDir(c.memory_root_);
      WriteFile(c.memory_root_ + "/cgroup.subtree_control", "+cpu +memory");
      for (const char* part : kParts) {
        MakeDir(c.memory_root_ + "/" + part);
        WriteFile(c.memory_root_ + "/" + part + "/cgroup.subtree_control", "+cpu +memory");
      }
      return c;
    } catch (const CgroupError& e) {
      reasons.push_back(std::string("cgroup v2 at ") + m.path + ": " + e.what());
    }
  }
  std::string memory, cpu, cpuacct;
  for (const CgroupMount& m : mounts) {
    if (m.v2) continue;
    if (Contains(m.controllers, "memory") && memory.empty()) memory = m.path;
    if (Contains(m.controllers, "cpu") && cpu.empty()) cpu = m.path;
    if (Contains(m.controllers, "cpuacct") && cpuacct.empty()) cpuacct = m.path;
  }
  if (memory.empty() || cpu.empty() || cpuacct.empty()) {
    reasons.push_back("no cgroup v1 hierarchy of cpu, cpuacct and memory is mounted");
  } else {
    try {
      Cgroups c;
      c.version_ = Version::kV1;
      c.memory_root_ = memory + "/" + name;
      c.cpu_root_ = cpu + "/" + name;
      c.cpuacct_root_ = cpuacct + "/" + name;
      for (const std::string& root : {c.memory_root_, c.cpu_root_, c.cpuacct_root_}) {
        MakeDir(root);
        for (const char* part : kParts) MakeDir(root + "/" + part);
      }
      WriteFile(c.cpu_root_ + "/batch/cpu.cfs_quota_us", "-1");
      return c;
    } catch (const CgroupError& e) {
      reasons.push_back(std::string("cgroup v1: ") + e.what());
    }
  }
  if (why_not) {
    why_not->clear();
    for (const std::string& r : reasons) *why_not += (why_not->empty() ? "" : "; ") + r;
  }
  return Cgroups();
}

std::string Cgroups::Describe() const {
  switch (version_) {
    case Version::kV2:
      return "cgroup v2 at " + memory_root_;
    case Version::kV1:
      return "cgroup v1 at " + memory_root_ + " and " + cpu_root_;
    case Version::kNone:
      break;
  }
  return "no cgroups";
}

std::vector<std::string> Cgroups::GroupDirs(const std::string& container, bool batch) const {
  const std::string leaf = std::string("/") + kParts[batch ? 1 : 0] + "/" + container;
  switch (version_) {
    case Version::kV2:
      return {memory_root_ + leaf};
    case Version::kV1: {
      std::vector<std::string> dirs = {memory_root_ + leaf, cpu_root_ + leaf};
      if (cpuacct_root_ != cpu_root_) dirs.push_back(cpuacct_root_ + leaf);
      return dirs;
    }
    case Version::kNone:
      break;
  }
  return {};
}

std::vector<std::string> Cgroups::Create(const std::string& container, bool batch,
                                         ContainerLimits limits) const {
  std::vector<std::string> procs;
  const std::vector<std::string> dirs = GroupDirs(container, batch);
  for (const std::string& dir : dirs) {
    MakeDir(dir);
    procs.push_back(dir + "/cgroup.procs");
  }
  if (version_ == Version::kV2) {
    const std::string& dir = dirs.front();
    WriteFile(dir + "/cpu.max", CpuMax(limits.cpu_milli));
    WriteFile(dir + "/memory.max",
              limits.memory_bytes > 0 ? std::to_string(limits.memory_bytes) : "max");
    // Over its limit a container is OOM-killed, not swapped out.
    if (limits.memory_bytes > 0) WriteIfPresent(dir + "/memory.swap.max", "0");
  } else if (version_ == Version::kV1) {
    const std::string& memory = dirs[0];
    const std::string& cpu = dirs[1];
    WriteFile(memory + "/memory.limit_in_bytes",
              limits.memory_bytes > 0 ? std::to_string(limits.memory_bytes) : "-1");
    if (limits.memory_bytes > 0) WriteIfPresent(memory + "/memory.swappiness", "0");
    WriteFile(cpu + "/cpu.cfs_period_us", std::to_string(kPeriodMicros));
    WriteFile(cpu + "/cpu.cfs_quota_us", CfsQuota(limits.cpu_milli));
  }
  return procs;
}

bool Cgroups::Exists(const std::string& container, bool batch) const {
  const std::vector<std::string> dirs = GroupDirs(container, batch);
  return !dirs.empty() && access(dirs.front().c_str(), F_OK) == 0;
}

CgroupUsage Cgroups::Read(const std::string& container, bool batch) const {
  CgroupUsage usage;
  const std::vector<std::string> dirs = GroupDirs(container, batch);
  if (version_ == Version::kV2) {
    const std::string& dir = dirs.front();
    usage.cpu_seconds = static_cast<double>(ReadKey(dir + "/cpu.stat", "usage_usec")) / 1e6;
    usage.memory_bytes =
        ReadNumber(dir + "/memory.current") - ReadKey(dir + "/memory.stat", "inactive_file");
    usage.oom_kills = ReadKey(dir + "/memory.events", "oom_kill");
  } else if (version_ == Version::kV1) {
    const std::string& memory = dirs[0];
    const std::string& cpuacct = dirs.back();
    usage.cpu_seconds = static_cast<double>(ReadNumber(cpuacct + "/cpuacct.usage")) / 1e9;
    usage.memory_bytes = ReadNumber(memory + "/memory.usage_in_bytes") -
                         ReadKey(memory + "/memory.stat", "total_inactive_file");
    usage.oom_kills = ReadKey(memory + "/memory.oom_control", "oom_kill");
  }
  usage.memory_bytes = std::max<int64_t>(0, usage.memory_bytes);
  return usage;
}

std::vector<int> Cgroups::Processes(const std::string& container, bool batch) const {
  std::set<int> pids;
  for (const std::string& dir : GroupDirs(container, batch)) {
    std::ifstream in(dir + "/cgroup.procs");
    for (int pid = 0; in >> pid;) pids.insert(pid);
  }
  return {pids.begin(), pids.end()};
}

void Cgroups::Remove(const std::string& container, bool batch) const {
  for (const std::string& dir : GroupDirs(container, batch)) {
    if (rmdir(dir.c_str()) != 0 && errno != ENOENT) {
      throw CgroupError("cannot remove " + dir + ": " + Errno());
    }
  }
}

void Cgroups::ThrottleBatch(int64_t cpu_milli) const {
  if (version_ == Version::kV2) {
    WriteFile(cpu_root_ + "/batch/cpu.max", CpuMax(cpu_milli));
  } else if (version_ == Version::kV1) {
    WriteFile(cpu_root_ + "/batch/cpu.cfs_period_us", std::to_string(kPeriodMicros));
    WriteFile(cpu_root_ + "/batch/cpu.cfs_quota_us", CfsQuota(cpu_milli));
  }
}

}  // namespace archimedes
