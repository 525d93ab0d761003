// The simulator's JSON report without what is measured rather than simulated.
#ifndef ARCHIMEDES_TESTS_SUPPORT_REPORT_JSON_H_
#define ARCHIMEDES_TESTS_SUPPORT_REPORT_JSON_H_

#include <nlohmann/json.hpp>

namespace archimedes::testing {

// Timings differ from run to run: leaves out every `wall_seconds` and the percentiles of every
// `*latency_us` object (their counts stay), as scripts/golden.sh does.
inline void StripTimings(nlohmann::json& doc) {
  if (!doc.is_object() && !doc.is_array()) return;
  if (doc.is_object()) {
    doc.erase("wall_seconds");
    for (auto& [key, value] : doc.items()) {
      if (key.ends_with("latency_us") && value.is_object()) {
        value.erase("p50");
        value.erase("p99");
      }
    }
  }
  for (auto& child : doc) StripTimings(child);
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_REPORT_JSON_H_
