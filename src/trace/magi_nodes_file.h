// The nodes file of `archimedes magi --nodes` (docs/magi.md): the nodes one MAGI member watches.
//
//   {"nodes": [{"name": "node-1", "pod": "pod-a", "address": "10.0.0.11:8080",
//               "health_url": "http://10.0.0.11:8080/healthz"}, ...]}
//
// Reading is strict (trace/json_reader.h): `name` and `address` are required, `pod` and
// `health_url` optional, any other key is an error, as are an address that is not HOST:PORT with a
// port in [1, 65535], a health URL that is not http://, a name given twice and an empty list.
// Errors are JsonError naming the file and the JSON path (`nodes[2].address`); TraceError for a
// file that cannot be read or is not JSON.
#ifndef ARCHIMEDES_TRACE_MAGI_NODES_FILE_H_
#define ARCHIMEDES_TRACE_MAGI_NODES_FILE_H_

#include <string>
#include <vector>

namespace archimedes {

struct WatchedNode {
  std::string name;
  std::string pod;         // empty when not given
  std::string address;     // HOST:PORT, probed by a TCP connect
  std::string health_url;  // empty when not given: TCP alone is probed
};

std::vector<WatchedNode> ReadMagiNodesFile(const std::string& path);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_MAGI_NODES_FILE_H_
