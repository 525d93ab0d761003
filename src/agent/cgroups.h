// The cgroups a node agent runs containers in: one group per container under
// <hierarchy>/<name>/{services,batch}/<container>, with a CPU quota and a memory limit from the
// container's limits, read back for usage and OOM kills; one quota over all of `batch` when the
// engine throttles batch work.
//
// Cgroup v2 where the unified hierarchy has the cpu and memory controllers (Debian 12's default);
// on hybrid hosts, whose controllers are bound to v1, v1's cpu, cpuacct and memory hierarchies.
// Where neither can be written, Open says why and every operation is a no-op (the agent then runs
// plain processes). Errors writing a group throw CgroupError naming the file.
#ifndef ARCHIMEDES_AGENT_CGROUPS_H_
#define ARCHIMEDES_AGENT_CGROUPS_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace archimedes {

class CgroupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Zero: no limit in that dimension.
struct ContainerLimits {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
};

struct CgroupUsage {
  double cpu_seconds = 0;    // since the group was made
  int64_t memory_bytes = 0;  // working set: usage less inactive file cache, as the kubelet counts
  int64_t oom_kills = 0;
};

// A cgroup mount of /proc/self/mounts: where, and which controllers (v1; empty for v2).
struct CgroupMount {
  std::string path;
  bool v2 = false;
  std::vector<std::string> controllers;
};
// The cgroup mounts listed in `mounts_file`, in the format of /proc/self/mounts.
std::vector<CgroupMount> ReadCgroupMounts(const std::string& mounts_file = "/proc/self/mounts");

class Cgroups {
 public:
  enum class Version { kNone, kV1, kV2 };

  // The agent's groups, made (or found) as `name` under the first usable hierarchy of `mounts`:
  // v2 with cpu and memory, else v1 with cpu, cpuacct and memory. When none can be used, a value
  // of version kNone and the reason in `why_not`.
  static Cgroups Open(const std::vector<CgroupMount>& mounts, const std::string& name,
                      std::string* why_not);

  Version version() const { return version_; }
  // "cgroup v2 at /sys/fs/cgroup/archimedes", or "no cgroups".
  std::string Describe() const;

  // Makes the container's group (again, if it exists) with `limits`; returns the files a process
  // writes its pid to, to join it (none without cgroups).
  std::vector<std::string> Create(const std::string& container, bool batch,
                                  ContainerLimits limits) const;
  bool Exists(const std::string& container, bool batch) const;
  CgroupUsage Read(const std::string& container, bool batch) const;
  // The processes still in the group (every hierarchy's, without repeats).
  std::vector<int> Processes(const std::string& container, bool batch) const;
  // Removes the group; its processes must have ended (Processes() empty).
  void Remove(const std::string& container, bool batch) const;
  // Caps the CPU of all batch groups together at `cpu_milli`; 0 lifts the cap.
  void ThrottleBatch(int64_t cpu_milli) const;

 private:
  // The agent's group in each hierarchy: v2 one; v1 memory, cpu, cpuacct (the last two may be
  // the same directory).
  std::vector<std::string> GroupDirs(const std::string& container, bool batch) const;

  Version version_ = Version::kNone;
  std::string memory_root_;
  std::string cpu_root_;
  std::string cpuacct_root_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_AGENT_CGROUPS_H_
