// The API's objects as JSON, shaped like Kubernetes objects (docs/api.md): `metadata` (name,
// labels, resourceVersion), `spec` (what the client wants), `status` (what is). Quantities are
// Kubernetes quantity strings ("500m", "4Gi"), durations "90s" / "30m" / "2h".
//
// Decoding is strict (trace/json_reader.h): an unknown field, a wrong type or a bad quantity is an
// ApiError 400 naming its field (`spec.requests.cpu`); a well-formed request that can never be
// carried out (limits below requests, a job model/workload.h's ValidateJob refuses) a 422. A
// `status` sent back with an object is ignored: clients write specs.
#ifndef ARCHIMEDES_SERVER_OBJECTS_H_
#define ARCHIMEDES_SERVER_OBJECTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "model/node.h"
#include "model/resources.h"
#include "model/workload.h"
#include "profile/profile.h"

namespace archimedes {

struct ObjectMeta {
  std::map<std::string, std::string> labels;
  // The version the client read, when it sends one: a write is refused (409) unless it is still
  // the object's.
  std::optional<int64_t> resource_version;
};

struct NodeRequest {
  ObjectMeta meta;
  Node node;  // its labels are the metadata's
  // HOST:PORT where MAGI's members probe the node; "" if none. How (`probe`): "healthz", a TCP
  // connect and GET /healthz (an Archimedes agent), or "tcp", a TCP connect only (a kubelet's
  // port, which answers only TLS with credentials).
  std::string address;
  std::string probe;  // "" exactly when `address` is
};
// `name` is the path's; the body's metadata.name, when given, must equal it.
NodeRequest DecodeNode(const std::string& name, const std::string& body);

// A node's condition: Ready; Suspect (one observer lost it: nothing new goes there, nothing is
// moved off it, docs/magi.md); NotReady (failed: what ran there is placed again).
enum class NodeState : uint8_t { kReady, kSuspect, kNotReady };
const char* NodeStateName(NodeState state);

// PUT /v1/nodes/{name}/status, the status subresource as Kubernetes has one: a Node object whose
// `status.condition` is what counts (`Ready`, `Suspect` or `NotReady`), with an optional
// `status.reason` (why, for people); its `spec` is ignored and the other keys the server shows in
// `status` are read back unchanged. "Removed" is a 422: DELETE removes.
struct NodeStatusRequest {
  ObjectMeta meta;
  NodeState state = NodeState::kReady;
  std::string reason;
};
NodeStatusRequest DecodeNodeStatus(const std::string& name, const std::string& body);

struct ServiceRequest {
  ObjectMeta meta;
  Service service;
  // What a node agent runs for each replica (a shell command line); empty: nothing, the replica
  // is only accounted for (a service some other system starts).
  std::string command;
};
ServiceRequest DecodeService(const std::string& name, const std::string& body);

struct JobRequest {
  ObjectMeta meta;
  BatchJob job;
  // How long after submission the unstarted tasks are given up; nullopt: the default patience.
  std::optional<int64_t> give_up_after_s;
  // Per task, at or above the requests; zero dimensions: the request is the limit (a node agent
  // caps a task's cgroup at it).
  Resources limits;
};
// `name` is the one the server gives the job.
JobRequest DecodeJob(const std::string& name, const std::string& body);

enum class ContainerPhase : uint8_t { kRunning, kSucceeded, kFailed, kOomKilled };
struct ContainerStatusRequest {
  ContainerPhase phase = ContainerPhase::kRunning;
  int exit_code = 0;
};
ContainerStatusRequest DecodeContainerStatus(const std::string& body);

struct UsageReport {
  std::string container;
  Usage usage{};
  double work_done_s = 0;  // tasks: seconds of work done so far
};
std::vector<UsageReport> DecodeUsage(const std::string& body);

// PUT /v1/priors: what the profile-driven strategies place by, learned from history (docs/api.md):
//   {"profiles": a profiles file's document (docs/profiles.md),
//    "taskShapes": [{"requests": {"cpu": "1", "memory": "2Gi"}, "weight": 0.25}, ...]}
// Either key may be left out (none). Shapes are distinct; their weights are the shares of the mix,
// above 0 and summing to 1.
struct PriorsRequest {
  ProfileSet profiles;
  std::vector<std::pair<Resources, double>> task_shapes;
};
PriorsRequest DecodePriors(const std::string& body);
nlohmann::json EncodeTaskShapes(const std::vector<std::pair<Resources, double>>& task_shapes);
// The body DecodePriors reads back to the same profiles and shapes.
nlohmann::json EncodePriors(const ProfileSet& profiles,
                            const std::vector<std::pair<Resources, double>>& task_shapes);

// POST /v1/clock: the time to advance to, absolute (`time`) or relative to `now` (`advance`).
int64_t DecodeClock(const std::string& body, int64_t now);

// POST /v1/clock/drive: a driver that models the world itself (archimedes replay) runs the
// engine's periodic work step by step, as the simulator does (docs/api.md). One of:
//   {"advanceTo": T}                                  time only, no cycle, no usage round
//   {"runThrough": T, "stopAtAction": true}           the cycles of the seconds up to T
//   {"usageRound": "begin", "samples": [...]}         a usage round, its fleet of replicas,
//   {"usageRound": "node", "node": N, "samples": [...]}  then each node with its containers,
//   {"usageRound": "end"}                             then its end
// Samples are exact: {"container", "usage": [numbers in engine units, one per dimension],
// "workDone": seconds, "workTotal": seconds}.
struct DriveSample {
  std::string container;
  Usage usage{};
  double work_done_s = 0;
  int64_t work_total_s = 0;
};
struct DriveRequest {
  enum class Op : uint8_t { kAdvanceTo, kRunThrough, kRoundBegin, kRoundNode, kRoundEnd };
  Op op = Op::kAdvanceTo;
  int64_t time = 0;
  bool stop_at_action = false;
  std::string node;
  std::vector<DriveSample> samples;
};
DriveRequest DecodeDrive(const std::string& body, int64_t now);

// Names: a node's is a DNS subdomain (lowercase letters, digits, '-', '.'; at most 253), a
// service's a DNS label (no '.'; at most 63). Throw a 400 naming the kind and the name.
void CheckNodeName(const std::string& name);
void CheckServiceName(const std::string& name);

nlohmann::json EncodeResources(const Resources& r);
// The specs as the decoders above read them back.
nlohmann::json EncodeNodeSpec(const Node& node);
// `command`, when not empty, as `spec.command`.
nlohmann::json EncodeServiceSpec(const Service& service, const std::string& command = {});
// `limits` shown when any is set.
nlohmann::json EncodeJobSpec(const BatchJob& job, std::optional<int64_t> give_up_after_s,
                             const Resources& limits = {});
// A task's limits: `limits`, its request in each dimension left at zero.
Resources TaskLimits(const Resources& requests, const Resources& limits);

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_OBJECTS_H_
