#include "server/metrics.h"

#include <cstdio>

namespace archimedes {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

void Header(std::string& out, const std::string& name, const char* type, const char* help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void Sample(std::string& out, const std::string& name, const std::string& labels, double v) {
  out += name + (labels.empty() ? "" : "{" + labels + "}") + " " + Number(v) + "\n";
}

// A label value as the exposition format writes it: backslash, quote and newline escaped.
std::string LabelValue(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

}  // namespace

void Histogram::Observe(double seconds) {
  for (size_t i = 0; i < kBounds.size(); ++i) {
    if (seconds <= kBounds[i]) {
      ++buckets_[i];
      break;
    }
  }
  ++count_;
  sum_ += seconds;
}

void Histogram::Write(std::string& out, const std::string& name, const std::string& labels) const {
  const std::string sep = labels.empty() ? "" : labels + ",";
  int64_t cumulative = 0;
  for (size_t i = 0; i < kBounds.size(); ++i) {
    cumulative += buckets_[i];
    Sample(out, name + "_bucket", sep + "le=\"" + Number(kBounds[i]) + "\"",
           static_cast<double>(cumulative));
  }
  Sample(out, name + "_bucket", sep + "le=\"+Inf\"", static_cast<double>(count_));
  Sample(out, name + "_sum", labels, sum_);
  Sample(out, name + "_count", labels, static_cast<double>(count_));
}

void ServerMetrics::ObserveRequest(const std::string& route, const std::string& method, int code,
                                   double seconds) {
  std::lock_guard lock(mu_);
  ++requests_[{route, method, code}];
  request_seconds_[route].Observe(seconds);
}

void ServerMetrics::ObserveCycle(double seconds) {
  std::lock_guard lock(mu_);
  cycle_seconds_.Observe(seconds);
}

void ServerMetrics::CountMagiDecision(const std::string& kind) {
  std::lock_guard lock(mu_);
  ++magi_decisions_[kind];
}

void ServerMetrics::CountKubeRequest(const std::string& call, int code) {
  std::lock_guard lock(mu_);
  ++kube_requests_[{call, code}];
}

void ServerMetrics::SetMagiReviewsPending(int64_t pending) {
  std::lock_guard lock(mu_);
  magi_reviews_pending_ = pending;
}

std::string ServerMetrics::Render(const ControlPlane& plane, const std::string& replica,
                                  bool leading) const {
  std::string out;
  Header(out, "archimedes_leader", "gauge",
         "1 on the replica that applies writes (the etcd lease holder; always with SQLite), "
         "0 on a follower.");
  Sample(out, "archimedes_leader", "replica=\"" + LabelValue(replica) + "\"", leading ? 1 : 0);
  const Engine& engine = plane.engine();
  const EngineStats stats = engine.stats();
  {
    std::lock_guard lock(mu_);
    Header(out, "archimedes_http_requests_total", "counter",
           "HTTP requests by route, method and code.");
    for (const auto& [key, count] : requests_) {
      const auto& [route, method, code] = key;
      Sample(
          out, "archimedes_http_requests_total",
          "route=\"" + route + "\",method=\"" + method + "\",code=\"" + std::to_string(code) + "\"",
          static_cast<double>(count));
    }
    Header(out, "archimedes_http_request_duration_seconds", "histogram",
           "Time from a request's arrival to its answer, by route.");
    for (const auto& [route, histogram] : request_seconds_) {
      histogram.Write(out, "archimedes_http_request_duration_seconds", "route=\"" + route + "\"");
    }
    Header(out, "archimedes_schedule_cycle_duration_seconds", "histogram",
           "Time to advance the clock by one clock event: its scheduling cycles and usage "
           "rounds, and storing the event.");
    cycle_seconds_.Write(out, "archimedes_schedule_cycle_duration_seconds", "");
    Header(out, "archimedes_magi_decisions_total", "counter",
           "Decisions of MAGI's quorum this server received (etcd store), by kind: node-offline, "
           "and migrate (a passed review of moving an offline node's containers).");
    for (const auto& [kind, count] : magi_decisions_) {
      Sample(out, "archimedes_magi_decisions_total", "kind=\"" + kind + "\"",
             static_cast<double>(count));
    }
    Header(out, "archimedes_magi_reviews_pending", "gauge",
           "Nodes MAGI's quorum holds offline whose containers wait for the members' migration "
           "review (they stay until it passes).");
    Sample(out, "archimedes_magi_reviews_pending", "", static_cast<double>(magi_reviews_pending_));
    Header(out, "archimedes_kube_api_requests_total", "counter",
           "Calls of the own scheduler (kube-api) to the Kubernetes API server, by call (list, "
           "watch, binding, eviction, metrics) and HTTP status (0: no answer).");
    for (const auto& [key, count] : kube_requests_) {
      Sample(out, "archimedes_kube_api_requests_total",
             "call=\"" + key.first + "\",code=\"" + std::to_string(key.second) + "\"",
             static_cast<double>(count));
    }
  }
  const std::array<int64_t, 3> by_state = plane.NodesByState();
  Header(out, "archimedes_nodes", "gauge",
         "Nodes by condition: Ready, Suspect (one observer lost it: nothing new placed there, "
         "nothing moved off it) and NotReady.");
  for (const NodeState state : {NodeState::kReady, NodeState::kSuspect, NodeState::kNotReady}) {
    Sample(out, "archimedes_nodes", std::string("condition=\"") + NodeStateName(state) + "\"",
           static_cast<double>(by_state[static_cast<size_t>(state)]));
  }
  Header(out, "archimedes_decision_latency_seconds", "summary",
         "Wall time of one placement decision in the engine.");
  Sample(out, "archimedes_decision_latency_seconds", "quantile=\"0.5\"",
         stats.decision_p50_us / 1e6);
  Sample(out, "archimedes_decision_latency_seconds", "quantile=\"0.99\"",
         stats.decision_p99_us / 1e6);
  Sample(out, "archimedes_decision_latency_seconds_count", "",
         static_cast<double>(stats.decisions));
  Header(out, "archimedes_planner_latency_seconds", "summary",
         "Wall time of one batch-planner call.");
  Sample(out, "archimedes_planner_latency_seconds", "quantile=\"0.5\"", stats.plan_p50_us / 1e6);
  Sample(out, "archimedes_planner_latency_seconds", "quantile=\"0.99\"", stats.plan_p99_us / 1e6);
  Sample(out, "archimedes_planner_latency_seconds_count", "", static_cast<double>(stats.plans));
  Header(out, "archimedes_replan_latency_seconds", "summary", "Wall time of one full re-plan.");
  Sample(out, "archimedes_replan_latency_seconds", "quantile=\"0.5\"", stats.replan_p50_us / 1e6);
  Sample(out, "archimedes_replan_latency_seconds", "quantile=\"0.99\"", stats.replan_p99_us / 1e6);
  Sample(out, "archimedes_replan_latency_seconds_count", "", static_cast<double>(stats.replans));

  const std::array<int64_t, 2> pending = plane.PendingTasksByKind();
  Header(out, "archimedes_queue_depth", "gauge", "Tasks waiting to start, by job kind.");
  Sample(out, "archimedes_queue_depth", "kind=\"serverless\"", static_cast<double>(pending[0]));
  Sample(out, "archimedes_queue_depth", "kind=\"offline\"", static_cast<double>(pending[1]));
  Header(out, "archimedes_jobs", "gauge", "Jobs by phase.");
  for (const auto& [phase, count] : plane.JobsByPhase()) {
    Sample(out, "archimedes_jobs", "phase=\"" + phase + "\"", static_cast<double>(count));
  }

  const std::array<std::array<int64_t, 2>, 2> sla = plane.SlaCounts();
  Header(out, "archimedes_sla_contracts", "gauge",
         "SLA contracts honoured and broken so far, by kind (GET /v1/sla).");
  for (int kind = 0; kind < 2; ++kind) {
    for (int broken = 0; broken < 2; ++broken) {
      Sample(out, "archimedes_sla_contracts",
             std::string("kind=\"") + (kind == 0 ? "service" : "job") + "\",state=\"" +
                 (broken == 0 ? "honoured" : "broken") + "\"",
             static_cast<double>(sla[kind][broken]));
    }
  }

  const ClusterState& state = engine.cluster();
  const std::array<double, kNumDims> usage = plane.ReportedUsage();
  Resources allocatable, requested, capacity;
  int ready = 0;
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    if (!state.ready(n)) continue;
    ++ready;
    allocatable += state.allocatable(n);
    capacity += state.node(n).capacity;
    requested +=
        state.requested(n) +
        (state.accounting() == TaskAccounting::kReclaimed ? state.task_requested(n) : Resources{});
  }
  Header(out, "archimedes_nodes_ready", "gauge", "Nodes ready to take containers.");
  Sample(out, "archimedes_nodes_ready", "", ready);
  Header(out, "archimedes_allocatable", "gauge",
         "Allocatable of the ready nodes per dimension, in canonical units (millicores, bytes, "
         "bytes/s, thousandths of a GPU).");
  Header(out, "archimedes_requested", "gauge",
         "Requests of the containers on ready nodes per dimension, in canonical units.");
  Header(out, "archimedes_allocation_ratio", "gauge", "Requested over allocatable per dimension.");
  Header(out, "archimedes_utilisation_ratio", "gauge",
         "Usage the agents last reported over the ready nodes' capacity, per dimension.");
  for (Dim d : kAllDims) {
    const std::string label = "dimension=\"" + std::string(DimName(d)) + "\"";
    Sample(out, "archimedes_allocatable", label, static_cast<double>(allocatable[d]));
    Sample(out, "archimedes_requested", label, static_cast<double>(requested[d]));
    Sample(out, "archimedes_allocation_ratio", label,
           allocatable[d] > 0
               ? static_cast<double>(requested[d]) / static_cast<double>(allocatable[d])
               : 0.0);
    Sample(out, "archimedes_utilisation_ratio", label,
           capacity[d] > 0 ? usage[static_cast<int>(d)] / static_cast<double>(capacity[d]) : 0.0);
  }
  Header(out, "archimedes_containers", "gauge", "Containers placed.");
  Sample(out, "archimedes_containers", "", state.num_containers());
  Header(out, "archimedes_actions_total", "counter", "Actions the engine took, by kind.");
  for (size_t k = 0; k < plane.action_counts().by_kind.size(); ++k) {
    Sample(out, "archimedes_actions_total",
           "kind=\"" + std::string(ActionKindName(static_cast<ActionKind>(k))) + "\"",
           static_cast<double>(plane.action_counts().by_kind[k]));
  }
  Header(out, "archimedes_events_applied_total", "counter",
         "Events applied since the start, those replayed from the journal included.");
  Sample(out, "archimedes_events_applied_total", "", static_cast<double>(plane.events_applied()));
  Header(out, "archimedes_engine_time_seconds", "gauge", "The engine's clock.");
  Sample(out, "archimedes_engine_time_seconds", "", static_cast<double>(plane.now()));
  return out;
}

}  // namespace archimedes
