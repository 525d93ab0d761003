// Writes profile_bench's synthetic fleet (fleet_usage.h) as a usage history file, for timing
// `archimedes profile --history` end to end (bench/profile_history.sh).
// Usage: usage_history_gen APPS PATH
#include <cstdio>
#include <exception>
#include <string>

#include "fleet_usage.h"
#include "trace/usage_history.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: usage_history_gen APPS PATH\n");
    return 2;
  }
  try {
    const int apps = std::stoi(argv[1]);
    archimedes::UsageHistoryWriter writer(argv[2]);
    archimedes::ForEachFleetSample(apps, [&](int64_t time, int app, const auto& usage) {
      const std::string name = "app-" + std::to_string(app);
      writer.Write(time, name, name + "-0", usage);
    });
    writer.Commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "usage_history_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
