#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "sched/archimedes_placement.h"
#include "sched/kubernetes_scheduler.h"
#include "sched/plugins/affinity.h"
#include "sched/plugins/batch_displacement.h"
#include "sched/plugins/complementarity.h"
#include "sched/plugins/fragmentation.h"
#include "sched/plugins/max_per_node.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_selector.h"
#include "sched/plugins/time_aware_fit.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

Node MakeNode(std::string name, int64_t cpu, int64_t memory, std::string zone = "z0",
              std::string pod = "p0") {
  Node n;
  n.name = std::move(name);
  n.capacity = n.allocatable = Resources::Of(cpu, memory);
  n.zone = std::move(zone);
  n.pod = std::move(pod);
  return n;
}

// A cpu curve at `high` from 08:00 to 20:00 and `low` otherwise (or the reverse for night), and a
// flat memory curve.
std::array<DailyCurve, kNumDims> DayNight(bool day, float high, float low, float memory) {
  std::array<DailyCurve, kNumDims> c;
  for (int b = 0; b < c[0].bins(); ++b) {
    const bool daytime = b >= 96 && b < 240;
    c[0][b] = daytime == day ? high : low;
    c[1][b] = memory;
  }
  return c;
}

std::array<DailyCurve, kNumDims> RandomCurves(std::mt19937_64& rng, float cpu, float memory) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::array<DailyCurve, kNumDims> c;
  const float phase = u(rng) * 6.28f;
  for (int b = 0; b < c[0].bins(); ++b) {
    const float wave = 0.5f + 0.5f * std::sin(phase + 6.28f * static_cast<float>(b) / 288.0f);
    c[0][b] = cpu * (0.2f + 0.8f * wave) * (0.9f + 0.2f * u(rng));
    c[1][b] = memory * (0.7f + 0.3f * wave);
    c[2][b] = 1000.0f * u(rng);
  }
  return c;
}

PodRequest ServicePod(int32_t s, Resources requests) {
  return PodRequest{.requests = requests, .kind = OwnerKind::kService, .owner = s};
}

// Places a replica of service `s` on `n` in both the state and the load.
void Place(ClusterState& state, PredictedLoad& load, int32_t s, const Resources& requests,
           NodeId n) {
  Container c{.kind = OwnerKind::kService, .owner = s, .node = n, .requests = requests};
  state.Add(c);
  load.AddContainer(c);
}

TEST(PredictedLoadTest, AddRemoveMatchesRecomputation) {
  std::mt19937_64 rng(7);
  std::vector<Node> nodes;
  nodes.reserve(8);
  for (int i = 0; i < 8; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), 64000, 256 * kGi));
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  for (int s = 0; s < 6; ++s) {
    const CurveId curve = s < 4 ? load.AddCurve(RandomCurves(rng, 4000, 8.0f * kGi)) : kNoCurve;
    load.SetService(s, s, curve);
  }
  std::vector<ContainerId> live;
  for (int step = 0; step < 400; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      const size_t i = rng() % live.size();
      load.RemoveContainer(state.container(live[i]));
      state.Remove(live[i]);
      live[i] = live.back();
      live.pop_back();
    } else {
      const int32_t s = static_cast<int32_t>(rng() % 6);
      Container c{.kind = OwnerKind::kService,
                  .owner = s,
                  .node = static_cast<NodeId>(rng() % nodes.size()),
                  .requests = Resources::Of(1000 + s * 500, (s + 1) * kGi)};
      live.push_back(state.Add(c));
      load.AddContainer(c);
    }
  }
  PredictedLoad fresh(nodes);
  std::mt19937_64 rng2(7);
  for (int s = 0; s < 6; ++s) {
    const CurveId curve = s < 4 ? fresh.AddCurve(RandomCurves(rng2, 4000, 8.0f * kGi)) : kNoCurve;
    fresh.SetService(s, s, curve);
  }
  RefreshResidents(fresh, state);
  for (NodeId n = 0; n < state.num_nodes(); ++n) {
    EXPECT_EQ(load.residents(n), fresh.residents(n));
    for (Dim d : kAllDims) {
      const float scale = std::max(1.0f, fresh.peak(n, d));
      EXPECT_NEAR(load.peak(n, d), fresh.peak(n, d), 1e-4f * scale);
      float peak = 0;
      for (int b = 0; b < load.bins(); ++b) {
        EXPECT_NEAR(load.usage(n, d)[b], fresh.usage(n, d)[b], 1e-4f * scale);
        peak = std::max(peak, load.usage(n, d)[b]);
      }
      EXPECT_EQ(peak, load.peak(n, d)) << "the envelope is the max of the stored curve";
    }
  }
}

TEST(PredictedLoadTest, FreeCurvesAndCounts) {
  std::vector<Node> nodes = {MakeNode("a", 10000, 64 * kGi, "z1", "p1"),
                             MakeNode("b", 10000, 64 * kGi, "z2", "p2")};
  PredictedLoad load(nodes, 288, 0.2);
  load.SetService(0, 0, load.AddCurve(DayNight(true, 6000, 1000, kGi)));
  load.Add(0, load.DemandOf(ServicePod(0, {})));
  EXPECT_FLOAT_EQ(load.limit(0, Dim::kCpu), 8000.0f);
  EXPECT_FLOAT_EQ(load.FreeAt(0, Dim::kCpu, load.BinAt(int64_t{12} * 3600)), 2000.0f);
  EXPECT_FLOAT_EQ(load.FreeAt(0, Dim::kCpu, load.BinAt(int64_t{2} * 3600)), 7000.0f);
  EXPECT_FLOAT_EQ(load.MinFree(0, Dim::kCpu, 0, 96), 7000.0f);     // 00:00–08:00
  EXPECT_FLOAT_EQ(load.MinFree(0, Dim::kCpu, 239, 100), 2000.0f);  // wraps past midnight
  std::vector<float> free(load.bins());
  load.FreeCurve(0, Dim::kCpu, free);
  EXPECT_FLOAT_EQ(free[100], 2000.0f);

  ClusterState state(nodes);
  load.ClearResidents();
  Place(state, load, 0, Resources::Of(1000, kGi), 1);
  EXPECT_EQ(load.app_in_zone(0, load.zone_of(1)), 1);
  EXPECT_EQ(load.app_in_zone(0, load.zone_of(0)), 0);
  EXPECT_EQ(load.service_in_pod(0, load.pod_of(1)), 1);
}

