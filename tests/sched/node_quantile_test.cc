// The node-level quantile of PredictedLoad (what batch plans against): per node, dimension and bin
// Σ mean + sqrt(Σ over curves (replicas × (high − mean))²), kept through adds and removes.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "model/cluster_state.h"
#include "sched/predicted_load.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

Node MakeNode(std::string name, int64_t cpu, int64_t memory) {
  Node n;
  n.name = std::move(name);
  n.capacity = n.allocatable = Resources::Of(cpu, memory);
  return n;
}

struct Moments {
  std::array<DailyCurve, kNumDims> high, mean;
};

// A daily wave in cpu and memory; the high curve is the mean plus a bin-dependent deviation.
Moments RandomMoments(std::mt19937_64& rng, float cpu, float memory) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Moments m;
  const float phase = u(rng) * 6.28f;
  for (int b = 0; b < m.high[0].bins(); ++b) {
    const float wave = 0.5f + 0.5f * std::sin(phase + 6.28f * static_cast<float>(b) / 288.0f);
    m.mean[0][b] = cpu * (0.2f + 0.8f * wave);
    m.high[0][b] = m.mean[0][b] * (1.1f + 0.4f * u(rng));
    m.mean[1][b] = memory * (0.7f + 0.3f * wave);
    m.high[1][b] = m.mean[1][b] * (1.0f + 0.1f * u(rng));
    m.mean[2][b] = 500.0f * u(rng);
    m.high[2][b] = m.mean[2][b] + 500.0f * u(rng);
  }
  return m;
}

float Tolerance(float scale) { return 2e-5f * scale + 1e-3f; }

// Random residents of services with a mean and high profile, services sharing one application's
// curve, services profiled by their high curve only, and unprofiled services (requests flat),
// added and removed at random; after every step the node quantile equals the formula recomputed
// from scratch and never exceeds the sum of the high curves, and MinFree is its exact window
// minimum.
TEST(NodeQuantileTest, MatchesTheFormulaThroughAddsAndRemoves) {
  std::mt19937_64 rng(3);
  std::vector<Node> nodes;
  nodes.reserve(4);
  for (int i = 0; i < 4; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), 64000, 256 * kGi));
  ClusterState state(nodes);
  PredictedLoad load(nodes);
  std::vector<Moments> moments;
  std::vector<CurveId> curves;
  for (int a = 0; a < 4; ++a) {
    moments.push_back(RandomMoments(rng, 3000, 8.0f * kGi));
    curves.push_back(a < 3 ? load.AddCurve(moments[a].high, moments[a].mean)
                           : load.AddCurve(moments[a].high));
  }
  // Services 0–1 are application 0 (one curve), 2–4 one application each, 5 unprofiled.
  const std::vector<int> app_of = {0, 0, 1, 2, 3, -1};
  for (int s = 0; s < 6; ++s) {
    load.SetService(s, std::max(app_of[s], 0) + (s == 5 ? 4 : 0),
                    app_of[s] < 0 ? kNoCurve : curves[app_of[s]]);
  }
  const Resources flat = Resources::Of(1500, 2 * kGi);

  std::vector<ContainerId> live;
  std::uniform_int_distribution<int> service(0, 5), node(0, 3);
  for (int step = 0; step < 300; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      Container c{
          .kind = OwnerKind::kService, .owner = service(rng), .node = node(rng), .requests = flat};
      live.push_back(state.Add(c));
      load.AddContainer(c);
    } else {
      const size_t i = rng() % live.size();
      load.RemoveContainer(state.container(live[i]));
      state.Remove(live[i]);
      live.erase(live.begin() + static_cast<ptrdiff_t>(i));
    }
    if (step % 25 != 0 && step != 299) continue;
    for (NodeId n = 0; n < 4; ++n) {
      // Replicas per application on n, and unprofiled residents.
      std::map<int, int> replicas;
      int flat_residents = 0;
      for (ContainerId id : live) {
        const Container& c = state.container(id);
        if (c.node != n) continue;
        if (app_of[c.owner] < 0) {
          ++flat_residents;
        } else {
          ++replicas[app_of[c.owner]];
        }
      }
      for (int d = 0; d < 3; ++d) {
        const std::span<const float> q = load.node_quantile(n, static_cast<Dim>(d));
        const std::span<const float> sum = load.usage(n, static_cast<Dim>(d));
        for (int b = 0; b < load.bins(); ++b) {
          double mean = static_cast<double>(flat_residents) * static_cast<double>(flat.amount[d]);
          double deviation_sq = 0;
          for (const auto& [app, k] : replicas) {
            const Moments& m = moments[app];
            // Application 3 registered its high curve only: it is its own mean.
            const double mu = app == 3 ? m.high[d][b] : m.mean[d][b];
            mean += k * mu;
            const double dev = k * (m.high[d][b] - mu);
            deviation_sq += dev * dev;
          }
          const double expected = mean + std::sqrt(deviation_sq);
          const float scale = d == 1 ? 8.0f * kGi * 10 : 30000.0f;
          ASSERT_NEAR(q[b], expected, Tolerance(scale))
              << "node " << n << " dim " << d << " bin " << b << " step " << step;
          ASSERT_LE(q[b], sum[b] + Tolerance(scale));
        }
        // MinFree, which walks block maxima, is exactly the bin-by-bin minimum over any window,
        // wrapping past midnight included.
        for (int trial = 0; trial < 20; ++trial) {
          const int first = static_cast<int>(rng() % 400) - 50;
          const int span = 1 + static_cast<int>(rng() % 300);
          float most = 0.0f;
          for (int i = 0; i < std::min(span, load.bins()); ++i) {
            most = std::max(most, q[((first + i) % load.bins() + load.bins()) % load.bins()]);
          }
          ASSERT_EQ(load.MinFree(n, static_cast<Dim>(d), first, span),
                    load.limit(n, static_cast<Dim>(d)) - most)
              << "node " << n << " dim " << d << " window " << first << "+" << span;
        }
      }
    }
  }
}

