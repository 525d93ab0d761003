// The engine as the service runs it (DESIGN §10): the one place that changes the service's state.
// Every mutation is an Event; Apply checks it against the state (throwing ApiError with nothing
// changed), stores it in the journal, then applies it to the engine and to the records the API
// shows (names, specs, versions, the containers' names, the actions handed to each node). Replaying
// the journal through the same code rebuilds the same state: the engine is deterministic, so its
// actions come out again in the same order with the same sequence numbers, and an agent resumes
// where it was.
//
// Time is the engine's, in whole seconds; only clock events move it. Advancing to T runs, for each
// second s not yet run before T (at most the last kMaxCatchUpSeconds of them), what the simulator
// runs at s after that second's events: a scheduling cycle when s is a multiple of the cycle, a
// usage round (the usage last reported for each container) when it is a multiple of the round.
// Events apply at the current time; the next second's cycle places what they asked for.
//
// Not thread-safe: the HTTP layer serialises calls.
#ifndef ARCHIMEDES_SERVER_CONTROL_PLANE_H_
#define ARCHIMEDES_SERVER_CONTROL_PLANE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "profile/profiler.h"
#include "server/event.h"
#include "server/journal.h"
#include "server/objects.h"

namespace archimedes {

inline constexpr int64_t kMaxCatchUpSeconds = 300;

struct PlaneOptions {
  int64_t cycle_s = 1;
  int64_t usage_round_s = 60;
  // At the first usage round at or after each multiple, the engine takes as its priors the
  // profiles learned so far and the mix of the shapes asked for so far; 0: never.
  int64_t adopt_profiles_s = 0;
  uint64_t seed = 1;  // the engine's tie-breaking (EngineOptions::seed)
};

// An answer: an HTTP status and the object (a JSON string is sent as plain text). clang-tidy
// reads nlohmann::json's invariant checks in the implicit moves as throwing; they are not.
struct Reply {  // NOLINT(bugprone-exception-escape)
  int status = 200;
  nlohmann::json body;
};

// What /metrics counts of the actions taken.
struct ActionCounts {
  std::array<int64_t, 9> by_kind{};  // indexed by ActionKind
};

class ControlPlane {
 public:
  ControlPlane(const Policy& policy, PlaneOptions options);

  // Rebuilds the state from `journal`'s events, then journals every event applied from now on.
  // Returns the number of events replayed.
  int64_t Restore(Journal& journal);
  // Applies event `seq` of the journal as stored, without journalling it: replaying, or following
  // the leader's log (server/replica.h). Throws JournalError when it is not the event after the
  // last one applied, or was applied at another time.
  void Follow(int64_t seq, const Event& event);
  // From now on journals every event applied in `journal`, which holds every one applied so far.
  void Lead(Journal& journal);
  // The journal number of the last event applied.
  int64_t applied_seq() const { return event_seq_; }

  // Checks, journals and applies `event` (its time is set to now), returning the reply and the
  // event's journal number (0: nothing to store), for the caller to Sync before it answers.
  // Throws ApiError, with nothing changed.
  Reply Apply(Event event, int64_t* journal_seq);

  nlohmann::json ListNodes() const;
  nlohmann::json GetNode(const std::string& name) const;
  nlohmann::json ListServices() const;
  nlohmann::json GetService(const std::string& name) const;
  // `phase` empty: every job.
  nlohmann::json ListJobs(const std::string& phase) const;
  nlohmann::json GetJob(const std::string& name) const;
  // The batch plan (Engine::plan()): every pending task's place, on node `node` only when not
  // empty (throws ApiError 404 for a node that is not in the fleet).
  nlohmann::json Plan(const std::string& node) const;
  // Every contract, of the live services and of every job, as the engine records it
  // (Engine::service_sla, Engine::job_sla): target, achieved so far, breaches with reason and time;
  // `kind` "service" or "job" keeps one kind (throws ApiError 400 for another word).
  nlohmann::json Sla(const std::string& kind) const;
  // Contracts honoured and broken so far: {service, job} × {honoured, broken}.
  std::array<std::array<int64_t, 2>, 2> SlaCounts() const;
  // The application profiles learned online (profile/profiler.h) from every usage sample of a
  // service replica (POST /v1/usage, driven usage rounds), with the services' requests, limits and
  // replicas and the largest node. Rebuilt when read, at most once per usage round of the engine's
  // clock and only when samples came since: {"kind": "ProfileList", "builtAt", "samples", and the
  // profiles file's keys (docs/profiles.md)}.
  nlohmann::json Profiles() const;
  // What the engine places by: {"kind": "Priors", "setAt" (null before any), "source" ("request":
  // PUT /v1/priors; "learned": adopted from the online profiles), "profiles": {"applications",
  // "classes", "bins"}, "taskShapes"}.
  const nlohmann::json& Priors() const { return priors_; }
  // One application's profile, its class and its health warnings. Throws ApiError 404 for an
  // application without samples in the last build.
  nlohmann::json Profile(const std::string& app) const;
  // The stored actions for node `name` (those of events on disk: an agent never sees an action a
  // crash could take back) with a sequence number above `after`, oldest first, at most `limit`:
  // {"items": [...], "lastSeq": N}. Throws ApiError 404 for a node never added.
  nlohmann::json NodeActions(const std::string& name, int64_t after, int limit);
  // Every stored action, of every node and of none (a job reported late or rejected, a scale-out),
  // with a sequence number above `after`, oldest first, at most `limit`: {"items", "lastSeq"}.
  nlohmann::json FleetActions(int64_t after, int limit);
  // The last action sequence number handed out (0: none yet), and the last one stored.
  int64_t last_seq() const { return last_seq_; }
  int64_t stored_seq();

