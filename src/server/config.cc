#include "server/config.h"

#include <charconv>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/policy.h"
#include "kube/yaml.h"
#include "model/duration.h"
#include "model/quantity.h"
#include "server/etcd_location.h"
#include "trace/input_file.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

[[noreturn]] void Fail(std::string_view key, const std::string& value, const std::string& why) {
  throw ConfigError(std::string(key) + " \"" + value + "\": " + why);
}

int64_t NonNegativeDuration(std::string_view key, const std::string& value) {
  int64_t seconds = 0;
  try {
    seconds = ParseDuration(value);
  } catch (const DurationError& e) {
    Fail(key, value, e.what());
  }
  if (seconds < 0) Fail(key, value, "must not be negative");
  return seconds;
}

int64_t PositiveDuration(std::string_view key, const std::string& value) {
  const int64_t seconds = NonNegativeDuration(key, value);
  if (seconds == 0) Fail(key, value, "must be at least 1s");
  return seconds;
}

int64_t ParseBodyLimit(std::string_view key, const std::string& value) {
  int64_t bytes = 0;
  try {
    bytes = ParseUnits(value);
  } catch (const QuantityError& e) {
    Fail(key, value, e.what());
  }
  if (bytes < 1024) Fail(key, value, "must be at least 1Ki");
  if (bytes > kMaxPriorsBytes) Fail(key, value, "must be at most 256Mi");
  return bytes;
}

void SetListen(ServerConfig& config, const std::string& value) {
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0) Fail("listen", value, "expected host:port");
  const std::string_view port_text = std::string_view(value).substr(colon + 1);
  int port = -1;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    Fail("listen", value, "the port must be a number in [0, 65535]");
  }
  config.host = value.substr(0, colon);
  config.port = port;
}

}  // namespace

int64_t MaxPriorsBody(const ServerConfig& config) {
  if (config.max_priors_body_bytes > 0) return config.max_priors_body_bytes;
  return IsEtcdStore(config.store) ? kMaxEtcdEventBytes : kMaxPriorsBytes;
}

const std::vector<ConfigKey>& ConfigKeys() {
  static const std::vector<ConfigKey> keys = {
      {"listen", "host:port to listen on (port 0: any free port)"},
      {"data", "folder of the embedded store"},
      {"store", "state store: sqlite, or etcd://HOST:PORT,HOST:PORT,...[/PREFIX] (replicated)"},
      {"leader-lease", "etcd store: the leader's lease TTL, the longest a failover waits (10s)"},
      {"advertise", "etcd store: this replica's URL, named by followers (default: listen's)"},
      {"policy", "the engine's policy"},
      {"buffer",
       "share of each node kept free of batch for services' peaks, in [0, 0.9] "
       "(default: the policy's own; reclaim and archimedes keep one)"},
      {"seed", "the engine's tie-breaking between equally scored nodes (a whole number)"},
      {"clock", "wall, or virtual: time moves only through POST /v1/clock"},
      {"cycle", "scheduling cycle period (a duration: 1s)"},
      {"usage-round", "how often reported usage goes to the engine (a duration: 60s)"},
      {"adopt-profiles",
       "every this much, the engine places by the profiles learned online (a duration; 0s: "
       "never, it places by PUT /v1/priors)"},
      {"node-grace",
       "wall clock: a node whose agent is silent this long turns NotReady, its containers placed "
       "again; with etcd only Suspect until MAGI's quorum decides (a duration: 40s; 0s: never)"},
      {"magi-heartbeat",
       "etcd, wall clock: how often the heartbeat of each node whose agent is heard is renewed "
       "for MAGI's members, who count a fresh one as proof of life (a duration: 10s; 0s: never)"},
      {"kube-api",
       "run as Kubernetes' scheduler of the pods with kube-scheduler-name: the API server's URL "
       "(https://HOST:PORT), or in-cluster (the pod's service account)"},
      {"kube-token-file", "bearer token file for kube-api (in-cluster: the service account's)"},
      {"kube-ca-file", "CA bundle of kube-api's certificate (in-cluster: the service account's)"},
      {"kube-scheduler-name", "spec.schedulerName of the pods kube-api mode places (archimedes)"},
      {"kube-metrics",
       "kube-api: how often pod usage is read from metrics.k8s.io into the profiles (a duration: "
       "60s; 0s: never)"},
      {"max-body", "largest request body accepted, a quantity (1Mi); larger ones get 413"},
      {"max-priors-body",
       "largest PUT /v1/priors body (profiles and task shapes), a quantity (256Mi; with etcd at "
       "most, and by default, 1Mi)"},
      {"http-threads", "requests served at once; each waiting long-poll holds one"},
  };
  return keys;
}

