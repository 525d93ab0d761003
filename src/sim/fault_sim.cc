#include "sim/fault_sim.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <utility>

#include "magi/member.h"
#include "magi/observer.h"
#include "model/quantile.h"
#include "model/text_table.h"
#include "sched/framework.h"
#include "sched/kubernetes_scheduler.h"
#include "sim/fault_review.h"
#include "store/memory_store.h"

namespace archimedes {
namespace {

using nlohmann::json;

// A fault's effect switching on (`start`) or off at `time`. A flap gives one pair per down phase.
struct Edge {
  int64_t time = 0;
  bool start = false;
  int fault = 0;
};

// One crash of one node: from the first crash fault to the last recovery.
struct CrashEpisode {
  NodeId node = -1;
  int64_t start = 0;
  int64_t end = kForever;
};

// The ground truth: what is up, what is cut, and when each heartbeat last reached the API server.
class World {
 public:
  World(const std::vector<Node>& nodes, const std::vector<Fault>& faults,
        const SingleObserverParams& single, int64_t duration)
      : nodes_(nodes), heartbeat_interval_(single.heartbeat_interval_s) {
    std::map<std::string, int> pod_index;
    for (NodeId n = 0; n < std::ssize(nodes); ++n) {
      node_index_[nodes[n].name] = n;
      auto [it, inserted] = pod_index.try_emplace(nodes[n].pod, std::ssize(pod_names_));
      if (inserted) {
        pod_names_.push_back(nodes[n].pod);
        pod_nodes_.emplace_back();
      }
      pod_of_.push_back(it->second);
      pod_nodes_[it->second].push_back(n);
    }
    const size_t num_nodes = nodes.size();
    down_.assign(num_nodes, 0);
    net_down_.assign(num_nodes, 0);
    api_cut_.assign(num_nodes, 0);
    pod_cuts_on_.assign(num_nodes, 0);
    isolated_.assign(pod_names_.size(), 0);
    // Kubelets renew their leases at spread-out phases.
    phase_.resize(num_nodes);
    last_heartbeat_.resize(num_nodes);
    for (size_t n = 0; n < num_nodes; ++n) {
      phase_[n] = static_cast<int64_t>(n) % heartbeat_interval_;
      last_heartbeat_[n] = phase_[n] - heartbeat_interval_;
    }
    current_episode_.assign(num_nodes, -1);

    for (int i = 0; i < std::ssize(faults); ++i) {
      const Fault& f = faults[i];
      Resolve(f);
      const int64_t end = f.duration == kForever ? kForever : f.at + f.duration;
      if (f.at >= duration) continue;
      if (f.kind != FaultKind::kFlap) {
        edges_.push_back({f.at, true, i});
        if (end < duration) edges_.push_back({end, false, i});
        continue;
      }
      for (int64_t t = f.at; t < std::min(end, duration); t += f.period) {
        edges_.push_back({t, true, i});
        const int64_t up = std::min(t + f.down, end);
        if (up < duration) edges_.push_back({up, false, i});
      }
    }
    // At one instant, links come back before others break: a fault that ends exactly when
    // another starts leaves no gap and no overlap.
    std::stable_sort(edges_.begin(), edges_.end(), [](const Edge& a, const Edge& b) {
      return a.time != b.time ? a.time < b.time : (!a.start && b.start);
    });
  }

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  int num_pods() const { return static_cast<int>(pod_names_.size()); }
  const Node& node(NodeId n) const { return nodes_[n]; }
  int pod_of(NodeId n) const { return pod_of_[n]; }
  const std::vector<NodeId>& pod_nodes(int pod) const { return pod_nodes_[pod]; }
  NodeId NodeIndex(const std::string& name) const { return node_index_.at(name); }
  const std::string& pod_name(int pod) const { return pod_names_[pod]; }
  int PodIndex(const std::string& pod) const {
    auto it = std::find(pod_names_.begin(), pod_names_.end(), pod);
    if (it == pod_names_.end()) throw std::invalid_argument("unknown POD \"" + pod + "\"");
    return static_cast<int>(it - pod_names_.begin());
  }

  bool Up(NodeId n) const { return down_[n] == 0; }
  bool PodIsolated(int pod) const { return isolated_[pod] > 0; }
  // Clients live everywhere; a node serves while it is up and not cut off from the rest.
  bool Serving(NodeId n) const { return Up(n) && net_down_[n] == 0 && !PodIsolated(pod_of_[n]); }
  bool HeartbeatPathOk(NodeId n) const { return Serving(n) && api_cut_[n] == 0; }
  bool Reaches(int pod, NodeId n) const {
    if (!Up(n) || net_down_[n] > 0) return false;
    if (pod_cuts_on_[n] > 0) {
      auto it = pod_cut_.find({pod, n});
      if (it != pod_cut_.end() && it->second > 0) return false;
    }
    return pod == pod_of_[n] || (!PodIsolated(pod) && !PodIsolated(pod_of_[n]));
  }