// Replicas of one application deviate together, so they are not multiplexed; different
// applications are.
TEST(NodeQuantileTest, OneApplicationAddsLinearlyDifferentOnesInQuadrature) {
  std::vector<Node> nodes = {MakeNode("a", 64000, 256 * kGi), MakeNode("b", 64000, 256 * kGi)};
  PredictedLoad load(nodes);
  Moments m;
  for (int b = 0; b < m.high[0].bins(); ++b) {
    m.mean[0][b] = 1000;
    m.high[0][b] = 1300;
  }
  const CurveId web = load.AddCurve(m.high, m.mean);
  const CurveId api = load.AddCurve(m.high, m.mean);
  load.SetService(0, 0, web);
  load.SetService(1, 1, api);
  auto add = [&](int32_t s, NodeId n) {
    load.AddContainer(Container{.kind = OwnerKind::kService, .owner = s, .node = n});
  };
  add(0, 0);
  add(0, 0);  // node a: two replicas of web
  add(0, 1);
  add(1, 1);  // node b: web and api
  EXPECT_FLOAT_EQ(load.node_quantile(0, Dim::kCpu)[7], 2600.0f);
  EXPECT_FLOAT_EQ(load.usage(0, Dim::kCpu)[7], 2600.0f);
  EXPECT_NEAR(load.node_quantile(1, Dim::kCpu)[7], 2000.0f + 300.0f * std::sqrt(2.0f), 0.01f);
  EXPECT_FLOAT_EQ(load.usage(1, Dim::kCpu)[7], 2600.0f);
  // Batch reads the quantile.
  EXPECT_NEAR(load.FreeAt(1, Dim::kCpu, 7), load.limit(1, Dim::kCpu) - 2424.264f, 0.01f);
  EXPECT_NEAR(load.MinFree(1, Dim::kCpu, 0, 288), load.limit(1, Dim::kCpu) - 2424.264f, 0.01f);
  std::vector<float> free(load.bins());
  load.FreeCurve(1, Dim::kCpu, free);
  EXPECT_NEAR(free[200], load.limit(1, Dim::kCpu) - 2424.264f, 0.01f);

  // Removing api leaves web alone: exactly its high curve, then nothing.
  load.RemoveContainer(Container{.kind = OwnerKind::kService, .owner = 1, .node = 1});
  EXPECT_FLOAT_EQ(load.node_quantile(1, Dim::kCpu)[7], 1300.0f);
  load.RemoveContainer(Container{.kind = OwnerKind::kService, .owner = 0, .node = 1});
  for (float q : load.node_quantile(1, Dim::kCpu)) ASSERT_EQ(q, 0.0f);
  load.ClearResidents();
  for (float q : load.node_quantile(0, Dim::kCpu)) ASSERT_EQ(q, 0.0f);
}

// A profile whose mean curve is missing (all zero) does not turn its whole usage into deviation.
TEST(NodeQuantileTest, AMissingMeanCountsTheHighCurve) {
  std::vector<Node> nodes = {MakeNode("a", 64000, 256 * kGi)};
  PredictedLoad load(nodes);
  Moments m;
  for (int b = 0; b < m.high[0].bins(); ++b) m.high[0][b] = 1000;
  load.SetService(0, 0, load.AddCurve(m.high, m.mean));
  load.SetService(1, 1, load.AddCurve(m.high, m.mean));
  load.AddContainer(Container{.kind = OwnerKind::kService, .owner = 0, .node = 0});
  load.AddContainer(Container{.kind = OwnerKind::kService, .owner = 1, .node = 0});
  EXPECT_FLOAT_EQ(load.node_quantile(0, Dim::kCpu)[0], 2000.0f);
}

// The quantile of a fleet is a contiguous nodes × dims × bins array in usage()'s layout.
TEST(NodeQuantileTest, TheWholeArrayIsLaidOutAsUsage) {
  std::mt19937_64 rng(5);
  std::vector<Node> nodes = {MakeNode("a", 64000, 256 * kGi), MakeNode("b", 64000, 256 * kGi)};
  PredictedLoad load(nodes);
  const Moments m = RandomMoments(rng, 2000, 4.0f * kGi);
  load.SetService(0, 0, load.AddCurve(m.high, m.mean));
  load.AddContainer(Container{.kind = OwnerKind::kService, .owner = 0, .node = 1});
  const std::span<const float> all = load.node_quantiles();
  ASSERT_EQ(all.size(), static_cast<size_t>(2) * kNumDims * load.bins());
  EXPECT_EQ(&all[(static_cast<size_t>(1) * kNumDims + 1) * load.bins()],
            load.node_quantile(1, Dim::kMemory).data());
  EXPECT_FLOAT_EQ(load.node_quantile(1, Dim::kCpu)[40], m.high[0][40]);
}

}  // namespace
}  // namespace archimedes