void SetConfigKey(ServerConfig& config, std::string_view key, const std::string& value) {
  if (key == "listen") {
    SetListen(config, value);
  } else if (key == "data") {
    if (value.empty()) Fail(key, value, "must name a folder");
    config.data = value;
  } else if (key == "store") {
    if (IsEtcdStore(value)) {
      try {
        ParseEtcdLocation(value);
      } catch (const std::invalid_argument& e) {
        Fail(key, value, e.what());
      }
    } else if (value != "sqlite") {
      Fail(key, value, "unknown store; use sqlite or etcd://HOST:PORT,HOST:PORT,...");
    }
    config.store = value;
  } else if (key == "leader-lease") {
    config.leader_lease_s = PositiveDuration(key, value);
    if (config.leader_lease_s < 2) Fail(key, value, "must be at least 2s (etcd's shortest lease)");
  } else if (key == "advertise") {
    if (!value.starts_with("http://") || value.size() == 7) {
      Fail(key, value, "expected http://HOST:PORT");
    }
    config.advertise = value;
  } else if (key == "policy") {
    try {
      MakePolicy(value);
    } catch (const std::invalid_argument& e) {
      Fail(key, value, e.what());
    }
    config.policy = value;
  } else if (key == "buffer") {
    double buffer = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), buffer);
    if (ec != std::errc() || end != value.data() + value.size() || !(buffer >= 0) ||
        buffer > kMaxBuffer) {
      Fail(key, value, "expected a share of capacity in [0, 0.9], such as 0.1");
    }
    config.buffer = buffer;
  } else if (key == "seed") {
    uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seed);
    if (ec != std::errc() || end != value.data() + value.size()) {
      Fail(key, value, "expected a whole number");
    }
    config.seed = seed;
  } else if (key == "clock") {
    if (value == "wall") {
      config.clock = ClockMode::kWall;
    } else if (value == "virtual") {
      config.clock = ClockMode::kVirtual;
    } else {
      Fail(key, value, "expected wall or virtual");
    }
  } else if (key == "cycle") {
    config.cycle_s = PositiveDuration(key, value);
  } else if (key == "usage-round") {
    config.usage_round_s = PositiveDuration(key, value);
  } else if (key == "adopt-profiles") {
    config.adopt_profiles_s = NonNegativeDuration(key, value);
  } else if (key == "node-grace") {
    config.node_grace_s = NonNegativeDuration(key, value);
  } else if (key == "magi-heartbeat") {
    config.magi_heartbeat_s = NonNegativeDuration(key, value);
  } else if (key == "kube-api") {
    if (value != "in-cluster" && !value.starts_with("https://") && !value.starts_with("http://")) {
      Fail(key, value, "expected https://HOST:PORT, http://HOST:PORT or in-cluster");
    }
    config.kube_api = value;
  } else if (key == "kube-token-file") {
    config.kube_token_file = value;
  } else if (key == "kube-ca-file") {
    config.kube_ca_file = value;
  } else if (key == "kube-scheduler-name") {
    if (value.empty()) Fail(key, value, "must name the scheduler pods ask for");
    config.kube_scheduler_name = value;
  } else if (key == "kube-metrics") {
    config.kube_metrics_s = NonNegativeDuration(key, value);
  } else if (key == "max-body") {
    config.max_body_bytes = ParseBodyLimit(key, value);
  } else if (key == "max-priors-body") {
    config.max_priors_body_bytes = ParseBodyLimit(key, value);
  } else if (key == "http-threads") {
    int threads = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), threads);
    if (ec != std::errc() || end != value.data() + value.size() || threads < 2 || threads > 4096) {
      Fail(key, value, "expected a whole number in [2, 4096]");
    }
    config.http_threads = threads;
  } else {
    std::string known;
    for (const ConfigKey& k : ConfigKeys()) known += (known.empty() ? "" : ", ") + k.name;
    throw ConfigError("unknown key \"" + std::string(key) + "\" (known: " + known + ")");
  }
}

void CheckConfig(const ServerConfig& config) {
  try {
    ConfiguredPolicy(config);
  } catch (const std::invalid_argument& e) {
    Fail("buffer", nlohmann::json(*config.buffer).dump(), e.what());
  }
}

Policy ConfiguredPolicy(const ServerConfig& config) {
  return MakePolicy(config.policy, config.buffer);
}

std::string BufferSetting(const ServerConfig& config) {
  const Policy policy = ConfiguredPolicy(config);
  return policy.keeps_buffer ? nlohmann::json(policy.buffer).dump() : "none";
}

void ReadConfigFile(const std::string& path, ServerConfig& config) {
  std::string text;
  try {
    std::ifstream in = OpenInputFile(path);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw TraceError(path, 0, "read error");
  } catch (const TraceError& e) {
    throw ConfigError("cannot read " + std::string(e.what()));
  }
  ReadConfigText(path, text, config);
}

void ReadConfigText(const std::string& source, std::string_view text, ServerConfig& config) {
  YamlDocuments docs;
  try {
    docs = ParseYaml(source, text);
  } catch (const YamlError& e) {
    throw ConfigError(e.what());
  }
  if (docs.empty() || (docs.size() == 1 && docs[0].IsNull())) return;  // nothing set
  if (docs.size() > 1) {
    throw ConfigError(source + ":" + std::to_string(docs[1].line) +
                      ": a second document; the settings are one mapping");
  }
  const YamlNode& root = docs[0];
  if (root.kind != YamlNode::Kind::kMapping) {
    throw ConfigError(source + ":" + std::to_string(root.line) +
                      ": expected a mapping of keys to values");
  }
  std::map<std::string, int64_t> seen;  // key → its line
  for (const YamlEntry& entry : root.entries) {
    const std::string where = source + ":" + std::to_string(entry.line) + ": ";
    if (const auto [first, added] = seen.emplace(entry.key, entry.line); !added) {
      throw ConfigError(where + "\"" + entry.key + "\" is set twice (first at line " +
                        std::to_string(first->second) + ")");
    }
    if (!entry.value->IsScalar() || entry.value->IsNull()) {
      throw ConfigError(where + "expected key: value with a plain value");
    }
    try {
      SetConfigKey(config, entry.key, entry.value->text);
    } catch (const ConfigError& e) {
      throw ConfigError(where + e.what());
    }
  }
}

std::string ListenAddress(const ServerConfig& config) {
  return config.host + ":" + std::to_string(config.port);
}

}  // namespace archimedes