  int64_t HeartbeatAge(NodeId n, int64_t t) const {
    if (!HeartbeatPathOk(n)) return t - last_heartbeat_[n];
    return t - std::max(last_heartbeat_[n], LastScheduledBeat(n, t));
  }

  // Nodes some POD may fail to reach, nodes not serving, nodes whose heartbeats do not arrive.
  const std::set<NodeId>& suspects() const { return suspects_; }
  const std::set<NodeId>& not_serving() const { return not_serving_; }
  const std::set<NodeId>& heartbeat_broken() const { return heartbeat_broken_; }
  const std::vector<CrashEpisode>& episodes() const { return episodes_; }
  int current_episode(NodeId n) const { return current_episode_[n]; }

  struct Change {
    std::vector<NodeId> crashed;    // went down
    std::vector<NodeId> recovered;  // came back up
  };

  // Applies every edge at `t`.
  Change Advance(int64_t t, const std::vector<Fault>& faults) {
    Change change;
    for (; next_edge_ < edges_.size() && edges_[next_edge_].time <= t; ++next_edge_) {
      const Edge& e = edges_[next_edge_];
      const Fault& f = faults[e.fault];
      const int delta = e.start ? 1 : -1;
      std::vector<NodeId> touched;
      if (f.kind == FaultKind::kPodIsolated) {
        touched = pod_nodes_[PodIndex(f.pod)];
      } else {
        touched = {node_index_.at(f.node)};
      }
      std::vector<uint8_t> path_ok_before;
      path_ok_before.reserve(touched.size());
      for (NodeId n : touched) path_ok_before.push_back(HeartbeatPathOk(n));
      const NodeId n = touched.front();
      const bool up_before = Up(n);
      switch (f.kind) {
        case FaultKind::kCrash:
          down_[n] += delta;
          break;
        case FaultKind::kApiCut:
          api_cut_[n] += delta;
          break;
        case FaultKind::kPodCut:
          CutPod(PodIndex(f.pod), n, delta);
          break;
        case FaultKind::kPodIsolated:
          isolated_[PodIndex(f.pod)] += delta;
          break;
        case FaultKind::kFlap:
          switch (f.link) {
            case FlapLink::kApi:
              api_cut_[n] += delta;
              break;
            case FlapLink::kPod:
              CutPod(PodIndex(f.pod), n, delta);
              break;
            case FlapLink::kNode:
              net_down_[n] += delta;
              break;
          }
          break;
      }
      if (f.kind == FaultKind::kCrash && up_before != Up(n)) {
        if (!Up(n)) {
          current_episode_[n] = static_cast<int>(episodes_.size());
          episodes_.push_back({n, t, kForever});
          change.crashed.push_back(n);
        } else {
          episodes_[current_episode_[n]].end = t;
          current_episode_[n] = -1;
          change.recovered.push_back(n);
        }
      }
      for (size_t i = 0; i < touched.size(); ++i) Refresh(touched[i], t, path_ok_before[i] != 0);
    }
    return change;
  }

 private:
  void Resolve(const Fault& f) const {
    if (f.kind != FaultKind::kPodIsolated && !node_index_.count(f.node)) {
      throw std::invalid_argument(DescribeFault(f) + ": unknown node \"" + f.node + "\"");
    }
    if (!f.pod.empty() &&
        std::find(pod_names_.begin(), pod_names_.end(), f.pod) == pod_names_.end()) {
      throw std::invalid_argument(DescribeFault(f) + ": unknown POD \"" + f.pod + "\"");
    }
    if (f.kind == FaultKind::kFlap && (f.period <= f.down || f.down <= 0)) {
      throw std::invalid_argument(DescribeFault(f) + ": need 0 < down < period");
    }
  }

  void CutPod(int pod, NodeId n, int delta) {
    pod_cut_[{pod, n}] += delta;
    pod_cuts_on_[n] += delta;
  }

  int64_t LastScheduledBeat(NodeId n, int64_t t) const {
    const int64_t since =
        ((t - phase_[n]) % heartbeat_interval_ + heartbeat_interval_) % heartbeat_interval_;
    return t - since;
  }

  // Keeps the heartbeat record and the derived sets right after node `n`'s links changed at `t`.
  void Refresh(NodeId n, int64_t t, bool path_ok_before) {
    const bool path_ok = HeartbeatPathOk(n);
    if (path_ok_before && !path_ok) {
      last_heartbeat_[n] = std::max(last_heartbeat_[n], LastScheduledBeat(n, t - 1));
    } else if (!path_ok_before && path_ok) {
      // The kubelet retries a failed renewal within a second or so of the link returning.
      last_heartbeat_[n] = t;
    }
    auto set_member = [n](std::set<NodeId>& set, bool in) {
      if (in) {
        set.insert(n);
      } else {
        set.erase(n);
      }
    };
    set_member(heartbeat_broken_, !path_ok);
    set_member(not_serving_, !Serving(n));
    set_member(suspects_, !Serving(n) || pod_cuts_on_[n] > 0);
  }