TEST(PredictedLoadTest, UnprofiledServicesCountTheirRequestsFlat) {
  ProfileSet profiles;
  AppProfile web;
  web.app = "web";
  web.high = DayNight(true, 3000, 500, kGi);
  profiles.apps.push_back(web);
  std::vector<Service> services(2);
  services[0].name = "web";
  services[1].name = "new-app";
  ClusterState state({MakeNode("a", 16000, 64 * kGi)});
  state.Add(Container{.owner = 0, .node = 0, .requests = Resources::Of(4000, 2 * kGi)});
  state.Add(Container{.owner = 1, .node = 0, .requests = Resources::Of(2000, 3 * kGi)});
  PredictedLoad load = BuildPredictedLoad(state, services, profiles, PlacementSettings{});
  EXPECT_FLOAT_EQ(load.peak(0, Dim::kCpu), 5000.0f);  // 3000 day peak + 2000 flat
  EXPECT_FLOAT_EQ(load.usage(0, Dim::kCpu)[0], 2500.0f);
  EXPECT_FLOAT_EQ(load.peak(0, Dim::kMemory), static_cast<float>(4 * kGi));
}

// The fill is the mean of the replicas still pending (expected minus resident, per service), kept
// through additions, removals, replicas beyond the expected count and ClearResidents.
TEST(PredictedLoadTest, FillIsTheMeanOfThePendingReplicas) {
  std::mt19937_64 rng(11);
  std::vector<Node> nodes = {MakeNode("a", 64000, 256 * kGi), MakeNode("b", 64000, 256 * kGi)};
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  std::vector<Service> services(3);
  for (int s = 0; s < 3; ++s) {
    services[s].replicas = 2 + s;
    services[s].requests = Resources::Of(int64_t{1000} * (s + 1), (s + 1) * kGi);
    load.SetService(s, s, s < 2 ? load.AddCurve(RandomCurves(rng, 3000, 4.0f * kGi)) : kNoCurve);
  }
  load.ExpectReplicas(services);
  std::vector<int> running(3, 0);
  // Per-bin mean of the pending replicas, recomputed from scratch.
  auto expect_fill = [&] {
    const FillCurve& fill = load.fill();
    double pending = 0;
    for (int s = 0; s < 3; ++s) pending += std::max(services[s].replicas - running[s], 0);
    if (pending == 0) {
      EXPECT_TRUE(fill.empty());
      return;
    }
    ASSERT_FALSE(fill.empty());
    for (Dim d : {Dim::kCpu, Dim::kMemory}) {
      for (int b = 0; b < load.bins(); b += 7) {
        double sum = 0;
        for (int s = 0; s < 3; ++s) {
          const Demand demand = load.DemandOf(ServicePod(s, services[s].requests));
          const double c = demand.curve ? demand.curve[static_cast<int>(d) * load.bins() + b]
                                        : demand.peak[static_cast<int>(d)];
          sum += std::max(services[s].replicas - running[s], 0) * c;
        }
        EXPECT_NEAR(fill.curve[static_cast<int>(d) * load.bins() + b], sum / pending,
                    1e-5 * sum / pending + 1e-3);
      }
    }
  };
  expect_fill();
  std::vector<ContainerId> live;
  for (int step = 0; step < 40; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      const ContainerId id = live[rng() % live.size()];
      --running[state.container(id).owner];
      load.RemoveContainer(state.container(id));
      state.Remove(id);
      std::erase(live, id);
    } else {
      const int32_t s = static_cast<int32_t>(rng() % 3);
      Container c{.kind = OwnerKind::kService,
                  .owner = s,
                  .node = static_cast<NodeId>(rng() % 2),
                  .requests = services[s].requests};
      live.push_back(state.Add(c));
      load.AddContainer(c);
      ++running[s];
    }
    expect_fill();
  }
  // Two replicas of the flat service (1 GiB → 3 GiB requests each) and nothing else pending.
  load.ClearResidents();
  running = {2, 3, 2};
  for (int s = 0; s < 3; ++s) {
    for (int r = 0; r < running[s]; ++r) Place(state, load, s, services[s].requests, 0);
  }
  expect_fill();
  EXPECT_DOUBLE_EQ(load.fill().requests[static_cast<int>(Dim::kCpu)], 3000.0);
  EXPECT_FLOAT_EQ(load.fill().Room(Resources::Of(10000, 9 * kGi)), 3.0f);  // memory binds
  EXPECT_FLOAT_EQ(load.fill().Room(Resources::Of(-5, 9 * kGi)), 0.0f);
}

// Two daytime services cannot share a 10-core node (their peaks sum to 12 cores, over the 9-core
// limit a 10 % buffer leaves) although their requests (8 cores) fit; a daytime and a night-time
// service can.
TEST(TimeAwareFitTest, ComplementaryServicesShareWhatPeersCannot) {
  std::vector<Node> nodes = {MakeNode("a", 10000, 64 * kGi)};
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  load.SetService(0, 0, load.AddCurve(DayNight(true, 6000, 1000, kGi)));
  load.SetService(1, 1, load.AddCurve(DayNight(false, 6000, 1000, kGi)));
  const Resources requests = Resources::Of(4000, 2 * kGi);
  Place(state, load, 0, requests, 0);
  const SchedulingContext ctx{state, &load};
  TimeAwareFit fit;
  EXPECT_FALSE(fit.Filter(ctx, ServicePod(0, requests), 0));
  EXPECT_TRUE(fit.Filter(ctx, ServicePod(1, requests), 0));
  EXPECT_NE(DescribeTimeAwareFit(ctx, ServicePod(0, requests), 0).find("cpu over limit at 08:00"),
            std::string::npos);
  // The guarantee still holds: requests beyond allocatable never fit, whatever the curves say.
  EXPECT_FALSE(fit.Filter(ctx, ServicePod(1, Resources::Of(7000, kGi)), 0));
}

