// A recorded usage time series of one container or machine, as the real traces carry them.
// Values are in canonical units (cpu millicores, memory bytes, disk and network bytes/s) once a
// reader has converted them; `normalized` says when a trace only gives shares of a machine or of
// a limit, in which case values are fractions and the consumer scales them.
#ifndef ARCHIMEDES_TRACE_USAGE_SERIES_H_
#define ARCHIMEDES_TRACE_USAGE_SERIES_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/resources.h"

namespace archimedes {

struct UsageSeries {
  std::string id;   // replica or machine id, unique within one reader's output
  std::string app;  // the application (all replicas of one job share it)
  bool normalized = false;
  // Per-dimension request or limit the trace records for this series, in the same units as the
  // values (0 when the trace has none).
  std::array<double, kNumDims> limit{};
  // The capacity of the largest node that could host the series, in the same units (0 = unknown).
  std::array<double, kNumDims> largest_node{};
  std::vector<int64_t> times;                       // seconds, strictly increasing
  std::array<std::vector<float>, kNumDims> values;  // values[dim][i] at times[i]; empty = n/a
  // The maximum within the sample window starting at times[i], where the trace gives it (a
  // window's average hides its peaks); empty = not given for that dimension.
  std::array<std::vector<float>, kNumDims> window_max;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_USAGE_SERIES_H_