  const std::vector<Node>& nodes_;
  const int64_t heartbeat_interval_;
  std::map<std::string, NodeId> node_index_;
  std::vector<std::string> pod_names_;
  std::vector<std::vector<NodeId>> pod_nodes_;
  std::vector<int> pod_of_;
  std::vector<int> down_, net_down_, api_cut_, pod_cuts_on_, isolated_;
  std::map<std::pair<int, NodeId>, int> pod_cut_;
  std::vector<int64_t> phase_, last_heartbeat_;
  std::set<NodeId> suspects_, not_serving_, heartbeat_broken_;
  std::vector<CrashEpisode> episodes_;
  std::vector<int> current_episode_;
  std::vector<Edge> edges_;
  size_t next_edge_ = 0;
};

// What one member sees of the world (magi/observer.h). The round landing at `now` was sent
// ceil(probe_timeout) earlier; a probe fails iff, when its answer is due, the node is down or a
// fault cuts the member's POD from it. Heartbeat ages come from the API server, out of reach of an
// isolated POD.
class WorldObserver : public magi::NodeObserver {
 public:
  WorldObserver(const World& world, int pod, int64_t probe_timeout_ms)
      : world_(world),
        pod_(pod),
        timeout_error_("probe timed out after " + std::to_string(probe_timeout_ms) + " ms") {}

  // The member's nodes are the world's, in NodeId order. Only the world's suspects can fail to
  // answer a member whose POD is not isolated.
  std::vector<magi::MissedProbe> ProbeAll(const std::vector<magi::NodeTarget>& /*nodes*/,
                                          int64_t /*now*/) override {
    std::vector<magi::MissedProbe> missed;
    auto probe = [&](NodeId n) {
      if (!world_.Reaches(pod_, n)) {
        missed.push_back({static_cast<size_t>(n), {false, false, timeout_error_}});
      }
    };
    if (world_.PodIsolated(pod_)) {
      for (NodeId n = 0; n < world_.num_nodes(); ++n) probe(n);
    } else {
      for (NodeId n : world_.suspects()) probe(n);
    }
    return missed;
  }

  std::vector<std::optional<int64_t>> HeartbeatAges(const std::vector<std::string>& nodes,
                                                    int64_t now) override {
    std::vector<std::optional<int64_t>> ages(nodes.size());
    if (world_.PodIsolated(pod_)) return ages;
    for (size_t i = 0; i < nodes.size(); ++i) {
      ages[i] = world_.HeartbeatAge(world_.NodeIndex(nodes[i]), now);
    }
    return ages;
  }

 private:
  const World& world_;
  const int pod_;
  const std::string timeout_error_;
};

// A member's path to the store. The store sits outside every POD, beside the API server, so the
// member of an isolated POD cannot reach it and, as MagiMember's contract has it, cannot vote.
class StoreLink : public KvStore {
 public:
  StoreLink(KvStore& store, const World& world, int pod)
      : store_(store), world_(world), pod_(pod) {}

  const std::string& name() const override { return store_.name(); }
  int64_t Put(const std::string& key, const std::string& value, int64_t lease = 0) override {
    Check("put");
    return store_.Put(key, value, lease);
  }
  std::optional<KeyValue> Get(const std::string& key) override {
    Check("get");
    return store_.Get(key);
  }
  std::vector<KeyValue> GetPrefix(const std::string& prefix) override {
    Check("get prefix");
    return store_.GetPrefix(prefix);
  }
  std::vector<KeyValue> GetPrefixKeys(const std::string& prefix) override {
    Check("get prefix keys");
    return store_.GetPrefixKeys(prefix);
  }
  std::vector<KeyValue> GetRange(const std::string& from, const std::string& end,
                                 int64_t limit) override {
    Check("get range");
    return store_.GetRange(from, end, limit);
  }
  int64_t Delete(const std::string& key) override {
    Check("delete");
    return store_.Delete(key);
  }
  int64_t DeletePrefix(const std::string& prefix) override {
    Check("delete prefix");
    return store_.DeletePrefix(prefix);
  }
  CreateResult CreateIfAbsent(const std::string& key, const std::string& value,
                              int64_t lease = 0) override {
    Check("create");
    return store_.CreateIfAbsent(key, value, lease);
  }
  TxnResult Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                const std::vector<TxnOp>& failure) override {
    Check("txn");
    return store_.Txn(compares, success, failure);
  }
  int64_t GrantLease(int64_t ttl_seconds) override {
    Check("grant lease");
    return store_.GrantLease(ttl_seconds);
  }
  int64_t KeepAlive(int64_t lease) override {
    Check("keep lease alive");
    return store_.KeepAlive(lease);
  }
  void RevokeLease(int64_t lease) override {
    Check("revoke lease");
    store_.RevokeLease(lease);
  }

 private:
  void Check(const char* operation) const {
    if (world_.PodIsolated(pod_)) {
      throw StoreError(store_.name() + ": " + operation + ": unreachable, POD " +
                       world_.pod_name(pod_) + " is isolated");
    }
  }

