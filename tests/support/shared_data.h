// Where tests find ../shared (real traces, Kubernetes fixtures), and how they skip without it:
// only outside CI. In CI (CI=true) a missing input fails the test, so that a suite that passed
// never quietly stopped checking anything.
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

// True under continuous integration, where every input a test needs must be present.
inline bool InContinuousIntegration() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace archimedes::testing

// Skips the current test (fails it in CI), saying which file is missing, when `relative` is not
// under shared/.
#define ARCHIMEDES_REQUIRE_SHARED(relative)                                                    \
  do {                                                                                         \
    if (!std::filesystem::exists(::archimedes::testing::SharedPath(relative))) {               \
      if (::archimedes::testing::InContinuousIntegration()) {                                  \
        FAIL() << "CI=true and shared data not found: "                                        \
               << ::archimedes::testing::SharedPath(relative);                                 \
      }                                                                                        \
      GTEST_SKIP() << "shared data not found: " << ::archimedes::testing::SharedPath(relative) \
                   << " (set ARCHIMEDES_SHARED_DIR to the shared/ folder)";                    \
    }                                                                                          \
  } while (0)

#endif  // ARCHIMEDES_TESTS_SUPPORT_SHARED_DATA_H_
