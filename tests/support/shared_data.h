// Where tests find ../shared (real traces, Kubernetes fixtures), and how they skip without it.
#ifndef ARCHIMEDES_TESTS_SUPPORT_SHARED_DATA_H_
#define ARCHIMEDES_TESTS_SUPPORT_SHARED_DATA_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace archimedes::testing {

inline std::string SharedDir() {
  if (const char* env = std::getenv("ARCHIMEDES_SHARED_DIR")) return env;
  return ARCHIMEDES_SHARED_DIR;
}

inline std::string SharedPath(const std::string& relative) { return SharedDir() + "/" + relative; }

}  // namespace archimedes::testing

// Skips the current test, saying which file is missing, when `relative` is not under shared/.
#define ARCHIMEDES_REQUIRE_SHARED(relative)                                                    \
  do {                                                                                         \
    if (!std::filesystem::exists(::archimedes::testing::SharedPath(relative))) {               \
      GTEST_SKIP() << "shared data not found: " << ::archimedes::testing::SharedPath(relative) \
                   << " (set ARCHIMEDES_SHARED_DIR to the shared/ folder)";                    \
    }                                                                                          \
  } while (0)

#endif  // ARCHIMEDES_TESTS_SUPPORT_SHARED_DATA_H_