  KvStore& store_;
  const World& world_;
  const int pod_;
};

// The MAGI members: real magi::MagiMembers over one in-memory store, each observing the world
// from its POD. Shared by every controller that asks them.
class Members {
 public:
  Members(const World& world, const MagiSimParams& params) : world_(world), params_(params) {
    lag_ = (params.probe_timeout_ms + 999) / 1000;
    for (int i = 0; i < std::ssize(params.member_pods); ++i) {
      membership_.push_back({i + 1, params.member_pods[i]});
    }
    std::vector<magi::NodeTarget> nodes;
    nodes.reserve(world.num_nodes());
    for (NodeId n = 0; n < world.num_nodes(); ++n) {
      nodes.push_back({world.node(n).name, world.node(n).pod, "", ""});
    }
    for (const magi::Member& m : membership_) {
      const int pod = world.PodIndex(m.pod);
      magi::MemberConfig config;
      config.id = m.id;
      config.pod = m.pod;
      config.members = membership_;
      config.nodes = nodes;
      config.rule = params.rule;
      config.policy = params.judge;
      // The simulation plays the operator who readmits nodes (docs/faults.md).
      config.policy.answers_to_readmit = 0;
      config.probe_interval = std::chrono::seconds(params.probe_period_s);
      observers_.push_back(std::make_unique<WorldObserver>(world, pod, params.probe_timeout_ms));
      links_.push_back(std::make_unique<StoreLink>(store_, world, pod));
      members_.push_back(std::make_unique<magi::MagiMember>(std::move(config), *links_.back(),
                                                            *observers_.back(), null_log_));
    }
  }

  int size() const { return static_cast<int>(members_.size()); }
  const std::vector<magi::Member>& members() const { return membership_; }
  KvStore& store() { return store_; }
  const std::string& key_prefix() const { return members_.front()->config().key_prefix; }

  // The members whose rounds land at `t` act as at one instant: each step of the round is taken
  // by all of them before the next (magi/member.h).
  void Round(int64_t t) {
    store_.AdvanceTo(t);
    std::vector<magi::MagiMember*> active;
    for (int m = 0; m < size(); ++m) {
      if (RoundAt(m, t)) active.push_back(members_[m].get());
    }
    for (magi::MagiMember* m : active) m->Observe(t);
    for (magi::MagiMember* m : active) m->Propose(t);
    for (magi::MagiMember* m : active) m->Vote(t);
    for (magi::MagiMember* m : active) m->Decide(t);
  }

  // What each member knows of node `n` and of its vantage point, the nodes in `offline` aside.
  std::vector<MemberView> Views(NodeId n, int64_t t, const std::set<NodeId>& offline) {
    std::set<std::string> offline_names;
    for (NodeId o : offline) offline_names.insert(world_.node(o).name);
    std::vector<MemberView> views;
    views.reserve(members_.size());
    for (int m = 0; m < size(); ++m) {
      views.push_back({membership_[m], members_[m]->Evidence(world_.node(n).name, t),
                       members_[m]->Vantage(offline_names)});
    }
    return views;
  }

 private:
  // Whether member m's probe round lands at `t`.
  bool RoundAt(int m, int64_t t) const {
    const int64_t phase = m % params_.probe_period_s;
    return t >= lag_ + phase && (t - lag_ - phase) % params_.probe_period_s == 0;
  }

  const World& world_;
  const MagiSimParams& params_;
  int64_t lag_ = 0;
  std::vector<magi::Member> membership_;
  MemoryStore store_;
  std::ostream null_log_{nullptr};  // the members' logs: the report has their decisions
  std::vector<std::unique_ptr<WorldObserver>> observers_;
  std::vector<std::unique_ptr<StoreLink>> links_;
  std::vector<std::unique_ptr<magi::MagiMember>> members_;
};

// What every controller does with containers: evict, re-place, and count what is lost.
class Fleet {
 public:
  Fleet(std::string name, const ClusterState& placed, std::span<const Service> services,
        const World& world, const FaultSimParams& params)
      : state_(placed),
        services_(services),
        scheduler_(MakeKubernetesScheduler(FitScoring::kLeastAllocated, params.seed)),
        world_(world),
        params_(params) {
    report_.name = std::move(name);
  }

  void Declare(NodeId n, int64_t t, std::optional<magi::Decision> decision) {
    ++report_.declarations;
    const bool serving = world_.Serving(n);
    report_.false_declarations += serving;
    Log(ControllerEventKind::kDeclared, n, t, 0, std::move(decision));
    state_.SetCondition(n, NodeCondition::kNotReady);
    if (int e = world_.current_episode(n); e >= 0) Detect(e, t);
  }

  void Readmit(NodeId n, int64_t t) {
    state_.SetCondition(n, NodeCondition::kReady);
    Log(ControllerEventKind::kReadmitted, n, t, 0, std::nullopt);
  }

  void Reject(NodeId n, int64_t t, magi::Decision decision) {
    ++report_.migrations_rejected;
    Log(ControllerEventKind::kMigrationRejected, n, t, 0, std::move(decision));
  }

