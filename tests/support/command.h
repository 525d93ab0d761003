// Running the `archimedes` command from a test, as a user runs it: a real process, real files.
#ifndef ARCHIMEDES_TESTS_SUPPORT_COMMAND_H_
#define ARCHIMEDES_TESTS_SUPPORT_COMMAND_H_

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace archimedes::testing {

struct CommandResult {
  int status;
  std::string output;  // stdout and stderr
};

// Runs `archimedes <args>` (the binary CMake built, ARCHIMEDES_BINARY).
inline CommandResult RunArchimedes(const std::string& args) {
  const std::string command = std::string(ARCHIMEDES_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), output};
}

// ctest runs tests in parallel processes sharing one temporary folder: a file is named after its
// test so that no two tests write the same one.
inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" + name;
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_COMMAND_H_
