#include "sim/fault_sim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/fault_review.h"
#include "sim/fault_scenario.h"
#include "sim/generator.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

constexpr int kPods = 6;
constexpr int kNodesPerPod = 10;
constexpr int kContainersPerNode = 3;

// 6 PODs of 10 nodes over 3 zones, three 1-core containers of one service on every node (service
// n on node n): small enough to run hours in milliseconds, with room to re-place the containers
// of a few nodes. The nodes named in `ssd` carry the label disk=ssd.
ClusterState SmallFleet(const std::set<std::string>& ssd = {}) {
  std::vector<Node> nodes;
  for (int p = 0; p < kPods; ++p) {
    for (int i = 0; i < kNodesPerPod; ++i) {
      Node n;
      n.name = "node-" + std::to_string(p) + std::to_string(i);
      n.pod = "pod-" + std::to_string(p);
      n.zone = "zone-" + std::to_string(p % 3);
      n.capacity = n.allocatable = Resources::Of(16'000, 64LL << 30);
      if (ssd.count(n.name) > 0) n.labels["disk"] = "ssd";
      nodes.push_back(n);
    }
  }
  ClusterState state(nodes);
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    for (int c = 0; c < kContainersPerNode; ++c) {
      state.Add({.kind = OwnerKind::kService,
                 .owner = n,
                 .index = c,
                 .node = n,
                 .requests = Resources::Of(1'000, 1LL << 30)});
    }
  }
  return state;
}

FaultSimParams Params(int64_t duration_s = int64_t{3} * 3600) {
  FaultSimParams p;
  p.duration_s = duration_s;
  return p;
}

int Count(const ControllerReport& r, ControllerEventKind kind, const std::string& node) {
  return static_cast<int>(std::count_if(r.events.begin(), r.events.end(), [&](const auto& e) {
    return e.kind == kind && e.node == node;
  }));
}

const ControllerEvent* First(const ControllerReport& r, ControllerEventKind kind,
                             const std::string& node) {
  for (const ControllerEvent& e : r.events) {
    if (e.kind == kind && e.node == node) return &e;
  }
  return nullptr;
}

TEST(ChooseMemberPods, SpreadsOverZonesAndRefusesTooFewPods) {
  const ClusterState fleet = SmallFleet();
  std::vector<std::string> pods = ChooseMemberPods(fleet.nodes(), 5);
  EXPECT_EQ(pods, (std::vector<std::string>{"pod-0", "pod-1", "pod-2", "pod-3", "pod-4"}));
  EXPECT_THROW(ChooseMemberPods(fleet.nodes(), 7), std::invalid_argument);
}

TEST(FaultSim, PodCutWithApiCutFoolsOnlyTheSingleObserver) {
  const ClusterState fleet = SmallFleet();
  // node-50 sits in pod-5, which hosts no member; pod-0 hosts member 1.
  const std::vector<Fault> faults = {
      {.kind = FaultKind::kPodCut, .at = 600, .duration = 3600, .node = "node-50", .pod = "pod-0"},
      {.kind = FaultKind::kApiCut, .at = 600, .duration = 3600, .node = "node-50"},
      // A POD cut alone leaves the heartbeat path whole: nobody may react.
      {.kind = FaultKind::kPodCut, .at = 600, .duration = 3600, .node = "node-51", .pod = "pod-1"},
  };
  const FaultSimResult r = RunFaultSim(fleet, faults, Params());
  const ControllerReport& single = r.controller("single-observer");
  const ControllerReport& magi = r.controller("magi");

  ASSERT_EQ(Count(single, ControllerEventKind::kDeclared, "node-50"), 1);
  const ControllerEvent* declared = First(single, ControllerEventKind::kDeclared, "node-50");
  EXPECT_TRUE(declared->node_serving);
  EXPECT_LE(declared->time, 600 + 40 + 5 + 1);
  EXPECT_EQ(single.false_declarations, 1);
  EXPECT_EQ(single.needless_migrations, kContainersPerNode);

  EXPECT_EQ(magi.declarations, 0);
  EXPECT_EQ(magi.needless_migrations, 0);
  EXPECT_EQ(Count(single, ControllerEventKind::kDeclared, "node-51"), 0);

  // The reviewed single observer declares too, but MAGI vetoes the eviction.
  const ControllerReport& reviewed = r.controller("single-observer+review");
  EXPECT_EQ(reviewed.false_declarations, 1);
  EXPECT_EQ(reviewed.needless_migrations, 0);
  EXPECT_EQ(reviewed.migrations_rejected, 1);
}

TEST(FaultSim, CrashIsDetectedByBothAndByMagiWithinItsBound) {
  const ClusterState fleet = SmallFleet();
  const std::vector<Fault> faults = {
      {.kind = FaultKind::kCrash, .at = 1000, .node = "node-23"},
      {.kind = FaultKind::kCrash, .at = 2000, .duration = 1800, .node = "node-44"},
  };
  const FaultSimParams params = Params();
  const FaultSimResult r = RunFaultSim(fleet, faults, params);
  for (const ControllerReport& c : r.controllers) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.real_failures, 2);
    EXPECT_EQ(c.missed_failures, 0);
    EXPECT_EQ(c.false_declarations, 0);
    EXPECT_EQ(c.needless_migrations, 0);
    // Containers re-placed onto node-44 before it crashed move twice.
    EXPECT_GE(c.needed_migrations, 2 * kContainersPerNode);
  }
  const ControllerReport& magi = r.controller("magi");
  ASSERT_EQ(magi.detection_delays_s.size(), 2u);
  EXPECT_LE(magi.detection_delays_s.back(), MagiDetectionBound(params));
  // A heartbeat must age past heartbeat_grace first: MAGI cannot be faster than that minus one
  // heartbeat interval.
  EXPECT_GE(magi.detection_delays_s.front(),
            params.magi.judge.heartbeat_grace - params.single.heartbeat_interval_s);

  const ControllerReport& single = r.controller("single-observer");
  EXPECT_LE(single.detection_delays_s.back(),
            params.single.node_monitor_grace_period_s + params.single.node_monitor_period_s);
  // The single observer migrates only after the toleration; MAGI right after its decision.
  const ControllerEvent* k8s_migrated = First(single, ControllerEventKind::kMigrated, "node-23");
  const ControllerEvent* magi_migrated = First(magi, ControllerEventKind::kMigrated, "node-23");
  ASSERT_NE(k8s_migrated, nullptr);
  ASSERT_NE(magi_migrated, nullptr);
  EXPECT_GE(k8s_migrated->time, 1000 + params.single.toleration_s);
  EXPECT_LE(magi_migrated->time, 1000 + MagiDetectionBound(params));
  EXPECT_LT(magi.container_seconds_lost, single.container_seconds_lost);

  // node-44 came back: both readmit it.
  EXPECT_EQ(Count(single, ControllerEventKind::kReadmitted, "node-44"), 1);
  EXPECT_EQ(Count(magi, ControllerEventKind::kReadmitted, "node-44"), 1);
}

TEST(FaultSim, ReplacedContainersKeepTheirNodeSelectorAndPerNodeLimit) {
  // Service 0 runs on node-00 and may run only on disk=ssd nodes, one replica per node: when
  // node-00 crashes for good, node-10 is the one place left, for one of its three replicas.
  const ClusterState fleet = SmallFleet({"node-00", "node-10"});
  std::vector<Service> services(fleet.num_nodes());
  for (int s = 0; s < std::ssize(services); ++s) {
    services[s].replicas = kContainersPerNode;
    services[s].requests = Resources::Of(1'000, 1LL << 30);
  }
  services[0].node_selector = {{"disk", "ssd"}};
  services[0].max_per_node = 1;
  const std::vector<Fault> faults = {{.kind = FaultKind::kCrash, .at = 1000, .node = "node-00"}};

  const FaultSimResult kept = RunFaultSim(fleet, faults, Params(), services);
  const FaultSimResult requests_only = RunFaultSim(fleet, faults, Params());
  for (const ControllerReport& c : kept.controllers) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.needed_migrations, kContainersPerNode);
    EXPECT_EQ(c.waiting_at_end, kContainersPerNode - 1);
    EXPECT_GT(c.container_seconds_lost, requests_only.controller(c.name).container_seconds_lost);
    EXPECT_EQ(requests_only.controller(c.name).waiting_at_end, 0);
  }
  EXPECT_NE(FormatFaultTable(kept).find("containers still without a node"), std::string::npos);
  EXPECT_EQ(FaultSimToJson(kept)["controllers"][0]["waiting_at_end"], kContainersPerNode - 1);
}