  // Moves every container off `n` and tries to place them elsewhere at once.
  void Evict(NodeId n, int64_t t, std::optional<magi::Decision> decision) {
    std::vector<ContainerId> ids(state_.containers_on(n).begin(), state_.containers_on(n).end());
    for (ContainerId id : ids) {
      Container c = state_.container(id);
      state_.Remove(id);
      c.node = -1;
      pending_.push_back(c);
    }
    const int64_t moved = std::ssize(ids);
    (world_.Serving(n) ? report_.needless_migrations : report_.needed_migrations) += moved;
    report_.container_seconds_lost += moved * params_.restart_s;
    Log(ControllerEventKind::kMigrated, n, t, static_cast<int>(moved), std::move(decision));
    PlacePending();
  }

  // A node that was declared already when it crashed is detected at once.
  void OnCrash(NodeId n, int64_t t, bool declared) {
    if (declared) Detect(world_.current_episode(n), t);
  }

  // The kubelet of a rebooted node restarts the containers still assigned to it.
  void OnRecover(NodeId n) {
    report_.container_seconds_lost += std::ssize(state_.containers_on(n)) * params_.restart_s;
  }

  // One second of loss, and the periodic retry of what waits for a place.
  void EndSecond(int64_t t) {
    for (NodeId n : world_.not_serving()) {
      report_.container_seconds_lost += std::ssize(state_.containers_on(n));
    }
    report_.container_seconds_lost += std::ssize(pending_);
    if (!pending_.empty() && t % params_.retry_period_s == 0) PlacePending();
  }

  ControllerReport Finish(int64_t duration) {
    const auto& episodes = world_.episodes();
    detected_at_.resize(episodes.size(), -1);
    for (size_t e = 0; e < episodes.size(); ++e) {
      const int64_t end = std::min(episodes[e].end, duration);
      if (end - episodes[e].start < params_.min_failure_s) continue;
      ++report_.real_failures;
      if (detected_at_[e] < 0) {
        ++report_.missed_failures;
      } else {
        report_.detection_delays_s.push_back(detected_at_[e] - episodes[e].start);
      }
    }
    std::sort(report_.detection_delays_s.begin(), report_.detection_delays_s.end());
    report_.waiting_at_end = std::ssize(pending_);
    return std::move(report_);
  }

 private:
  void Detect(int episode, int64_t t) {
    if (std::ssize(detected_at_) <= episode) detected_at_.resize(episode + 1, -1);
    if (detected_at_[episode] < 0) detected_at_[episode] = t;
  }

  void Log(ControllerEventKind kind, NodeId n, int64_t t, int containers,
           std::optional<magi::Decision> decision) {
    report_.events.push_back({t, kind, world_.node(n).name, containers, world_.Serving(n),
                              world_.Up(n), std::move(decision)});
  }

  void PlacePending() {
    std::vector<Container> waiting;
    waiting.swap(pending_);
    SchedulingContext ctx{state_};
    for (Container& c : waiting) {
      const PodRequest pod = c.kind == OwnerKind::kService && c.owner < std::ssize(services_)
                                 ? ServicePodRequest(services_[c.owner], c.owner)
                                 : PodRequest{.requests = c.requests,
                                              .priority = c.priority,
                                              .kind = c.kind,
                                              .owner = c.owner};
      c.node = scheduler_.Schedule(ctx, pod);
      if (c.node < 0) {
        pending_.push_back(c);
      } else {
        state_.Add(c);
      }
    }
  }

  ClusterState state_;
  std::span<const Service> services_;
  Scheduler scheduler_;
  const World& world_;
  const FaultSimParams& params_;
  ControllerReport report_;
  std::vector<Container> pending_;
  std::vector<int64_t> detected_at_;  // per crash episode; -1 while undetected
};

// Kubernetes' node lifecycle controller plus the taint manager's NoExecute evictions.
class SingleObserver {
 public:
  SingleObserver(std::string name, const ClusterState& placed, std::span<const Service> services,
                 const World& world, Members* reviewers, const FaultSimParams& params)
      : fleet_(std::move(name), placed, services, world, params),
        world_(world),
        reviewers_(reviewers),
        params_(params),
        single_(params.single) {}

  Fleet& fleet() { return fleet_; }
  bool Declared(NodeId n) const { return not_ready_.count(n) > 0; }

  void Tick(int64_t t) {
    if (t % single_.node_monitor_period_s == 0) Monitor(t);
    for (auto& [n, episode] : not_ready_) {
      if (episode.evicted || t < episode.since + single_.toleration_s) continue;
      if (reviewers_ == nullptr) {
        fleet_.Evict(n, t, std::nullopt);
        episode.evicted = true;
        continue;
      }
      if (t < episode.next_review) continue;
      MigrationReview review = ReviewMigration(
          {world_.node(n).name, MigrationReason::kNodeUnreachable, t},
          reviewers_->Views(n, t, reviewed_offline_), params_.magi.rule, params_.magi.judge);
      if (review.approved) {
        fleet_.Evict(n, t, std::move(review.decision));
        episode.evicted = true;
      } else {
        if (!episode.rejected) fleet_.Reject(n, t, std::move(review.decision));
        episode.rejected = true;
        episode.next_review = t + single_.node_monitor_period_s;
      }
    }
  }

