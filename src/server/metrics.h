// /metrics in the Prometheus text exposition format (version 0.0.4): what the HTTP layer measures
// (requests by route, method and code, with a latency histogram; how long each scheduling cycle
// took) and what the control plane knows (decision and planner latency, queue depth by kind, jobs
// by phase, allocation and utilisation per dimension, evictions and migrations) and whether this
// replica leads. Thread-safe.
#ifndef ARCHIMEDES_SERVER_METRICS_H_
#define ARCHIMEDES_SERVER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "server/control_plane.h"

namespace archimedes {

// Cumulative counts over fixed bucket bounds, in seconds.
class Histogram {
 public:
  static constexpr std::array<double, 12> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                     0.01,   0.025,   0.05,   0.1,   0.25,   1.0};
  void Observe(double seconds);
  // `name`_bucket / _sum / _count lines, with `labels` ("route=\"/v1/jobs\"" or empty).
  void Write(std::string& out, const std::string& name, const std::string& labels) const;

 private:
  std::array<int64_t, kBounds.size()> buckets_{};  // not cumulative; summed when written
  int64_t count_ = 0;
  double sum_ = 0;
};

class ServerMetrics {
 public:
  void ObserveRequest(const std::string& route, const std::string& method, int code,
                      double seconds);
  void ObserveCycle(double seconds);
  // A decision of MAGI's quorum of `kind` ("node-offline" or "migrate") reached this server
  // (server/magi_decisions.h); `pending` nodes held offline wait for the members' migration
  // review.
  void CountMagiDecision(const std::string& kind);
  void SetMagiReviewsPending(int64_t pending);
  // A call of serve's own scheduler to the Kubernetes API server (server/kube_scheduler.h): `call`
  // is list, watch, binding, eviction or metrics; `code` its HTTP status, 0 when none came.
  void CountKubeRequest(const std::string& call, int code);
  // The whole exposition; the caller holds the control plane's lock. `replica` is this
  // process's advertised URL and `leading` whether it applies writes (always, with SQLite): the
  // archimedes_leader gauge, 1 on the one replica that leads and 0 on the others.
  std::string Render(const ControlPlane& plane, const std::string& replica, bool leading) const;

 private:
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int>, int64_t> requests_;
  std::map<std::string, Histogram> request_seconds_;  // by route
  Histogram cycle_seconds_;
  std::map<std::string, int64_t> magi_decisions_ = {{"migrate", 0}, {"node-offline", 0}};
  int64_t magi_reviews_pending_ = 0;
  std::map<std::pair<std::string, int>, int64_t> kube_requests_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_METRICS_H_