TEST(FaultSim, MemberOfAnIsolatedPodNeitherVotesNorHelpsAReview) {
  const ClusterState fleet = SmallFleet();
  const std::vector<Fault> faults = {
      {.kind = FaultKind::kPodIsolated, .at = 100, .duration = 3600, .pod = "pod-0"},
      {.kind = FaultKind::kCrash, .at = 300, .node = "node-33"},
  };
  const FaultSimResult r = RunFaultSim(fleet, faults, Params());
  ASSERT_EQ(r.members.front().pod, "pod-0");
  const ControllerReport& magi = r.controller("magi");
  // Cut off from the store, member 1 cannot vote; the other four decide.
  const ControllerEvent* declared = First(magi, ControllerEventKind::kDeclared, "node-33");
  ASSERT_NE(declared, nullptr);
  ASSERT_TRUE(declared->decision.has_value());
  EXPECT_EQ(declared->decision->outcome, magi::Outcome::kPassed);
  for (const magi::CountedVote& v : declared->decision->votes) {
    EXPECT_NE(v.member, 1) << v.reason;
  }
  // Asked for its view in the migration review, it abstains: it sees almost nothing.
  const ControllerEvent* migrated = First(magi, ControllerEventKind::kMigrated, "node-33");
  ASSERT_NE(migrated, nullptr);
  ASSERT_TRUE(migrated->decision.has_value());
  bool member1_asked = false;
  for (const magi::CountedVote& v : migrated->decision->votes) {
    if (v.member != 1) continue;
    member1_asked = true;
    EXPECT_EQ(v.verdict, magi::Verdict::kAbstain) << v.reason;
    EXPECT_NE(v.reason.find("isolated"), std::string::npos) << v.reason;
  }
  EXPECT_TRUE(member1_asked);
  // The isolated POD's own nodes serve nobody outside it: declaring them is not false.
  EXPECT_EQ(magi.false_declarations, 0);
  EXPECT_GT(magi.declarations, 1);
  EXPECT_EQ(magi.needless_migrations, 0);
}