// The filter's envelope shortcut gives the verdict of the full bin-by-bin check.
TEST(TimeAwareFitTest, EnvelopeShortcutAgreesWithFullCheck) {
  std::mt19937_64 rng(11);
  std::vector<Node> nodes;
  nodes.reserve(50);
  for (int i = 0; i < 50; ++i) {
    nodes.push_back(MakeNode("n" + std::to_string(i), 16000 + 1000 * (i % 7), 64 * kGi));
  }
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  for (int s = 0; s < 20; ++s) {
    load.SetService(s, s,
                    s % 5 == 4 ? kNoCurve : load.AddCurve(RandomCurves(rng, 3000, 6.0f * kGi)));
  }
  for (int i = 0; i < 200; ++i) {
    const int32_t s = static_cast<int32_t>(rng() % 20);
    Place(state, load, s, Resources::Of(500, kGi), static_cast<NodeId>(rng() % nodes.size()));
  }
  const SchedulingContext ctx{state, &load};
  TimeAwareFit fit;
  int passes = 0, fails = 0;
  for (int32_t s = 0; s < 20; ++s) {
    const PodRequest pod = ServicePod(s, Resources::Of(500, kGi));
    const Demand demand = load.DemandOf(pod);
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      bool full = true;
      for (int d = 0; d < kNumDims && full; ++d) {
        const float limit = load.limit(n, static_cast<Dim>(d));
        if (demand.peak[d] == 0 || limit == 0) continue;
        for (int b = 0; b < load.bins(); ++b) {
          const float c = demand.curve ? demand.curve[d * load.bins() + b] : demand.peak[d];
          if (load.usage(n, static_cast<Dim>(d))[b] + c > limit) full = false;
        }
      }
      EXPECT_EQ(fit.Filter(ctx, pod, n), full) << "service " << s << " node " << n;
      (full ? passes : fails)++;
    }
  }
  EXPECT_GT(passes, 50);
  EXPECT_GT(fails, 50);
}

TEST(ComplementarityTest, PrefersTheNodeWhoseValleyTheContainerFills) {
  std::vector<Node> nodes = {MakeNode("day", 32000, 64 * kGi), MakeNode("night", 32000, 64 * kGi)};
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  load.SetService(0, 0, load.AddCurve(DayNight(true, 6000, 1000, kGi)));
  load.SetService(1, 1, load.AddCurve(DayNight(false, 6000, 1000, kGi)));
  Place(state, load, 0, Resources::Of(2000, kGi), 0);
  Place(state, load, 1, Resources::Of(2000, kGi), 1);
  const SchedulingContext ctx{state, &load};
  Complementarity scorer;
  const PodRequest day = ServicePod(0, Resources::Of(2000, kGi));
  EXPECT_GT(scorer.Score(ctx, day, 1), scorer.Score(ctx, day, 0));
  const ComplementarityTerms t = scorer.Terms(ctx, day, 1);
  EXPECT_FLOAT_EQ(t.rise[0], 1000.0f);  // its 6000 by day over the night service's 1000
  EXPECT_FLOAT_EQ(t.node_peak[0], 6000.0f);
  EXPECT_FLOAT_EQ(scorer.Terms(ctx, day, 0).rise[0], 6000.0f);
}

// Judged by today's peak alone an empty node charges a container its whole peak, so the first
// nodes used would take containers until their requests bind. With the room filled by the pending
// replicas (here night-time ones), a container shaped like them is neutral on an empty node, a
// day-time one fills the projected valley there, and on a node whose resident already peaks by
// day it raises the projected peak.
TEST(ComplementarityTest, ProjectsTheRoomFilledWithThePendingReplicas) {
  std::vector<Node> nodes = {MakeNode("empty", 32000, 64 * kGi), MakeNode("day", 32000, 64 * kGi)};
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  std::vector<Service> services(3);
  for (Service& svc : services) svc.requests = Resources::Of(2000, kGi);
  services[0].replicas = 30;
  services[2].replicas = 0;
  load.SetService(0, 0, load.AddCurve(DayNight(false, 1500, 500, 0)));
  load.SetService(1, 1, load.AddCurve(DayNight(true, 20000, 1000, 0)));
  load.SetService(2, 2, load.AddCurve(DayNight(true, 1500, 500, 0)));
  Place(state, load, 1, services[1].requests, 1);
  const Complementarity scorer({}, 0.0, /*project_room=*/true);
  const PodRequest night = ServicePod(0, services[0].requests);
  const PodRequest day = ServicePod(2, services[2].requests);
  EXPECT_EQ(scorer.Score({state, &load}, day, 0), 0);  // nothing pending: today's peak
  load.ExpectReplicas(services);
  const SchedulingContext ctx{state, &load};
  const ComplementarityTerms neutral = scorer.Terms(ctx, night, 0);
  EXPECT_FLOAT_EQ(neutral.room, 16.0f);  // 32 cores of 2-core replicas
  EXPECT_FLOAT_EQ(neutral.room_with, 15.0f);
  EXPECT_FLOAT_EQ(neutral.projected_peak[0], 24000.0f);
  EXPECT_FLOAT_EQ(neutral.rise[0], 0.0f);
  EXPECT_EQ(neutral.score, 50);
  EXPECT_FLOAT_EQ(scorer.Terms(ctx, day, 0).rise[0], -1000.0f);  // 500 + 15 × 1500 at night
  EXPECT_EQ(scorer.Score(ctx, day, 0), 83);
  EXPECT_FLOAT_EQ(scorer.Terms(ctx, day, 1).rise[0], 1000.0f);  // 20000 + 1500 + 14 × 500
  EXPECT_EQ(scorer.Score(ctx, day, 1), 17);
}

TEST(ComplementarityTest, ClassBonusBreaksTiesTowardsComplementaryNeighbours) {
  std::vector<Node> nodes = {MakeNode("a", 64000, 256 * kGi), MakeNode("b", 64000, 256 * kGi)};
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  // Flat residents: the curve term is the same on both nodes.
  load.SetService(0, 0, kNoCurve, 0);
  load.SetService(1, 1, kNoCurve, 1);
  load.SetService(2, 2, kNoCurve, 2);
  Place(state, load, 1, Resources::Of(1000, kGi), 0);
  Place(state, load, 2, Resources::Of(1000, kGi), 1);
  ClassComplementarity classes(
      {ClassPair{.a = 0, .b = 1, .score = 0.45f}, ClassPair{.a = 0, .b = 2, .score = 0.0f}});
  Complementarity scorer(classes, 0.1);
  const SchedulingContext ctx{state, &load};
  const PodRequest pod = ServicePod(0, Resources::Of(1000, kGi));
  EXPECT_GT(scorer.Score(ctx, pod, 0), scorer.Score(ctx, pod, 1));
  EXPECT_EQ(Complementarity().Score(ctx, pod, 0), Complementarity().Score(ctx, pod, 1));
}

