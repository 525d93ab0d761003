#include "model/cluster_state.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace archimedes
