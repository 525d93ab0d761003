#include "agent/container_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/command.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;
using ::archimedes::testing::TempPath;

std::string Folder(const std::string& name) {
  const std::string dir = TempPath(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ContainerProcessTest, TheShimWritesTheCommandsPidExitCodeAndOutput) {
  const std::string dir = Folder("exit");
  const pid_t shim = Launch(
      {.command = "echo \"$GREETING from $$\"; exit 3", .dir = dir, .env = {"GREETING=hello"}});
  int status = 0;
  ASSERT_EQ(waitpid(shim, &status, 0), shim);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::optional<pid_t> pid = ReadPid(dir);
  ASSERT_TRUE(pid.has_value());
  EXPECT_EQ(Read(dir + "/log"), "hello from " + std::to_string(*pid) + "\n");
  const std::optional<ExitStatus> exit = ReadExit(dir);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 3);
  EXPECT_EQ(exit->signal, 0);
}

TEST(ContainerProcessTest, AStoppedGroupEndsBySignalAndSaysWhich) {
  const std::string dir = Folder("signal");
  const pid_t shim = Launch({.command = "sleep 30 & wait", .dir = dir});
  std::optional<pid_t> pid;
  for (int i = 0; i < 500 && !pid; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    pid = ReadPid(dir);
  }
  ASSERT_TRUE(pid.has_value());
  EXPECT_FALSE(ReadExit(dir).has_value());
  EXPECT_TRUE(SignalGroup(*pid, SIGTERM));
  waitpid(shim, nullptr, 0);
  const std::optional<ExitStatus> exit = ReadExit(dir);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGTERM);
  EXPECT_EQ(exit->exit_code, 128 + SIGTERM);
  // The background sleep was in the group too (gone once whoever inherited it reaped it).
  for (int i = 0; i < 200 && SignalGroup(*pid, 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(SignalGroup(*pid, 0));
}

TEST(ContainerProcessTest, ACommandThatCannotJoinItsCgroupDoesNotRun) {
  const std::string dir = Folder("nojoin");
  const pid_t shim = Launch(
      {.command = "touch ran", .dir = dir, .procs_files = {dir + "/no-such-group/cgroup.procs"}});
  waitpid(shim, nullptr, 0);
  ASSERT_TRUE(ReadExit(dir).has_value());
  EXPECT_EQ(ReadExit(dir)->exit_code, 125);
  EXPECT_NE(Read(dir + "/log").find("cannot join the cgroup"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/ran"));
}

}  // namespace
}  // namespace archimedes
