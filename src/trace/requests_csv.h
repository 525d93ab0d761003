// The current-requests CSV of `archimedes profile --requests` (docs/profiles.md): per application
// the requests of one replica as Kubernetes quantities, and optionally how many replicas it runs,
// after a header naming the columns:
//
//   app,cpu,memory,disk,network[,replicas]
//
// Errors are TraceError with the file and line: a wrong header, a wrong number of fields, a bad
// quantity (naming its column) or replica count.
#ifndef ARCHIMEDES_TRACE_REQUESTS_CSV_H_
#define ARCHIMEDES_TRACE_REQUESTS_CSV_H_

#include <array>
#include <string>
#include <vector>

#include "model/resources.h"

namespace archimedes {

struct AppRequests {
  std::string app;
  std::array<double, kNumDims> request{};  // per replica, canonical units; gpu 0
  int replicas = 0;                        // 0 when the file has no replicas column
};

// The rows in file order.
std::vector<AppRequests> ReadRequestsFile(const std::string& path);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_REQUESTS_CSV_H_