// Free (cpu, memory): a = 6 cores / 12 Gi, b = 5 cores / 10 Gi. A 2-core, 4 Gi container leaves
// 4 / 8 on a — still room for the mix's 4 / 8 tasks — but 3 / 6 on b, which no task can use.
TEST(FragmentationTest, PrefersThePlacementThatLeavesUsableShapes) {
  std::vector<Node> nodes = {MakeNode("a", 16000, 32 * kGi), MakeNode("b", 16000, 32 * kGi)};
  ClusterState state(nodes);
  state.Add(Container{.node = 0, .requests = Resources::Of(10000, 20 * kGi)});
  state.Add(Container{.node = 1, .requests = Resources::Of(11000, 22 * kGi)});
  Fragmentation scorer({{Resources::Of(4000, 8 * kGi), 1.0}});
  const SchedulingContext ctx{state};
  const PodRequest pod = ServicePod(0, Resources::Of(2000, 4 * kGi));
  EXPECT_EQ(scorer.Score(ctx, pod, 0), 50);
  EXPECT_LT(scorer.Score(ctx, pod, 1), 50);
  // Filling a fragment nothing else could use scores above neutral.
  const PodRequest filler = ServicePod(0, Resources::Of(5000, 10 * kGi));
  state.Add(Container{.node = 0, .requests = Resources::Of(3000, 6 * kGi)});  // a: 3 / 6 free
  EXPECT_GT(scorer.Score(ctx, ServicePod(0, Resources::Of(3000, 6 * kGi)), 0), 50);
  EXPECT_EQ(scorer.Score(ctx, filler, 1), 50);  // takes all of b's usable 5 / 10: 0 → 0
}

// On a fleet with GPUs, GPUs left free where no shape of the mix fits are fragments too (the FGD
// paper's measure): node a keeps 2 of its 4 GPUs with no cpu or memory beside them, so they count
// as 2 of the fleet's 8 GPUs unusable; a 1-GPU pod on b would leave 3 GPUs, too few for the mix's
// 4-GPU pods, and scores below neutral.
TEST(FragmentationTest, StrandedGpusAreFragments) {
  std::vector<Node> nodes = {MakeNode("a", 8000, 32 * kGi), MakeNode("b", 8000, 32 * kGi)};
  for (Node& n : nodes) n.capacity[Dim::kGpu] = n.allocatable[Dim::kGpu] = 4000;
  ClusterState state(nodes);
  Resources most = Resources::Of(8000, 32 * kGi);
  most[Dim::kGpu] = 2000;
  state.Add(Container{.node = 0, .requests = most});
  Resources four_gpus = Resources::Of(1000, kGi);
  four_gpus[Dim::kGpu] = 4000;
  Fragmentation scorer({{four_gpus, 1.0}});
  const SchedulingContext ctx{state};
  Resources one_gpu = Resources::Of(1000, kGi);
  one_gpu[Dim::kGpu] = 1000;
  const PodRequest pod = ServicePod(0, one_gpu);
  EXPECT_DOUBLE_EQ(scorer.Terms(ctx, pod, 0).unusable_before, 2000.0 / 8000.0);
  // On b: nothing stranded before (the 4-GPU shape fits), 3 GPUs and the cpu and memory left
  // unusable after.
  const FragmentationTerms on_b = scorer.Terms(ctx, pod, 1);
  EXPECT_DOUBLE_EQ(on_b.unusable_before, 0);
  EXPECT_DOUBLE_EQ(on_b.unusable_after, 7000.0 / 16000 + 31.0 / 64 + 3000.0 / 8000);
  EXPECT_LT(on_b.score, 50);
}

// The shapes a free vector leaves unusable are found through a per-dimension index; the shares
// must be exactly those of comparing every shape in every dimension, added in mix order, on mixes
// with equal amounts, zero amounts and GPUs, on every kind of node from empty to full.
TEST(FragmentationTest, TheShapeIndexGivesExactlyTheShapesThatDoNotFit) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<Node> nodes;
    for (int i = 0; i < 20; ++i) {
      Node n = MakeNode("n" + std::to_string(i), 16000, 64 * kGi);
      n.capacity[Dim::kGpu] = n.allocatable[Dim::kGpu] = 4000 * static_cast<int64_t>(i % 3);
      nodes.push_back(n);
    }
    ClusterState state(nodes);
    TaskShapeMix mix;
    const int shapes = 1 + static_cast<int>(rng() % 64);
    std::uniform_real_distribution<double> weight(0.01, 1.0);
    for (int k = 0; k < shapes; ++k) {
      Resources shape = Resources::Of(1000 * static_cast<int64_t>(rng() % 9),
                                      kGi * static_cast<int64_t>(rng() % 40));
      shape[Dim::kGpu] = 1000 * static_cast<int64_t>(rng() % 3);
      mix.push_back({shape, weight(rng)});
    }
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      const int containers = static_cast<int>(rng() % 5);
      for (int c = 0; c < containers; ++c) {
        Resources requests = Resources::Of(1000 * static_cast<int64_t>(1 + rng() % 4),
                                           kGi * static_cast<int64_t>(1 + rng() % 16));
        requests[Dim::kGpu] = std::min<int64_t>(1000 * static_cast<int64_t>(rng() % 2),
                                                state.unrequested(n)[Dim::kGpu]);
        if (requests.FitsIn(state.unrequested(n)))
          state.Add(Container{.node = n, .requests = requests});
      }
    }
    const Fragmentation scorer(mix);
    const SchedulingContext ctx{state};
    double total_cpu = 0, total_memory = 0, total_gpu = 0;
    for (const Node& n : nodes) {
      total_cpu += static_cast<double>(n.allocatable.cpu());
      total_memory += static_cast<double>(n.allocatable.memory());
      total_gpu += static_cast<double>(n.allocatable[Dim::kGpu]);
    }
    auto unusable = [&](const Resources& free) {
      double share = 0;
      for (const auto& [shape, w] : mix) {
        if (!shape.FitsIn(free)) share += w;
      }
      const double weight_of_free = static_cast<double>(free.cpu()) / total_cpu +
                                    static_cast<double>(free.memory()) / total_memory +
                                    static_cast<double>(free[Dim::kGpu]) / total_gpu;
      return weight_of_free == 0 ? 0 : weight_of_free * share;
    };
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      const PodRequest pod = ServicePod(0, Resources::Of(2000, 8 * kGi));
      Resources free = state.unrequested(n), after = free - pod.requests;
      for (int d = 0; d < kNumDims; ++d) after.amount[d] = std::max<int64_t>(after.amount[d], 0);
      const FragmentationTerms t = scorer.Terms(ctx, pod, n);
      ASSERT_EQ(t.unusable_before, unusable(free)) << "trial " << trial << " node " << n;
      ASSERT_EQ(t.unusable_after, unusable(after)) << "trial " << trial << " node " << n;
    }
  }
  EXPECT_THROW(
      Fragmentation(TaskShapeMix(Fragmentation::kMaxShapes + 1, {Resources::Of(1000, kGi), 1.0})),
      std::invalid_argument);
}