  // The engine's id of live node `name`, or -1 (never added, or removed).
  NodeId NodeIdOf(const std::string& name) const;
  // The engine's id of job `name`. Throws ApiError 404 for a job never submitted.
  int32_t JobIdOf(const std::string& name) const { return FindJob(name); }
  int64_t now() const { return engine_.now(); }
  const Engine& engine() const { return engine_; }
  const ActionCounts& action_counts() const { return counts_; }
  // Pending tasks per job kind (serverless, offline), and jobs per phase.
  std::array<int64_t, 2> PendingTasksByKind() const;
  std::map<std::string, int64_t> JobsByPhase() const;
  // The sum of the usage last reported for each container placed now.
  std::array<double, kNumDims> ReportedUsage() const;
  // The condition of node `name`; nullopt when there is no such node (never added, or removed).
  std::optional<NodeState> NodeStateOf(const std::string& name) const;
  // Nodes (not removed) by condition, indexed by NodeState.
  std::array<int64_t, 3> NodesByState() const;
  // Events applied since the start, the replayed ones included.
  int64_t events_applied() const { return events_applied_; }

 private:
  struct NodeRecord {
    NodeId id = -1;
    int64_t version = 0;
    bool removed = false;
    bool suspect = false;  // not ready, yet what runs there stays (NodeState::kSuspect)
    std::string address;   // where MAGI's members probe it, and how (NodeRequest)
    std::string probe;
    std::string reason;  // why it has its condition (NodeStatusRequest::reason)
  };
  // A container that ended badly, as its agent reported it (Kubernetes' lastState.terminated).
  struct Termination {
    int count = 0;  // containers of the owner that failed or were OOM-killed so far
    std::string container;
    std::string reason;  // Failed, OOMKilled
    int exit_code = 0;
    int64_t time = 0;
  };
  struct ServiceRecord {
    int32_t id = -1;
    int64_t version = 0;
    std::map<std::string, std::string> labels;
    Service spec;
    std::string command;  // what an agent runs per replica
    Termination terminated;
  };
  struct JobRecord {
    BatchJob job;
    std::map<std::string, std::string> labels;
    std::optional<int64_t> give_up_after_s;
    Resources limits;  // per task; zero dimensions: its request
    Termination terminated;
    int64_t version = 0;
    int64_t submitted = 0;
    int64_t give_up_at = 0;
    bool cancelled = false;
    std::string rejected;  // why the engine refused it
    int late_tasks = 0;
    int64_t expected_start = -1;
    std::string idempotency_key;
    std::string canonical_body;  // to tell a retry from another request under the same key
  };
  struct ContainerRecord {
    std::string name;      // empty: no container of the API holds this engine id
    bool running = false;  // its agent reported it Running
    bool has_usage = false;
    UsageSample usage;
  };
  struct ActionRecord {
    int64_t seq;
    nlohmann::json body;
  };

  static void AddTermination(const Termination& t, nlohmann::json& status);
  Reply Dispatch(const Event& event);
  // Journals `event` when live; the version of the objects it changes.
  int64_t Commit(const Event& event);