TEST(FaultSim, FlappingLinksCauseNoMagiMigrations) {
  const ClusterState fleet = SmallFleet();
  // Down 90 s of every 120 s: longer than the single observer's 40 s grace each time.
  const std::vector<Fault> faults = {
      {.kind = FaultKind::kFlap,
       .at = 300,
       .duration = 7200,
       .node = "node-12",
       .link = FlapLink::kApi,
       .period = 120,
       .down = 90},
      {.kind = FaultKind::kFlap,
       .at = 300,
       .duration = 7200,
       .node = "node-42",
       .pod = "pod-2",
       .link = FlapLink::kPod,
       .period = 120,
       .down = 90},
  };
  const FaultSimResult r = RunFaultSim(fleet, faults, Params());
  const ControllerReport& magi = r.controller("magi");
  EXPECT_EQ(magi.declarations, 0);
  EXPECT_EQ(magi.needless_migrations + magi.needed_migrations, 0);
  const ControllerReport& single = r.controller("single-observer");
  EXPECT_GE(single.false_declarations, 7200 / 120 - 1);
  // Each NotReady spell ends before the 300 s toleration: no eviction.
  EXPECT_EQ(single.needless_migrations, 0);
}

TEST(FaultSim, ShortTolerationTurnsFlapsIntoNeedlessMigrations) {
  const ClusterState fleet = SmallFleet();
  const std::vector<Fault> faults = {
      {.kind = FaultKind::kFlap,
       .at = 300,
       .duration = 3600,
       .node = "node-12",
       .link = FlapLink::kApi,
       .period = 120,
       .down = 90},
  };
  FaultSimParams params = Params();
  params.single.toleration_s = 0;
  const FaultSimResult r = RunFaultSim(fleet, faults, params);
  EXPECT_EQ(r.controller("single-observer").needless_migrations, kContainersPerNode);
  EXPECT_EQ(r.controller("single-observer+review").needless_migrations, 0);
  EXPECT_EQ(r.controller("magi").needless_migrations, 0);
}

TEST(FaultSim, SameSeedSameResult) {
  GeneratorParams g;
  g.nodes = 150;
  g.days = 1;
  g.seed = 11;
  const Scenario scenario = GenerateScenario(g);
  const PlacedFleet placed = PlaceServices(scenario, 11);
  const std::vector<std::string> member_pods = ChooseMemberPods(scenario.nodes, 5);
  FaultRates rates;
  rates.crashes_per_node_day = rates.api_cuts_per_node_day = 0.02;
  auto run = [&](uint64_t seed) {
    FaultSimParams params = Params(int64_t{6} * 3600);
    params.seed = seed;
    std::vector<Fault> faults =
        GenerateFaults(scenario.nodes, member_pods, rates, params.duration_s, seed);
    return FaultSimToJson(RunFaultSim(placed.state, faults, params));
  };
  const nlohmann::json a = run(5);
  EXPECT_EQ(a, run(5));
  EXPECT_NE(a, run(6));
}