// The mix keeps the most frequent shapes, weighted by their share of those kept; a shape nobody
// asked for is not in it, and nothing asked for gives no mix.
TEST(FragmentationTest, TheMixIsTheMostFrequentShapes) {
  const Resources small = Resources::Of(1000, kGi), large = Resources::Of(4000, 8 * kGi);
  const Resources rare = Resources::Of(2000, 2 * kGi), none = Resources::Of(8000, kGi);
  const ShapeCounts counts = {
      {small.amount, 6}, {large.amount, 3}, {rare.amount, 1}, {none.amount, 0}};
  const TaskShapeMix mix = MostFrequentShapes(counts, 2);
  ASSERT_EQ(mix.size(), 2u);
  EXPECT_EQ(mix[0].first, small);
  EXPECT_DOUBLE_EQ(mix[0].second, 6.0 / 9);
  EXPECT_EQ(mix[1].first, large);
  EXPECT_DOUBLE_EQ(mix[1].second, 3.0 / 9);
  EXPECT_EQ(MostFrequentShapes(counts).size(), 3u);
  EXPECT_TRUE(MostFrequentShapes({{none.amount, 0}}).empty());
}

class RulesTest : public ::testing::Test {
 protected:
  RulesTest()
      : nodes_({MakeNode("a", 32000, 64 * kGi, "z1", "p1"),
                MakeNode("b", 32000, 64 * kGi, "z1", "p2"),
                MakeNode("c", 32000, 64 * kGi, "z2", "p3")}),
        state_(nodes_),
        load_(nodes_) {
    for (int s = 0; s < 4; ++s) load_.SetService(s, s, kNoCurve, s);
  }
  SchedulingContext ctx() const { return SchedulingContext{state_, &load_}; }
  RulesTable Table(int32_t service, PlacementRules rules) {
    auto table = std::make_shared<std::vector<PlacementRules>>(4);
    (*table)[service] = std::move(rules);
    return table;
  }

  std::vector<Node> nodes_;
  ClusterState state_;
  PredictedLoad load_;
  const Resources r_ = Resources::Of(1000, kGi);
};

TEST_F(RulesTest, NodeSelectorMatchesLabelsAndTopology) {
  state_.AddNode([] {
    Node n = MakeNode("gpu", 32000, 64 * kGi, "z2", "p3");
    n.labels["accelerator"] = "a100";
    return n;
  }());
  const NodeSelector selector;
  const std::map<std::string, std::string> by_label = {{"accelerator", "a100"}};
  PodRequest pod = ServicePod(0, r_);
  pod.node_selector = &by_label;
  EXPECT_FALSE(selector.Filter(ctx(), pod, 0));
  EXPECT_TRUE(selector.Filter(ctx(), pod, 3));
  const std::map<std::string, std::string> by_zone = {{"topology.kubernetes.io/zone", "z2"}};
  pod.node_selector = &by_zone;
  EXPECT_FALSE(selector.Filter(ctx(), pod, 1));
  EXPECT_TRUE(selector.Filter(ctx(), pod, 2));
  EXPECT_TRUE(selector.Filter(ctx(), ServicePod(1, r_), 1)) << "a pod without a selector";
}

TEST_F(RulesTest, RequiredAffinityAndAntiAffinity) {
  Place(state_, load_, 1, r_, 0);  // app 1 on node a (zone z1)
  InterAppAffinity near_node(Table(0, {.affinity = {{.id = 1, .topology = Topology::kNode}}}));
  EXPECT_TRUE(near_node.Filter(ctx(), ServicePod(0, r_), 0));
  EXPECT_FALSE(near_node.Filter(ctx(), ServicePod(0, r_), 1));
  InterAppAffinity near_zone(Table(0, {.affinity = {{.id = 1, .topology = Topology::kZone}}}));
  EXPECT_TRUE(near_zone.Filter(ctx(), ServicePod(0, r_), 1));
  EXPECT_FALSE(near_zone.Filter(ctx(), ServicePod(0, r_), 2));
  InterAppAffinity away(
      Table(0, {.affinity = {{.id = 1, .topology = Topology::kPod, .anti = true}}}));
  EXPECT_FALSE(away.Filter(ctx(), ServicePod(0, r_), 0));
  EXPECT_TRUE(away.Filter(ctx(), ServicePod(0, r_), 1));
  // Self-affinity: the first replica goes anywhere, later ones join it.
  InterAppAffinity self(Table(2, {.affinity = {{.id = 2, .topology = Topology::kZone}}}));
  EXPECT_TRUE(self.Filter(ctx(), ServicePod(2, r_), 2));
  Place(state_, load_, 2, r_, 2);
  EXPECT_TRUE(self.Filter(ctx(), ServicePod(2, r_), 2));
  EXPECT_FALSE(self.Filter(ctx(), ServicePod(2, r_), 0));
  const std::string why = DescribeRules(ctx(), ServicePod(2, r_), 0,
                                        {.affinity = {{.id = 2, .topology = Topology::kZone}}});
  EXPECT_NE(why.find("requires app 2 in zone: 0 there (not met)"), std::string::npos) << why;
}

TEST_F(RulesTest, PreferredTermsAndClassHints) {
  Place(state_, load_, 1, r_, 0);
  Place(state_, load_, 3, r_, 1);
  InterAppPreference pref(Table(
      0, {.affinity = {
              {.target = AffinityTerm::Target::kClass, .id = 1, .weight = 30},
              {.target = AffinityTerm::Target::kClass, .id = 3, .anti = true, .weight = 10}}}));
  EXPECT_EQ(pref.Score(ctx(), ServicePod(0, r_), 0), 100);  // class 1 here, class 3 absent
  EXPECT_EQ(pref.Score(ctx(), ServicePod(0, r_), 1), 0);
  EXPECT_EQ(pref.Score(ctx(), ServicePod(0, r_), 2), 25);

  ProfileSet profiles;
  profiles.hints.push_back(
      PlacementHint{.a = 1, .b = 0, .kind = HintKind::kAffinity, .score = 0.6f});
  std::vector<Service> services(4);
  const PlacementInputs inputs =
      PlacementInputs::From(services, profiles, load_, PlacementSettings{}, {});
  ASSERT_EQ(inputs.rules[0].affinity.size(), 1u);
  EXPECT_EQ(inputs.rules[0].affinity[0].id, 1);
  EXPECT_EQ(inputs.rules[0].affinity[0].weight, 30);
  EXPECT_EQ(inputs.rules[1].affinity[0].id, 0);
  EXPECT_TRUE(inputs.rules[2].affinity.empty());
}