 private:
  struct NotReady {
    int64_t since = 0;
    bool evicted = false;
    bool rejected = false;
    int64_t next_review = 0;
  };

  void Monitor(int64_t t) {
    std::vector<NodeId> candidates(world_.heartbeat_broken().begin(),
                                   world_.heartbeat_broken().end());
    for (const auto& [n, episode] : not_ready_) candidates.push_back(n);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (NodeId n : candidates) {
      const bool stale = world_.HeartbeatAge(n, t) > single_.node_monitor_grace_period_s;
      if (stale && !not_ready_.count(n)) {
        not_ready_[n] = {t, false, false, t};
        fleet_.Declare(n, t, std::nullopt);
      } else if (!stale && not_ready_.count(n)) {
        not_ready_.erase(n);
        fleet_.Readmit(n, t);
      }
    }
  }

  Fleet fleet_;
  const World& world_;
  Members* reviewers_;
  const FaultSimParams& params_;
  const SingleObserverParams& single_;
  std::map<NodeId, NotReady> not_ready_;
  // The reviewers hold no node offline of their own: they judge every node as a live one.
  const std::set<NodeId> reviewed_offline_;
};

// MAGI: the members decide; this controller acts on their decisions. It declares the nodes they
// record offline, migrates a declared node's containers once ReviewMigration approves, and
// readmits a node, as an operator would, by clearing its decisions once its heartbeat is younger
// than heartbeat_grace again.
class MagiDecisionsController {
 public:
  MagiDecisionsController(const ClusterState& placed, std::span<const Service> services,
                          const World& world, Members& members, const FaultSimParams& params)
      : fleet_("magi", placed, services, world, params),
        world_(world),
        members_(members),
        params_(params),
        decisions_(members.key_prefix() + "decisions/") {}

  Fleet& fleet() { return fleet_; }
  bool Declared(NodeId n) const { return offline_.count(n) > 0; }