TEST(GenerateFaults, EveryKindOccursAndFaultsStayInTheRun) {
  const ClusterState fleet = SmallFleet();
  const std::vector<Fault> faults = GenerateFaults(fleet.nodes(), {"pod-0"}, FaultRates{}, 3600, 3);
  std::set<FaultKind> kinds;
  for (const Fault& f : faults) {
    kinds.insert(f.kind);
    EXPECT_GE(f.at, 0);
    EXPECT_LT(f.at, 3600);
    EXPECT_GE(f.duration, 1);
    if (f.kind == FaultKind::kFlap) {
      EXPECT_GT(f.down, 0);
      EXPECT_LT(f.down, f.period);
    }
  }
  EXPECT_EQ(kinds.size(), 5u);
  FaultRates bad;
  bad.flaps_per_node_day = -1;
  EXPECT_THROW(GenerateFaults(fleet.nodes(), {}, bad, 3600, 3), std::invalid_argument);
}

class FaultsFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() /
             ("faults_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
              "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json"))
                .string();
    std::ofstream(path_) << text;
    return path_;
  }
  std::string Error(const std::string& text) {
    const std::string path = Write(text);
    try {
      ReadFaultsFile(path, SmallFleet().nodes());
    } catch (const TraceError& e) {
      return e.what();
    }
    return "no error";
  }
  void TearDown() override {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  std::string path_;
};

TEST_F(FaultsFileTest, ReadsEveryKindAndRoundTrips) {
  const std::string path = Write(R"({"faults": [
    {"kind": "crash", "node": "node-01", "at": "1h"},
    {"kind": "api-cut", "node": "node-02", "at": 60, "duration": "15m"},
    {"kind": "pod-cut", "node": "node-03", "pod": "pod-4", "at": "2m", "duration": 600},
    {"kind": "pod-isolated", "pod": "pod-1", "at": "1h30m", "duration": "10m"},
    {"kind": "flap", "link": "pod", "node": "node-04", "pod": "pod-2", "at": 0,
     "duration": "1h", "period": "2m", "down": 90}
  ]})");
  const std::vector<Fault> faults = ReadFaultsFile(path, SmallFleet().nodes());
  ASSERT_EQ(faults.size(), 5u);
  EXPECT_EQ(faults[0].at, 3600);
  EXPECT_EQ(faults[0].duration, kForever);
  EXPECT_EQ(faults[1].duration, 900);
  EXPECT_EQ(faults[3].pod, "pod-1");
  EXPECT_EQ(faults[4].period, 120);
  EXPECT_EQ(faults[4].link, FlapLink::kPod);
  const std::vector<Fault> again = ParseFaults(FaultsToJson(faults), SmallFleet().nodes(), "x");
  EXPECT_EQ(FaultsToJson(again), FaultsToJson(faults));
}

TEST_F(FaultsFileTest, UnknownNodeNamesFileAndNode) {
  const std::string error = Error(R"({"faults": [{"kind": "crash", "node": "node-99", "at": 5}]})");
  EXPECT_NE(error.find(path_), std::string::npos) << error;
  EXPECT_NE(error.find("faults[0].node: unknown node \"node-99\""), std::string::npos) << error;
}

TEST_F(FaultsFileTest, UnknownKindNamesFileAndKind) {
  const std::string error = Error(R"({"faults": [
    {"kind": "crash", "node": "node-01", "at": 5},
    {"kind": "meteor", "node": "node-01", "at": 5}]})");
  EXPECT_NE(error.find(path_), std::string::npos) << error;
  EXPECT_NE(error.find("faults[1].kind: unknown kind \"meteor\""), std::string::npos) << error;
}

TEST_F(FaultsFileTest, BadTimesNameFileAndField) {
  std::string error = Error(R"([{"kind": "crash", "node": "node-01", "at": "5x"}])");
  EXPECT_NE(error.find(path_), std::string::npos) << error;
  EXPECT_NE(error.find("[0].at: duration \"5x\": unknown unit 'x'"), std::string::npos) << error;
  error = Error(R"([{"kind": "api-cut", "node": "node-01", "at": -3}])");
  EXPECT_NE(error.find("[0].at: -3s is below the minimum 0s"), std::string::npos) << error;
  error = Error(R"([{"kind": "api-cut", "node": "node-01", "at": 0, "duration": 0}])");
  EXPECT_NE(error.find("[0].duration: 0s is below the minimum 1s"), std::string::npos) << error;
  error = Error(R"([{"kind": "flap", "link": "api", "node": "node-01", "at": 0,
                     "period": 60, "down": 60}])");
  EXPECT_NE(error.find("[0].down: 1m must be shorter than the period 1m"), std::string::npos)
      << error;
}