// An anti-affinity hint's score is the small peak reduction co-locating achieves (below the 0.03
// threshold): the smaller it is, the more the peaks stack and the more the hint weighs, by how far
// it falls below the threshold (0 at the threshold, so weights grow continuously from where hints
// begin). Weighing by the score itself made the strongest hints the weakest.
TEST_F(RulesTest, AntiAffinityHintsWeighMoreTheMoreThePeaksStack) {
  EXPECT_FLOAT_EQ(HintStrength({.kind = HintKind::kAffinity, .score = 0.16f}), 0.16f);
  EXPECT_FLOAT_EQ(HintStrength({.kind = HintKind::kAntiAffinity, .score = 0.0f}), 0.03f);
  EXPECT_NEAR(HintStrength({.kind = HintKind::kAntiAffinity, .score = 0.02f}), 0.01f, 1e-6f);
  EXPECT_FLOAT_EQ(HintStrength({.kind = HintKind::kAntiAffinity, .score = 0.05f}), 0.0f);
  EXPECT_GT(HintStrength({.kind = HintKind::kAntiAffinity, .score = 0.005f}),
            HintStrength({.kind = HintKind::kAntiAffinity, .score = 0.025f}));

  ProfileSet profiles;
  profiles.hints.push_back(
      PlacementHint{.a = 0, .b = 1, .kind = HintKind::kAffinity, .score = 0.16f});
  profiles.hints.push_back(
      PlacementHint{.a = 0, .b = 2, .kind = HintKind::kAntiAffinity, .score = 0.0f});
  profiles.hints.push_back(
      PlacementHint{.a = 3, .b = 0, .kind = HintKind::kAntiAffinity, .score = 0.02f});
  std::vector<Service> services(4);
  const PlacementInputs inputs =
      PlacementInputs::From(services, profiles, load_, PlacementSettings{.hint_weight = 100}, {});
  ASSERT_EQ(inputs.rules[0].affinity.size(), 3u);
  EXPECT_EQ(inputs.rules[0].affinity[0].weight, 16);  // 0.16 × 100
  EXPECT_FALSE(inputs.rules[0].affinity[0].anti);
  EXPECT_EQ(inputs.rules[0].affinity[1].id, 2);
  EXPECT_TRUE(inputs.rules[0].affinity[1].anti);
  EXPECT_EQ(inputs.rules[0].affinity[1].weight, 3);  // peaks stack fully: 0.03 × 100
  EXPECT_EQ(inputs.rules[0].affinity[2].id, 3);
  EXPECT_EQ(inputs.rules[0].affinity[2].weight, 1);  // 0.01 × 100
  EXPECT_EQ(inputs.rules[3].affinity[0].weight, 1);
}

TEST_F(RulesTest, SpreadAcrossZones) {
  const PlacementRules hard{.spread = true,
                            .spread_rule = {.topology = Topology::kZone, .max_skew = 1}};
  TopologySpread filter(Table(0, hard));
  TopologySpreadScore score(Table(0, hard));
  Place(state_, load_, 0, r_, 0);  // z1: 1, z2: 0
  EXPECT_FALSE(filter.Filter(ctx(), ServicePod(0, r_), 1)) << "z1 would have 2 against 0";
  EXPECT_TRUE(filter.Filter(ctx(), ServicePod(0, r_), 2));
  EXPECT_EQ(score.Score(ctx(), ServicePod(0, r_), 1), 0);
  EXPECT_EQ(score.Score(ctx(), ServicePod(0, r_), 2), 100);
  Place(state_, load_, 0, r_, 2);  // even again
  EXPECT_TRUE(filter.Filter(ctx(), ServicePod(0, r_), 1));
  EXPECT_EQ(score.Score(ctx(), ServicePod(0, r_), 1), 100);
}

// The full-loop versions of the two curve plugins, without envelope or flat/empty shortcuts.
class NaiveTimeAwareFit : public FilterPlugin {
 public:
  std::string_view name() const override { return "TimeAwareFit"; }
  bool Filter(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override {
    for (Dim d : {Dim::kCpu, Dim::kMemory, Dim::kGpu}) {
      if (pod.requests[d] > 0 &&
          ctx.state.requested(node)[d] + pod.requests[d] > ctx.state.allocatable(node)[d]) {
        return false;
      }
    }
    const Demand demand = ctx.predicted->DemandOf(pod);
    const int bins = ctx.predicted->bins();
    for (int d = 0; d < kNumDims; ++d) {
      const float limit = ctx.predicted->limit(node, static_cast<Dim>(d));
      if (demand.peak[d] == 0 || limit == 0) continue;
      for (int b = 0; b < bins; ++b) {
        const float c = demand.curve ? demand.curve[d * bins + b] : demand.peak[d];
        if (ctx.predicted->usage(node, static_cast<Dim>(d))[b] + c > limit) return false;
      }
    }
    return true;
  }
};

class NaiveComplementarity : public ScorePlugin {
 public:
  NaiveComplementarity(ClassComplementarity classes, bool project)
      : classes_(std::move(classes)), project_(project) {}
  std::string_view name() const override { return "Complementarity"; }
  int64_t Score(const SchedulingContext& ctx, const PodRequest& pod, NodeId node) const override {
    const PredictedLoad& load = *ctx.predicted;
    const Demand demand = load.DemandOf(pod);
    const FillCurve& fill = load.fill();
    const bool projects = project_ && !fill.empty();
    const Resources free = ctx.state.unrequested(node);
    const float room = projects ? fill.Room(free) : 0.0f;
    const float room_with = projects ? fill.Room(free - pod.requests) : 0.0f;
    double weighted = 0, weights = 0;
    for (int d = 0; d < kNumDims; ++d) {
      const float limit = load.limit(node, static_cast<Dim>(d));
      if (demand.peak[d] == 0 || limit == 0) continue;
      float after = 0, before = 0;
      if (!projects) {  // today's peak, bin by bin
        for (int b = 0; b < load.bins(); ++b) {
          const float u = load.usage(node, static_cast<Dim>(d))[b];
          const float c = demand.curve ? demand.curve[d * load.bins() + b] : demand.peak[d];
          after = std::max(after, u + c);
          before = std::max(before, u);
        }
      } else {  // projected, hour by hour: each curve's maximum over the hour's 12 bins
        for (int b0 = 0; b0 < load.bins(); b0 += 12) {
          float u = 0, c = 0, f = 0;
          for (int b = b0; b < b0 + 12; ++b) {
            u = std::max(u, load.usage(node, static_cast<Dim>(d))[b]);
            c = std::max(c, demand.curve ? demand.curve[d * load.bins() + b] : demand.peak[d]);
            f = std::max(f, fill.curve[d * load.bins() + b]);
          }
          after = std::max(after, (u + c) + room_with * f);
          before = std::max(before, u + room * f);
        }
      }
      const float rise =
          projects ? after - before : std::clamp(after - before, 0.0f, demand.peak[d]);
      const float w = demand.peak[d] / limit;
      const double term = 1.0 - static_cast<double>(rise) / demand.peak[d];
      weighted += w * (projects ? std::clamp(term, 0.0, 2.0) / 2 : term);
      weights += w;
    }
    const double curve = weights > 0 ? weighted / weights : 1.0;
    double cls = curve;
    const int32_t own = load.service_class(pod.owner);
    double sum = 0;
    int n = 0;
    for (ContainerId id : ctx.state.containers_on(node)) {
      const int32_t other = load.service_class(ctx.state.container(id).owner);
      if (own < 0 || other < 0) continue;
      sum += std::min(1.0, 2.0 * classes_.score(own, other));
      ++n;
    }
    if (n > 0) cls = sum / n;
    return std::llround((0.9 * curve + 0.1 * cls) * 100.0);
  }