  void Tick(int64_t t) {
    KvStore& store = members_.store();
    const std::string offline_prefix = decisions_ + "node-offline/";
    std::map<NodeId, magi::Decision> recorded;
    for (const KeyValue& kv : store.GetPrefixKeys(offline_prefix)) {
      const NodeId n = world_.NodeIndex(kv.key.substr(offline_prefix.size()));
      if (offline_.count(n)) continue;
      if (std::optional<KeyValue> record = store.Get(kv.key)) {
        recorded.emplace(n, magi::ParseDecisionRecord(record->value));
      }
    }
    for (auto& [n, decision] : recorded) {
      offline_.insert(n);
      fleet_.Declare(n, t, std::move(decision));
      awaiting_migration_.insert(n);
    }
    for (auto it = awaiting_migration_.begin(); it != awaiting_migration_.end();) {
      MigrationReview review =
          ReviewMigration({world_.node(*it).name, MigrationReason::kNodeUnreachable, t},
                          members_.Views(*it, t, offline_), params_.magi.rule, params_.magi.judge);
      if (review.approved) {
        fleet_.Evict(*it, t, std::move(review.decision));
        it = awaiting_migration_.erase(it);
      } else {
        if (rejected_.insert(*it).second) fleet_.Reject(*it, t, std::move(review.decision));
        ++it;
      }
    }
    for (auto it = offline_.begin(); it != offline_.end();) {
      if (world_.HeartbeatAge(*it, t) < params_.magi.judge.heartbeat_grace) {
        const std::string& name = world_.node(*it).name;
        store.Delete(offline_prefix + name);
        store.Delete(decisions_ + "migrate/" + name);
        fleet_.Readmit(*it, t);
        awaiting_migration_.erase(*it);
        rejected_.erase(*it);
        it = offline_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  Fleet fleet_;
  const World& world_;
  Members& members_;
  const FaultSimParams& params_;
  const std::string decisions_;  // where the members record their decisions
  std::set<NodeId> offline_;
  std::set<NodeId> awaiting_migration_;
  std::set<NodeId> rejected_;
};

void CheckPositive(int64_t v, const char* name) {
  if (v <= 0) throw std::invalid_argument(std::string(name) + " must be positive");
}

std::string Hours(int64_t seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(seconds) / 3600.0);
  return buf;
}

}  // namespace

std::string_view ControllerEventKindName(ControllerEventKind kind) {
  switch (kind) {
    case ControllerEventKind::kDeclared:
      return "declared";
    case ControllerEventKind::kReadmitted:
      return "readmitted";
    case ControllerEventKind::kMigrated:
      return "migrated";
    case ControllerEventKind::kMigrationRejected:
      return "migration-rejected";
  }
  return "unknown";
}

const ControllerReport& FaultSimResult::controller(std::string_view name) const {
  for (const ControllerReport& c : controllers) {
    if (c.name == name) return c;
  }
  throw std::out_of_range("no controller \"" + std::string(name) + "\" in the result");
}

std::vector<std::string> ChooseMemberPods(const std::vector<Node>& nodes, int count) {
  std::map<std::string, std::set<std::string>> pods_by_zone;
  for (const Node& n : nodes) pods_by_zone[n.zone].insert(n.pod);
  std::vector<std::string> chosen;
  std::set<std::string> taken;
  for (size_t round = 0; std::ssize(chosen) < count; ++round) {
    bool any = false;
    for (const auto& [zone, pods] : pods_by_zone) {
      if (round >= pods.size() || std::ssize(chosen) == count) continue;
      const std::string& pod = *std::next(pods.begin(), static_cast<std::ptrdiff_t>(round));
      if (!taken.insert(pod).second) continue;  // a POD spanning zones counts once
      chosen.push_back(pod);
      any = true;
    }
    if (!any) {
      throw std::invalid_argument("MAGI needs " + std::to_string(count) +
                                  " members in distinct PODs but the fleet has " +
                                  std::to_string(taken.size()) + " PODs");
    }
  }
  return chosen;
}

PlacedFleet PlaceServices(const Scenario& scenario, uint64_t seed) {
  PlacedFleet placed{ClusterState(scenario.nodes), 0};
  Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, seed);
  SchedulingContext ctx{placed.state};
  const auto& services = scenario.workload.services;
  for (int32_t s = 0; s < std::ssize(services); ++s) {
    const Service& svc = services[s];
    const PodRequest pod = ServicePodRequest(svc, s);
    for (int r = 0; r < svc.replicas; ++r) {
      NodeId n = scheduler.Schedule(ctx, pod);
      if (n < 0) {
        ++placed.unplaced;
        continue;
      }
      placed.state.Add({.kind = OwnerKind::kService,
                        .owner = s,
                        .index = r,
                        .node = n,
                        .requests = svc.requests,
                        .priority = svc.priority,
                        .start_time = 0});
    }
  }
  return placed;
}

int64_t MagiDetectionBound(const FaultSimParams& params) {
  const MagiSimParams& m = params.magi;
  const int64_t lag = (m.probe_timeout_ms + 999) / 1000;
  return std::max<int64_t>(m.judge.heartbeat_grace,
                           m.judge.failures_to_suspect * m.probe_period_s + lag) +
         m.probe_period_s;
}

int64_t Percentile(const std::vector<int64_t>& sorted, double q) {
  return sorted.empty() ? 0 : sorted[NearestRankIndex(sorted.size(), q)];
}

FaultSimResult RunFaultSim(const ClusterState& placed, const std::vector<Fault>& faults,
                           const FaultSimParams& params_in, std::span<const Service> services) {
  FaultSimParams params = params_in;
  CheckPositive(params.duration_s, "duration");
  CheckPositive(params.restart_s, "restart time");
  CheckPositive(params.retry_period_s, "retry period");
  CheckPositive(params.single.heartbeat_interval_s, "heartbeat interval");
  CheckPositive(params.single.node_monitor_period_s, "node monitor period");
  CheckPositive(params.single.node_monitor_grace_period_s, "node monitor grace period");
  CheckPositive(params.magi.probe_period_s, "probe period");
  CheckPositive(params.magi.probe_timeout_ms, "probe timeout");
  if (params.single.toleration_s < 0) throw std::invalid_argument("toleration is negative");
  if (params.magi.member_pods.empty()) {
    params.magi.member_pods = ChooseMemberPods(placed.nodes(), 5);
  }
  std::vector<magi::Member> membership;
  for (size_t i = 0; i < params.magi.member_pods.size(); ++i) {
    membership.push_back({static_cast<int>(i) + 1, params.magi.member_pods[i]});
  }
  magi::ValidateRule(membership, params.magi.rule);
  if (std::set<std::string>(params.magi.member_pods.begin(), params.magi.member_pods.end())
          .size() != params.magi.member_pods.size()) {
    throw std::invalid_argument("MAGI members must sit in distinct PODs");
  }

  World world(placed.nodes(), faults, params.single, params.duration_s);
  Members members(world, params.magi);
  SingleObserver single("single-observer", placed, services, world, nullptr, params);
  std::unique_ptr<SingleObserver> reviewed;
  if (params.review_single_observer) {
    reviewed = std::make_unique<SingleObserver>("single-observer+review", placed, services, world,
                                                &members, params);
  }
  MagiDecisionsController magi(placed, services, world, members, params);

  for (int64_t t = 0; t < params.duration_s; ++t) {
    World::Change change = world.Advance(t, faults);
    for (NodeId n : change.crashed) {
      single.fleet().OnCrash(n, t, single.Declared(n));
      if (reviewed) reviewed->fleet().OnCrash(n, t, reviewed->Declared(n));
      magi.fleet().OnCrash(n, t, magi.Declared(n));
    }
    for (NodeId n : change.recovered) {
      single.fleet().OnRecover(n);
      if (reviewed) reviewed->fleet().OnRecover(n);
      magi.fleet().OnRecover(n);
    }
    members.Round(t);
    single.Tick(t);
    if (reviewed) reviewed->Tick(t);
    magi.Tick(t);
    single.fleet().EndSecond(t);
    if (reviewed) reviewed->fleet().EndSecond(t);
    magi.fleet().EndSecond(t);
    if (params.progress && t % FaultSimParams::kProgressInterval == 0) {
      params.progress(t, params.duration_s);
    }
  }
  if (params.progress) params.progress(params.duration_s, params.duration_s);

  FaultSimResult result;
  result.nodes = world.num_nodes();
  result.pods = world.num_pods();
  result.containers = placed.num_containers();
  result.duration_s = params.duration_s;
  result.members = members.members();
  result.faults = faults;
  result.controllers.push_back(single.fleet().Finish(params.duration_s));
  if (reviewed) result.controllers.push_back(reviewed->fleet().Finish(params.duration_s));
  result.controllers.push_back(magi.fleet().Finish(params.duration_s));
  return result;
}

std::string FormatFaultTable(const FaultSimResult& r) {
  std::map<std::string, int> kinds;
  for (const Fault& f : r.faults) ++kinds[std::string(FaultKindName(f.kind))];
  std::string out = "fleet: " + std::to_string(r.nodes) + " nodes in " + std::to_string(r.pods) +
                    " PODs, " + std::to_string(r.containers) + " containers, " +
                    Hours(r.duration_s) + " h simulated\nfaults:";
  for (const auto& [kind, n] : kinds) out += " " + kind + " " + std::to_string(n);
  out += "\nMAGI members:";
  for (const magi::Member& m : r.members) out += " " + std::to_string(m.id) + "@" + m.pod;
  out += "\n\n";

  std::vector<TextTable::Column> columns{{.width = 38, .align = TextTable::Align::kLeft}};
  columns.resize(1 + r.controllers.size(), {.width = 24});
  TextTable table(std::move(columns));
  auto row = [&](const std::string& label, auto value) {
    std::vector<std::string> cells{label};
    for (const ControllerReport& c : r.controllers) cells.push_back(value(c));
    table.AddRow(std::move(cells));
  };
  row("", [](const ControllerReport& c) { return c.name; });
  row("offline declarations",
      [](const ControllerReport& c) { return std::to_string(c.declarations); });
  row("  false (node was serving)",
      [](const ControllerReport& c) { return std::to_string(c.false_declarations); });
  row("needless migrations (containers)",
      [](const ControllerReport& c) { return std::to_string(c.needless_migrations); });
  row("needed migrations (containers)",
      [](const ControllerReport& c) { return std::to_string(c.needed_migrations); });
  row("migrations vetoed by MAGI review",
      [](const ControllerReport& c) { return std::to_string(c.migrations_rejected); });
  row("container-hours lost",
      [](const ControllerReport& c) { return Hours(c.container_seconds_lost); });
  row("  containers still without a node",
      [](const ControllerReport& c) { return std::to_string(c.waiting_at_end); });
  row("real failures (crashes)",
      [](const ControllerReport& c) { return std::to_string(c.real_failures); });
  row("  missed", [](const ControllerReport& c) { return std::to_string(c.missed_failures); });
  row("detection delay p50 / p99 / max (s)", [](const ControllerReport& c) {
    const auto& d = c.detection_delays_s;
    return std::to_string(Percentile(d, 0.5)) + " / " + std::to_string(Percentile(d, 0.99)) +
           " / " + std::to_string(d.empty() ? 0 : d.back());
  });
  return out + table.Format();
}

json FaultSimToJson(const FaultSimResult& r) {
  json controllers = json::array();
  for (const ControllerReport& c : r.controllers) {
    json events = json::array();
    for (const ControllerEvent& e : c.events) {
      json o = {{"time", e.time},
                {"kind", ControllerEventKindName(e.kind)},
                {"node", e.node},
                {"node_serving", e.node_serving},
                {"node_up", e.node_up}};
      if (e.kind == ControllerEventKind::kMigrated) o["containers"] = e.containers;
      if (e.decision) o["decision"] = magi::Describe(*e.decision);
      events.push_back(std::move(o));
    }
    const auto& d = c.detection_delays_s;
    controllers.push_back({{"name", c.name},
                           {"declarations", c.declarations},
                           {"false_declarations", c.false_declarations},
                           {"needless_migrations", c.needless_migrations},
                           {"needed_migrations", c.needed_migrations},
                           {"migrations_rejected", c.migrations_rejected},
                           {"container_seconds_lost", c.container_seconds_lost},
                           {"waiting_at_end", c.waiting_at_end},
                           {"real_failures", c.real_failures},
                           {"missed_failures", c.missed_failures},
                           {"detection_delay_s",
                            {{"p50", Percentile(d, 0.5)},
                             {"p99", Percentile(d, 0.99)},
                             {"max", d.empty() ? 0 : d.back()},
                             {"all", d}}},
                           {"events", events}});
  }
  json members = json::array();
  for (const magi::Member& m : r.members) members.push_back({{"id", m.id}, {"pod", m.pod}});
  return {{"nodes", r.nodes},           {"pods", r.pods},
          {"containers", r.containers}, {"duration_s", r.duration_s},
          {"members", members},         {"faults", FaultsToJson(r.faults)["faults"]},
          {"controllers", controllers}};
}

}  // namespace archimedes