TEST_F(FaultsFileTest, OtherProblemsAreNamed) {
  EXPECT_NE(Error(R"([{"kind": "pod-cut", "node": "node-01", "pod": "pod-9", "at": 0}])")
                .find("unknown POD \"pod-9\""),
            std::string::npos);
  EXPECT_NE(Error(R"([{"kind": "flap", "link": "wifi", "node": "node-01", "at": 0,
                       "period": 60, "down": 10}])")
                .find("unknown link \"wifi\""),
            std::string::npos);
  EXPECT_NE(
      Error(R"([{"kind": "crash", "node": "node-01"}])").find("[0]: missing required key \"at\""),
      std::string::npos);
  EXPECT_NE(Error("{not json").find("malformed JSON"), std::string::npos);
  EXPECT_NE(Error(R"([{"kind": "crash", "node": "node-01", "at": 0, "pod": "pod-1"}])")
                .find("[0].pod: a crash fault takes no pod"),
            std::string::npos);
}

std::vector<MemberView> Views(int yes_count) {
  std::vector<MemberView> views;
  for (int id = 1; id <= 5; ++id) {
    MemberView v;
    v.member = {id, "pod-" + std::to_string(id)};
    v.node.node = "node-7";
    v.node.probes = 10;
    const bool fails = id <= yes_count;
    v.node.tcp_ok = v.node.http_ok = !fails;
    v.node.consecutive_failures = fails ? 10 : 0;
    v.node.heartbeat_age = 60;
    v.vantage = {4, 4, 90, 100};
    views.push_back(v);
  }
  return views;
}

TEST(ReviewMigration, UnreachableClaimNeedsTheQuorum) {
  const MigrationRequest request{"node-7", MigrationReason::kNodeUnreachable, 500};
  MigrationReview review = ReviewMigration(request, Views(3), {}, {});
  EXPECT_TRUE(review.approved) << review.explanation;
  EXPECT_EQ(review.decision.proposal.kind, magi::ProposalKind::kMigrate);
  EXPECT_EQ(review.decision.yes, 3);

  review = ReviewMigration(request, Views(2), {}, {});
  EXPECT_FALSE(review.approved);
  EXPECT_EQ(review.decision.no, 3);
  EXPECT_NE(review.explanation.find("node-7"), std::string::npos);
}

TEST(ReviewMigration, SlaMigrationNeedsNoVote) {
  const MigrationReview review =
      ReviewMigration({"node-7", MigrationReason::kSlaContention, 500}, Views(0), {}, {});
  EXPECT_TRUE(review.approved);
  EXPECT_TRUE(review.decision.votes.empty());
}

TEST(FaultSim, GeneratedFleetMagiMakesNoFalseDeclarations) {
  GeneratorParams g;
  g.nodes = 300;
  g.days = 1;
  g.seed = 3;
  const Scenario scenario = GenerateScenario(g);
  const PlacedFleet placed = PlaceServices(scenario, 3);
  FaultSimParams params = Params(kSecondsPerDay);
  params.magi.member_pods = ChooseMemberPods(scenario.nodes, 5);
  FaultRates rates;
  rates.crashes_per_node_day = rates.api_cuts_per_node_day = rates.pod_cuts_per_node_day =
      rates.flaps_per_node_day = 0.02;
  const std::vector<Fault> faults =
      GenerateFaults(scenario.nodes, params.magi.member_pods, rates, params.duration_s, 3);
  const FaultSimResult r = RunFaultSim(placed.state, faults, params);
  const ControllerReport& magi = r.controller("magi");
  const ControllerReport& single = r.controller("single-observer");
  EXPECT_EQ(magi.false_declarations, 0);
  EXPECT_EQ(magi.needless_migrations, 0);
  EXPECT_EQ(magi.missed_failures, 0);
  EXPECT_GT(single.false_declarations, 0);
  EXPECT_GT(single.needless_migrations, 0);
  EXPECT_GT(magi.real_failures, 0);
  EXPECT_LE(magi.detection_delays_s.back(), MagiDetectionBound(params));
}

}  // namespace
}  // namespace archimedes