 private:
  ClassComplementarity classes_;
  bool project_;
};

// The fast plugins (envelope check, flat and empty shortcuts, sampled scan) choose the same node
// with the same scores as the full-loop versions scanning every node, on random fleets.
TEST(PlacementScanTest, FastPathMatchesNaiveFullScan) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Node> nodes;
    nodes.reserve(120);
    for (int i = 0; i < 120; ++i) {
      nodes.push_back(MakeNode("n" + std::to_string(i), 16000 + 8000 * (i % 3), 64 * kGi,
                               "z" + std::to_string(i % 3), "p" + std::to_string(i % 10)));
    }
    ClusterState state(nodes);
    PredictedLoad load(nodes);
    std::vector<Service> services(30);
    std::vector<ClassPair> pairs;
    for (int a = 0; a < 4; ++a) {
      for (int b = a; b < 4; ++b) {
        pairs.push_back({.a = a, .b = b, .score = 0.1f * static_cast<float>((a + b) % 5)});
      }
    }
    for (int s = 0; s < 30; ++s) {
      services[s].requests = Resources::Of(500 + 250 * (s % 6), (1 + s % 4) * kGi);
      services[s].replicas = 1 + s % 25;  // 375 expected: pending until late, then exceeded
      load.SetService(s, s % 20,
                      s % 7 == 6 ? kNoCurve : load.AddCurve(RandomCurves(rng, 2500, 3.0f * kGi)),
                      s % 5 == 4 ? -1 : s % 4);
    }
    load.ExpectReplicas(services);
    // Seeds 1 and 3 judge today's peaks, seed 2 the projected ones.
    PlacementSettings settings{
        .project_room = seed == 2, .percentage_of_nodes_to_score = 100, .seed = seed};
    PlacementInputs inputs;
    inputs.classes = ClassComplementarity(pairs);
    inputs.shape_mix = {{Resources::Of(1000, 2 * kGi), 0.5}, {Resources::Of(4000, 8 * kGi), 0.5}};
    inputs.rules.resize(30);
    inputs.rules[3].spread = true;
    inputs.rules[3].spread_rule = {.topology = Topology::kZone, .max_skew = 2};
    inputs.rules[5].affinity.push_back(
        {.id = 1, .topology = Topology::kPod, .anti = true, .weight = 40});
    inputs.rules[7].affinity.push_back(
        {.target = AffinityTerm::Target::kClass, .id = 2, .weight = 20});
    Scheduler fast = MakeArchimedesServiceScheduler(settings, inputs);

    auto rules = std::make_shared<const std::vector<PlacementRules>>(inputs.rules);
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(std::make_unique<NodeReady>());
    filters.push_back(std::make_unique<NodeSelector>());
    filters.push_back(std::make_unique<MaxPerNode>());
    filters.push_back(std::make_unique<NaiveTimeAwareFit>());
    filters.push_back(std::make_unique<InterAppAffinity>(rules));
    filters.push_back(std::make_unique<TopologySpread>(rules));
    std::vector<WeightedScorer> scorers;
    scorers.push_back(
        {std::make_unique<NaiveComplementarity>(inputs.classes, settings.project_room), 2});
    scorers.push_back({std::make_unique<Fragmentation>(inputs.shape_mix), 1});
    scorers.push_back({std::make_unique<InterAppPreference>(rules), 1});
    scorers.push_back({std::make_unique<TopologySpreadScore>(rules), 1});
    scorers.push_back({std::make_unique<BatchDisplacement>(), 1});
    Scheduler naive(std::move(filters), std::move(scorers),
                    SchedulerOptions{.percentage_of_nodes_to_score = 100, .seed = seed});

    int placed = 0;
    for (int i = 0; i < 600; ++i) {
      const int32_t s = static_cast<int32_t>(rng() % 30);
      const PodRequest pod = ServicePod(s, services[s].requests);
      const SchedulingContext ctx{state, &load};
      if (i % 50 == 0) {
        const auto a = fast.Explain(ctx, pod);
        const auto b = naive.Explain(ctx, pod);
        for (size_t n = 0; n < a.size(); ++n) {
          ASSERT_EQ(a[n].failed_filter, b[n].failed_filter) << "node " << n;
          ASSERT_EQ(a[n].scores, b[n].scores) << "node " << n;
        }
      }
      const NodeId chosen = fast.Schedule(ctx, pod);
      ASSERT_EQ(chosen, naive.Schedule(ctx, pod)) << "seed " << seed << " decision " << i;
      if (chosen < 0) continue;
      Place(state, load, s, pod.requests, chosen);
      ++placed;
      if (rng() % 4 == 0) {  // churn: something leaves
        const ContainerId victim = static_cast<ContainerId>(rng() % state.id_limit());
        if (state.alive(victim)) {
          load.RemoveContainer(state.container(victim));
          state.Remove(victim);
        }
      }
    }
    EXPECT_GT(placed, 300);
    // The burst buffer is never entered.
    for (NodeId n = 0; n < state.num_nodes(); ++n) {
      for (Dim d : kAllDims) {
        if (load.limit(n, d) == 0) continue;  // disk: not modelled on these nodes
        for (float u : load.usage(n, d)) ASSERT_LE(u, load.limit(n, d) * 1.0001f);
      }
    }
  }
}

// kube-scheduler's scan as the Scheduler ran it before the candidate index, on top of Explain
// (every node's filter verdict and weighted total): visit nodes round-robin from where the last
// decision stopped until the adaptive percentageOfNodesToScore of them are feasible, then take
// the best total, ties broken by reservoir sampling with the Scheduler's generator.
class ReferenceScan {
 public:
  explicit ReferenceScan(uint64_t seed) : rng_(seed) {}