  Reply PutNode(const Event& event);
  Reply DeleteNode(const Event& event);
  Reply NodeStatus(const Event& event);
  // Before node `node` fails: tells its agent that every container on it is gone, an Evict
  // (reason NodeFailed) each, numbered as actions are, so that an agent that comes back stops
  // what it still runs. The engine ends them without an action (its world lost them).
  void RecordLost(NodeId node);
  // Action `a`, numbered `seq`, into the action logs (its node's, when it has one, and the
  // whole), its container forgotten when it ends.
  void Publish(const Action& a, int64_t seq);
  Reply PutService(const Event& event);
  Reply DeleteService(const Event& event);
  Reply SubmitJob(const Event& event);
  Reply CancelJob(const Event& event);
  Reply ContainerStatus(const Event& event);
  Reply ReportUsage(const Event& event);
  Reply AdvanceClock(const Event& event);
  Reply PutPriors(const Event& event);
  Reply Drive(const Event& event);
  void RunUsageRound();
  // The engine takes the profiles learned online as its priors, when adoption is due.
  void AdoptLearnedProfiles();
  // The profiler learns of a service (its requests, limits, replicas), a node (the largest yet),
  // a container's usage now.
  void ProfileService(const Service& spec, const std::string& name);
  void ProfileNode(const Node& node);
  void ProfileUsage(ContainerId id, const Usage& usage);
  // The profiles as of the last build, rebuilt first when due (Profiles()).
  const nlohmann::json& BuiltProfiles() const;

  // Turns the engine's new actions into records and sequence numbers, then clears them.
  void Drain();
  nlohmann::json ActionJson(const Action& a, int64_t seq) const;

  const NodeRecord& FindNode(const std::string& name) const;
  const ServiceRecord& FindService(const std::string& name) const;
  int32_t FindJob(const std::string& name) const;
  ContainerId FindContainer(const std::string& name) const;

  NodeState StateOf(const NodeRecord& r) const;
  nlohmann::json NodeJson(const std::string& name, const NodeRecord& r) const;
  nlohmann::json ServiceJson(const std::string& name, const ServiceRecord& r) const;
  // `places`: the job's places in the engine's plan.
  nlohmann::json JobJson(int32_t id) const;
  nlohmann::json JobJson(int32_t id, std::span<const PlannedTask> places) const;
  std::string JobPhase(int32_t id) const;
  std::string JobPhase(int32_t id, std::span<const PlannedTask> places) const;

  Engine engine_;
  PlaneOptions options_;
  Journal* journal_ = nullptr;  // null while replaying
  int64_t event_seq_ = 0;       // the journal's sequence number of the event being applied
  int64_t events_applied_ = 0;
  int64_t next_tick_ = 0;  // the first second whose cycle has not run
  int64_t last_seq_ = 0;
  // (journal number of an event, last action sequence number after it), for the events not known
  // to be on disk yet; and the last action sequence number of the events on disk.
  std::deque<std::pair<int64_t, int64_t>> pending_marks_;
  int64_t stored_seq_ = 0;
  ActionCounts counts_;

  std::map<std::string, NodeRecord> nodes_;  // every node ever added, by name (the latest)
  std::vector<std::string> node_names_;      // by engine id
  // The records appended as requests come are deques: a vector's doubling would stall every
  // request waiting on the lock while it copies all the records so far.
  std::vector<std::deque<ActionRecord>> node_actions_;  // by engine id
  std::deque<ActionRecord> actions_;                    // all, by sequence number
  bool round_open_ = false;                        // a driven usage round has begun and not ended
  std::map<std::string, ServiceRecord> services_;  // live services by name
  std::vector<std::string> service_names_;         // by engine id
  std::deque<JobRecord> jobs_;                     // by engine id
  std::unordered_map<std::string, int32_t> jobs_by_key_;
  std::deque<ContainerRecord> containers_;  // by engine id
  std::unordered_map<std::string, ContainerId> container_ids_;
  std::vector<UsageSample> fleet_samples_, node_samples_;

  nlohmann::json priors_;
  std::vector<std::pair<Resources, double>> task_shapes_;  // of the priors set last
  int64_t next_adoption_ = 0;

  Profiler profiler_;
  std::array<double, kNumDims> largest_node_{};
  // The last build of the profiles, a cache of profiler_ (reads hold the HTTP layer's lock).
  mutable nlohmann::json profiles_;
  mutable int64_t profiles_built_at_ = 0;
  mutable int64_t profiles_samples_ = -1;  // of the profiler at the last build; -1: none yet
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_CONTROL_PLANE_H_
