#include "model/cluster_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace archimedes {
namespace {

std::vector<Node> TwoNodes() {
  Node a{.name = "a", .capacity = Resources::Of(8000, 32), .allocatable = Resources::Of(7000, 30)};
  Node b{.name = "b", .capacity = Resources::Of(4000, 16), .allocatable = Resources::Of(4000, 16)};
  return {a, b};
}

TEST(ClusterStateTest, AddRemoveKeepsRequestedTotals) {
  ClusterState state(TwoNodes());
  ContainerId x = state.Add({.node = 0, .requests = Resources::Of(1000, 4)});
  ContainerId y = state.Add({.node = 0, .requests = Resources::Of(500, 2)});
  ContainerId z = state.Add({.node = 1, .requests = Resources::Of(250, 1)});
  EXPECT_EQ(state.requested(0), Resources::Of(1500, 6));
  EXPECT_EQ(state.unrequested(0), Resources::Of(5500, 24));
  EXPECT_EQ(state.num_containers(), 3);
  state.Remove(x);
  EXPECT_FALSE(state.alive(x));
  EXPECT_TRUE(state.alive(y));
  EXPECT_EQ(state.requested(0), Resources::Of(500, 2));
  ASSERT_EQ(state.containers_on(0).size(), 1u);
  EXPECT_EQ(state.containers_on(0)[0], y);
  EXPECT_THROW(state.Remove(x), std::out_of_range);
  EXPECT_THROW(state.Add({.node = 7}), std::out_of_range);
  state.Remove(z);
  EXPECT_TRUE(state.requested(1).IsZero());
}

TEST(ClusterStateTest, RandomChurnMatchesRecomputedTotals) {
  ClusterState state(TwoNodes());
  std::mt19937 rng(7);
  std::vector<ContainerId> live;
  for (int step = 0; step < 5000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      Container c{.node = static_cast<NodeId>(rng() % 2),
                  .requests = Resources::Of(rng() % 1000, rng() % 64)};
      live.push_back(state.Add(c));
    } else {
      size_t i = rng() % live.size();
      state.Remove(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
  }
  for (NodeId n = 0; n < 2; ++n) {
    Resources sum;
    for (ContainerId id : state.containers_on(n)) sum += state.container(id).requests;
    EXPECT_EQ(sum, state.requested(n));
  }
  EXPECT_EQ(state.num_containers(), static_cast<int>(live.size()));
}

// The candidate index's block maxima stay exact through churn and added nodes: a block may hold a
// need when, in each indexed dimension, one of its nodes has that much unrequested allocatable; so
// it is never ruled out while a node of it holds the whole need.
TEST(ClusterStateTest, CandidateIndexTracksUnrequestedAllocatable) {
  std::vector<Node> nodes;
  nodes.reserve(150);
  for (int64_t i = 0; i < 150; ++i) {
    nodes.push_back({.name = std::to_string(i),
                     .capacity = Resources::Of(4000, 64, 0, 0, i % 5 == 0 ? 1000 : 0),
                     .allocatable = Resources::Of(1000 * (1 + i / 64), 16 * (1 + i % 4), 0, 0,
                                                  i % 5 == 0 ? 1000 : 0)});
  }
  ClusterState state(nodes);
  std::mt19937 rng(3);
  std::vector<ContainerId> live;
  int ruled_out = 0;
  for (int step = 0; step < 4000; ++step) {
    if (step % 700 == 0) state.AddNode(nodes[step % nodes.size()]);
    if (live.empty() || rng() % 5 < 3) {
      const NodeId n = static_cast<NodeId>(rng() % state.num_nodes());
      const Resources r = Resources::Of(rng() % 800, rng() % 12, 0, 0, 250 * (rng() % 2));
      if (r.FitsIn(state.unrequested(n))) live.push_back(state.Add({.node = n, .requests = r}));
    } else {
      const size_t i = rng() % live.size();
      state.Remove(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
    // Disk and network are not indexed: a need there changes nothing.
    const Resources need = Resources::Of(rng() % 4000, rng() % 64, 7, 7, 500 * (rng() % 2));
    const Resources indexed = Resources::Of(need.cpu(), need.memory(), 0, 0, need[Dim::kGpu]);
    for (int b = 0; b * ClusterState::kIndexBlock < state.num_nodes(); ++b) {
      bool any = false;
      std::array<bool, 3> each{};
      for (NodeId n = b * ClusterState::kIndexBlock;
           n < std::min((b + 1) * ClusterState::kIndexBlock, state.num_nodes()); ++n) {
        const Resources free = state.unrequested(n);
        ASSERT_EQ(state.Holds(n, need), indexed.FitsIn(free)) << "node " << n;
        any |= indexed.FitsIn(free);
        for (size_t i = 0; i < 3; ++i) {
          const Dim d = ClusterState::kIndexedDims[i];
          each[i] |= need[d] == 0 || free[d] >= need[d];
        }
      }
      const bool may = each[0] && each[1] && each[2];
      ASSERT_EQ(state.BlockMayHold(b, need), may) << "block " << b << " step " << step;
      ASSERT_TRUE(may || !any);
      ruled_out += !may;
    }
  }
  EXPECT_GT(ruled_out, 1000);
}

}  // namespace
}  // namespace archimedes