  NodeId Schedule(const Scheduler& plugins, const SchedulingContext& ctx, const PodRequest& pod) {
    const std::vector<NodeExplanation> verdicts = plugins.Explain(ctx, pod);
    const int n = static_cast<int>(verdicts.size());
    const int to_find = n < 100 ? n : std::max(n * std::max(50 - n / 125, 5) / 100, 100);
    std::vector<NodeId> feasible;
    int processed = 0;
    for (; processed < n && static_cast<int>(feasible.size()) < to_find; ++processed) {
      const NodeId node = (start_ + processed) % n;
      if (verdicts[node].failed_filter.empty()) feasible.push_back(node);
    }
    start_ = (start_ + processed) % n;
    if (feasible.size() <= 1) return feasible.empty() ? -1 : feasible[0];
    NodeId best = -1;
    int64_t best_total = -1;
    uint64_t ties = 0;
    for (NodeId node : feasible) {
      const int64_t total = verdicts[node].total;
      if (total > best_total) {
        best_total = total;
        best = node;
        ties = 1;
      } else if (total == best_total && rng_() % ++ties == 0) {
        best = node;
      }
    }
    return best;
  }

 private:
  int start_ = 0;
  std::mt19937_64 rng_;
};

// On a fleet that fills up, so that most nodes cannot hold a request and whole index blocks are
// skipped, the candidate index changes nothing: with kube-scheduler's sampling (which stops after
// a share of the feasible nodes and starts the next scan where this one stopped), nodes added
// mid-run, containers leaving, and the FeasibilityMemo of identical pods, every decision of the
// k8s-default, k8s-binpack and archimedes service schedulers is the reference scan's.
TEST(PlacementScanTest, CandidateIndexMatchesFullScan) {
  for (int kind = 0; kind < 3; ++kind) {  // k8s-default, k8s-binpack, archimedes
    SCOPED_TRACE(kind);
    const uint64_t seed = 11 + kind;
    std::mt19937_64 rng(seed);
    std::vector<Node> nodes;
    nodes.reserve(700);
    for (int i = 0; i < 700; ++i) {  // 10 full index blocks and a partial one
      nodes.push_back(MakeNode("n" + std::to_string(i), int64_t{1000} * (1 + i % 4),
                               int64_t{8} * (1 + i % 3) * kGi, "z" + std::to_string(i % 3),
                               "p" + std::to_string(i % 20)));
    }
    ClusterState state(nodes);
    PredictedLoad load(nodes);
    constexpr int kServices = 12;
    std::vector<Resources> requests;
    for (int s = 0; s < kServices; ++s) {
      requests.push_back(Resources::Of(int64_t{250} * (1 + s % 8), (s % 3) * kGi / 2));
      load.SetService(s, s, s % 4 == 3 ? kNoCurve : load.AddCurve(RandomCurves(rng, 300, kGi)),
                      s % 3);
    }
    PlacementInputs inputs;
    inputs.shape_mix = {{Resources::Of(1000, kGi), 0.5}, {Resources::Of(2000, 4 * kGi), 0.5}};
    inputs.rules.resize(kServices);
    Scheduler scheduler =
        kind < 2 ? MakeKubernetesScheduler(
                       kind == 0 ? FitScoring::kLeastAllocated : FitScoring::kMostAllocated, seed)
                 : MakeArchimedesServiceScheduler(PlacementSettings{.seed = seed}, inputs);
    ReferenceScan reference(seed);
    FeasibilityMemo memo;
    int placed = 0, unplaced = 0, index_skips = 0;
    for (int step = 0; step < 2000; ++step) {
      const int32_t s = static_cast<int32_t>(rng() % kServices);
      const PodRequest pod = ServicePod(s, requests[s]);
      const SchedulingContext ctx{state, &load};
      // Every fifth pod comes as a job of identical tasks placed with the memo.
      const bool job = step % 5 == 0;
      for (int task = 0; task < (job ? 4 : 1); ++task) {
        const NodeId expected = reference.Schedule(scheduler, ctx, pod);
        const NodeId chosen = scheduler.Schedule(ctx, pod, job ? &memo : nullptr);
        ASSERT_EQ(chosen, expected) << "step " << step;
        if (chosen < 0) {
          ++unplaced;
          break;
        }
        Place(state, load, s, pod.requests, chosen);
        if (job) memo.Placed(chosen);
        ++placed;
      }
      memo.Reset();
      if (rng() % 3 == 0) {  // churn: something leaves
        const ContainerId victim = static_cast<ContainerId>(rng() % state.id_limit());
        if (state.alive(victim)) {
          load.RemoveContainer(state.container(victim));
          state.Remove(victim);
        }
      }
      if (step % 500 == 499) {  // the fleet grows
        const Node n = MakeNode("new" + std::to_string(step), 4000, 32 * kGi, "z0", "p0");
        state.AddNode(n);
        load.AddNode(n);
      }
      for (int b = 0; b * ClusterState::kIndexBlock < state.num_nodes(); ++b) {
        index_skips += !state.BlockMayHold(b, requests[7]);
      }
    }
    EXPECT_GT(placed, 1500);
    EXPECT_GT(unplaced, 100) << "the fleet never filled up";
    EXPECT_GT(index_skips, 1000) << "the index never skipped a block";
  }
}

TEST(PlacementScanTest, DescribePlacementNamesEveryTerm) {
  std::vector<Node> nodes = {MakeNode("a", 10000, 64 * kGi)};
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  load.SetService(0, 0, load.AddCurve(DayNight(true, 6000, 1000, kGi)), 0);
  Place(state, load, 0, Resources::Of(2000, kGi), 0);
  PlacementInputs inputs;
  inputs.shape_mix = {{Resources::Of(1000, kGi), 1.0}};
  inputs.rules.resize(1);
  inputs.rules[0].spread = true;
  const SchedulingContext ctx{state, &load};
  const std::string text = DescribePlacement(ctx, ServicePod(0, Resources::Of(2000, kGi)), 0,
                                             PlacementSettings{}, inputs);
  EXPECT_NE(text.find("fit: cpu over limit at 08:00"), std::string::npos) << text;
  EXPECT_NE(text.find("complementarity ("), std::string::npos) << text;
  EXPECT_NE(text.find("fragmentation (50)"), std::string::npos) << text;
  EXPECT_NE(text.find("spread over zone: 1 here"), std::string::npos) << text;
}

}  // namespace
}  // namespace archimedes
