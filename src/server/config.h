// `archimedes serve`'s settings: one YAML file of `key: value` pairs, each key also a flag of the
// same name (`--usage-round 60s`), a flag winning over the file. Every value is checked when it
// is set, and a bad one is a ConfigError naming the key, the value and what is wrong.
//
//   listen: 127.0.0.1:8080    host:port to listen on (port 0: any free port)
//   data: ./archimedes-data    folder of the embedded store
//   store: sqlite              the state store: sqlite (in `data`), or
//   etcd://HOST:PORT,...[/PREFIX]
//                              (replicas sharing it elect a leader: server/replica.h)
//   leader-lease: 10s          etcd: the leader's lease; a follower leads this long after it dies
//   advertise: http://...      etcd: this replica's URL, which followers name (default: listen's)
//   policy: archimedes         the engine's policy (engine/policy.h)
//   buffer: 0.1                share of each node kept free of batch for services' peaks
//                              (the policy's own when unset; only policies that keep one)
//   seed: 1                    the engine's tie-breaking between equally scored nodes
//   clock: wall                wall | virtual (time moves only through POST /v1/clock)
//   cycle: 1s                  scheduling cycle: how often the engine places what is pending
//   usage-round: 60s           how often the usage reported by the agents goes to the engine
//   node-grace: 40s            wall clock: a node whose agent is silent this long is NotReady,
//                              with etcd Suspect until MAGI decides (server/node_liveness.h);
//                              0s: never
//   magi-heartbeat: 10s        etcd, wall clock: how often each heard agent's node heartbeat is
//                              renewed for MAGI's members (server/magi_heartbeats.h); 0s: never
//   kube-api: URL              run as Kubernetes' scheduler of pods with `kube-scheduler-name`
//                              (server/kube_scheduler.h): https://HOST:PORT, or in-cluster (the
//                              pod's service account); unset: no Kubernetes API
//   kube-token-file: PATH      bearer token for kube-api (in-cluster: the service account's)
//   kube-ca-file: PATH         CA bundle that signs kube-api's certificate (in-cluster: ditto)
//   kube-scheduler-name: archimedes   spec.schedulerName of the pods it places
//   kube-metrics: 60s          how often PodMetrics are read from metrics.k8s.io (0s: never)
//   max-body: 1Mi              largest request body accepted (413 beyond)
//   http-threads: 64           requests served at once (each waiting long-poll holds one)
#ifndef ARCHIMEDES_SERVER_CONFIG_H_
#define ARCHIMEDES_SERVER_CONFIG_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/policy.h"

namespace archimedes {

class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class ClockMode : uint8_t { kWall, kVirtual };

struct ServerConfig {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string data = "archimedes-data";
  std::string store = "sqlite";
  int64_t leader_lease_s = 10;
  std::string advertise;  // empty: http:// and the address it listens on
  std::string policy = "archimedes";
  std::optional<double> buffer;  // unset: the policy's own
  uint64_t seed = 1;
  ClockMode clock = ClockMode::kWall;
  int64_t cycle_s = 1;
  int64_t usage_round_s = 60;
  // Every this much engine time the engine places by the profiles learned online (0: never; it
  // then places by what PUT /v1/priors sets).
  int64_t adopt_profiles_s = 0;
  int64_t node_grace_s = 40;      // Kubernetes' node-monitor-grace-period
  int64_t magi_heartbeat_s = 10;  // the kubelet's node lease renewal
  std::string kube_api;           // empty: none
  std::string kube_token_file;
  std::string kube_ca_file;
  std::string kube_scheduler_name = "archimedes";
  int64_t kube_metrics_s = 60;
  int64_t max_body_bytes = int64_t{1} << 20;
  // PUT /v1/priors carries a whole profiles file (12 MB for the 200-node generated scenario's
  // services). 0: the store's own limit (kMaxPriorsBytes, or one etcd value with etcd).
  int64_t max_priors_body_bytes = 0;
  int http_threads = 64;
};

inline constexpr int64_t kMaxPriorsBytes = int64_t{256} << 20;

// The largest body PUT /v1/priors takes: max-priors-body, or the store's own limit when unset.
int64_t MaxPriorsBody(const ServerConfig& config);

struct ConfigKey {
  std::string name;
  std::string help;
};
// Every key, in the order the file's comment above lists them.
const std::vector<ConfigKey>& ConfigKeys();

// Sets `key` from its text. Throws ConfigError.
void SetConfigKey(ServerConfig& config, std::string_view key, const std::string& value);

// Throws ConfigError when keys set one by one do not go together (a buffer for a policy that
// keeps none). Call once every key is set.
void CheckConfig(const ServerConfig& config);

// The policy `config` names, with its buffer. Call after CheckConfig.
Policy ConfiguredPolicy(const ServerConfig& config);
// That policy's burst buffer as text ("0.1"), or "none" for a policy that keeps none.
std::string BufferSetting(const ServerConfig& config);

// Applies the YAML file at `path` (one document: a mapping of keys to scalars) to `config`.
// Throws ConfigError naming the file, the line and the key.
void ReadConfigFile(const std::string& path, ServerConfig& config);
// The same for the file's `text`, read from `source`.
void ReadConfigText(const std::string& source, std::string_view text, ServerConfig& config);

// "127.0.0.1:8080".
std::string ListenAddress(const ServerConfig& config);

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_CONFIG_H_
