// Where the etcd store of `archimedes serve` is: `store: etcd://HOST:PORT,HOST:PORT,...[/PREFIX]`
// names the members of one etcd cluster (any of them answers) and the key prefix under which one
// set of replicas keeps its state (default /archimedes/: several schedulers may share one etcd
// under different prefixes).
#ifndef ARCHIMEDES_SERVER_ETCD_LOCATION_H_
#define ARCHIMEDES_SERVER_ETCD_LOCATION_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace archimedes {

struct EtcdLocation {
  std::vector<std::string> endpoints;   // "http://127.0.0.1:2379"
  std::string prefix = "/archimedes/";  // ends with '/'
};

// The largest event the etcd journal stores: its request body; larger ones cannot be written.
inline constexpr int64_t kMaxEtcdEventBytes = int64_t{1} << 20;

inline bool IsEtcdStore(const std::string& store) { return store.starts_with("etcd://"); }

// Throws std::invalid_argument naming what is wrong.
EtcdLocation ParseEtcdLocation(const std::string& store);

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_ETCD_LOCATION_H_
