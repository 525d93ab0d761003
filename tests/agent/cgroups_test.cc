#include "agent/cgroups.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "agent/container_process.h"
#include "support/command.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;
using ::archimedes::testing::TempPath;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// A folder laid out as a cgroup mount (the files the kernel would show), for the layout and the
// file formats; the kernel's own enforcement is the last test's.
fs::path FakeMount(const std::string& name, const std::string& controllers) {
  const fs::path root = TempPath(name);
  fs::remove_all(root);
  fs::create_directories(root);
  Write(root / "cgroup.controllers", controllers);
  return root;
}

TEST(CgroupMountsTest, ReadsV2AndTheV1ControllersItUses) {
  const std::string mounts = TempPath("mounts");
  Write(mounts,
        "proc /proc proc rw 0 0\n"
        "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
        "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0\n"
        "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
        "cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0\n");
  const std::vector<CgroupMount> found = ReadCgroupMounts(mounts);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_TRUE(found[0].v2);
  EXPECT_EQ(found[0].path, "/sys/fs/cgroup/unified");
  EXPECT_EQ(found[1].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(found[2].controllers, (std::vector<std::string>{"memory"}));
}

TEST(CgroupsTest, V2GroupsGetCpuMaxAndMemoryMaxAndReadBackUsage) {
  const fs::path root = FakeMount("v2", "cpuset cpu io memory pids\n");
  std::string why;
  const Cgroups cgroups = Cgroups::Open({{.path = root, .v2 = true}}, "arch", &why);
  ASSERT_EQ(cgroups.version(), Cgroups::Version::kV2) << why;
  EXPECT_EQ(Read(root / "cgroup.subtree_control"), "+cpu +memory");
  EXPECT_EQ(Read(root / "arch/batch/cgroup.subtree_control"), "+cpu +memory");

  const std::vector<std::string> procs =
      cgroups.Create("job-1-3", true, {.cpu_milli = 500, .memory_bytes = 64 << 20});
  EXPECT_EQ(procs, (std::vector<std::string>{(root / "arch/batch/job-1-3/cgroup.procs")}));
  const fs::path group = root / "arch/batch/job-1-3";
  EXPECT_EQ(Read(group / "cpu.max"), "50000 100000");
  EXPECT_EQ(Read(group / "memory.max"), "67108864");
  cgroups.Create("web-1", false, {});
  EXPECT_EQ(Read(root / "arch/services/web-1/cpu.max"), "max 100000");
  EXPECT_EQ(Read(root / "arch/services/web-1/memory.max"), "max");

  Write(group / "cpu.stat", "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n");
  Write(group / "memory.current", "10485760\n");
  Write(group / "memory.stat", "anon 8388608\nfile 2097152\ninactive_file 1048576\n");
  Write(group / "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
  const CgroupUsage usage = cgroups.Read("job-1-3", true);
  EXPECT_DOUBLE_EQ(usage.cpu_seconds, 2.5);
  EXPECT_EQ(usage.memory_bytes, 10485760 - 1048576);
  EXPECT_EQ(usage.oom_kills, 1);

  cgroups.ThrottleBatch(1500);
  EXPECT_EQ(Read(root / "arch/batch/cpu.max"), "150000 100000");
  cgroups.ThrottleBatch(0);
  EXPECT_EQ(Read(root / "arch/batch/cpu.max"), "max 100000");
}

TEST(CgroupsTest, AHybridHostFallsBackToV1AndSaysWhyNotV2) {
  const fs::path unified = FakeMount("unified", "\n");
  const fs::path memory = FakeMount("memory", "");
  const fs::path cpu = FakeMount("cpu", "");
  std::string why;
  const Cgroups cgroups = Cgroups::Open({{.path = unified, .v2 = true},
                                         {.path = cpu, .controllers = {"cpu", "cpuacct"}},
                                         {.path = memory, .controllers = {"memory"}}},
                                        "arch", &why);
  ASSERT_EQ(cgroups.version(), Cgroups::Version::kV1);
  EXPECT_EQ(cgroups.Describe(),
            "cgroup v1 at " + (memory / "arch").string() + " and " + (cpu / "arch").string());

  const std::vector<std::string> procs =
      cgroups.Create("job-0-1", true, {.cpu_milli = 250, .memory_bytes = 1 << 20});
  EXPECT_EQ(procs.size(), 2u);  // cpu and cpuacct share a mount
  EXPECT_EQ(Read(memory / "arch/batch/job-0-1/memory.limit_in_bytes"), "1048576");
  EXPECT_EQ(Read(cpu / "arch/batch/job-0-1/cpu.cfs_quota_us"), "25000");
  EXPECT_EQ(Read(cpu / "arch/batch/job-0-1/cpu.cfs_period_us"), "100000");
  Write(memory / "arch/batch/job-0-1/memory.oom_control",
        "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  Write(cpu / "arch/batch/job-0-1/cpuacct.usage", "1500000000\n");
  EXPECT_EQ(cgroups.Read("job-0-1", true).oom_kills, 2);
  EXPECT_DOUBLE_EQ(cgroups.Read("job-0-1", true).cpu_seconds, 1.5);
}

TEST(CgroupsTest, NoUsableHierarchyIsNoCgroupsWithTheReasons) {
  const fs::path unified = FakeMount("bare", "\n");
  std::string why;
  const Cgroups cgroups = Cgroups::Open({{.path = unified, .v2 = true}}, "arch", &why);
  EXPECT_EQ(cgroups.version(), Cgroups::Version::kNone);
  EXPECT_NE(why.find("has no cpu and memory controllers"), std::string::npos) << why;
  EXPECT_NE(why.find("no cgroup v1 hierarchy"), std::string::npos) << why;
  EXPECT_TRUE(cgroups.Create("x", true, {.memory_bytes = 1}).empty());
  EXPECT_EQ(cgroups.Describe(), "no cgroups");
}

// The kernel's own enforcement, where this machine lets the test make groups.
TEST(CgroupsTest, TheKernelKillsACommandAboveItsMemoryLimit) {
  std::string why;
  const std::string name = "archimedes-test-" + std::to_string(getpid());
  const Cgroups cgroups = Cgroups::Open(ReadCgroupMounts(), name, &why);
  if (cgroups.version() == Cgroups::Version::kNone) {
    GTEST_SKIP() << "this machine's cgroups cannot be used: " << why;
  }
  const fs::path dir = TempPath("oom");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> procs =
      cgroups.Create("hog", true, {.cpu_milli = 1000, .memory_bytes = 32 << 20});
  const pid_t shim = Launch({.command = "x=$(head -c 134217728 /dev/zero | tr '\\0' x); echo ${#x}",
                             .dir = dir,
                             .procs_files = procs});
  waitpid(shim, nullptr, 0);
  const std::optional<ExitStatus> exit = ReadExit(dir);
  ASSERT_TRUE(exit.has_value());
  EXPECT_NE(exit->exit_code, 0);
  EXPECT_GE(cgroups.Read("hog", true).oom_kills, 1) << cgroups.Describe();
  // The rest of the pipeline may outlive the shell the kernel killed: the agent kills what is left
  // before it removes a group, as here.
  for (int i = 0; i < 500 && !cgroups.Processes("hog", true).empty(); ++i) {
    for (int pid : cgroups.Processes("hog", true)) kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(cgroups.Processes("hog", true).empty());
  cgroups.Remove("hog", true);
  for (const CgroupMount& m : ReadCgroupMounts()) {
    for (const char* part : {"/batch", "/services", ""}) {
      rmdir((m.path + "/" + name + part).c_str());
    }
  }
}

}  // namespace
}  // namespace archimedes
