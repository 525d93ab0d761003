#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sched/framework.h"
#include "sched/kubernetes_scheduler.h"
#include "sched/plugins/max_per_node.h"
#include "sched/plugins/node_affinity.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_resources_fit.h"
#include "sched/plugins/node_selector.h"
#include "sched/plugins/resource_allocation.h"
#include "sched/plugins/taint_toleration.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = 1LL << 30;

Node MakeNode(std::string name, int64_t cpu, int64_t memory) {
  return Node{.name = std::move(name),
              .capacity = Resources::Of(cpu, memory),
              .allocatable = Resources::Of(cpu, memory)};
}

TEST(KubernetesPluginsTest, PerResourceFormulasMatchKubeScheduler) {
  EXPECT_EQ(LeastRequestedScore(3000, 4000), 25);
  EXPECT_EQ(LeastRequestedScore(5000, 4000), 0);
  EXPECT_EQ(LeastRequestedScore(0, 0), 0);
  EXPECT_EQ(MostRequestedScore(3000, 4000), 75);
  EXPECT_EQ(MostRequestedScore(5000, 4000), 100);  // capped at capacity
  EXPECT_EQ(LeastRequestedScore(1, 3), 66);        // integer division, as in Go
}

// A node of 4 cores and 10 GiB with 3 cores and 5 GiB requested once the pod is counted.
TEST(KubernetesPluginsTest, ScoresIncludeTheIncomingPod) {
  ClusterState state({MakeNode("n", 4000, 10 * kGi)});
  state.Add({.node = 0, .requests = Resources::Of(2000, 3 * kGi)});
  SchedulingContext ctx{state};
  PodRequest pod{.requests = Resources::Of(1000, 2 * kGi)};
  // cpu (4000-3000)*100/4000 = 25, memory (10-5)*100/10 = 50 → (25+50)/2 = 37.
  EXPECT_EQ(LeastAllocated().Score(ctx, pod, 0), 37);
  // cpu 75, memory 50 → 62.
  EXPECT_EQ(MostAllocated().Score(ctx, pod, 0), 62);
  // fractions 0.75 and 0.5: std = 0.125 → (1 − 0.125) × 100 = 87.
  EXPECT_EQ(BalancedAllocation().Score(ctx, pod, 0), 87);
}

TEST(KubernetesPluginsTest, PodWithoutRequestsCountsAsNonZeroDefaults) {
  ClusterState state({MakeNode("n", 1000, 1000LL * 1024 * 1024)});
  SchedulingContext ctx{state};
  PodRequest empty{};
  // 100m of 1000m → cpu 90; 200Mi of 1000Mi → memory 80; (90+80)/2 = 85.
  EXPECT_EQ(LeastAllocated().Score(ctx, empty, 0), 85);
}

TEST(KubernetesPluginsTest, FitFiltersOnCpuMemoryAndGpuOnly) {
  ClusterState state({MakeNode("n", 4000, 8 * kGi)});
  state.Add({.node = 0, .requests = Resources::Of(3000, 4 * kGi)});
  SchedulingContext ctx{state};
  NodeResourcesFit fit;
  EXPECT_TRUE(fit.Filter(ctx, {.requests = Resources::Of(1000, 4 * kGi)}, 0));
  EXPECT_FALSE(fit.Filter(ctx, {.requests = Resources::Of(1001, 1)}, 0));
  EXPECT_FALSE(fit.Filter(ctx, {.requests = Resources::Of(1, 4 * kGi + 1)}, 0));
  EXPECT_FALSE(fit.Filter(ctx, {.requests = Resources::Of(1, 1, 0, 0, 1000)}, 0));  // no GPU
  // Disk and network bandwidth are unknown to kube-scheduler.
  EXPECT_TRUE(fit.Filter(ctx, {.requests = Resources::Of(1, 1, 1LL << 40, 1LL << 40)}, 0));
}

TEST(KubernetesPluginsTest, NotReadyNodesAndSpreadLimits) {
  ClusterState state({MakeNode("a", 4000, 8 * kGi), MakeNode("b", 4000, 8 * kGi)});
  state.SetCondition(1, NodeCondition::kNotReady);
  state.Add({.kind = OwnerKind::kService, .owner = 7, .node = 0});
  SchedulingContext ctx{state};
  EXPECT_TRUE(NodeReady().Filter(ctx, {}, 0));
  EXPECT_FALSE(NodeReady().Filter(ctx, {}, 1));
  PodRequest pod{.kind = OwnerKind::kService, .owner = 7, .max_per_node = 1};
  EXPECT_FALSE(MaxPerNode().Filter(ctx, pod, 0));
  pod.max_per_node = 2;
  EXPECT_TRUE(MaxPerNode().Filter(ctx, pod, 0));
  pod.owner = 8;
  pod.max_per_node = 1;
  EXPECT_TRUE(MaxPerNode().Filter(ctx, pod, 0));
}

TEST(KubernetesPluginsTest, DefaultSpreadsAndBinpackPacks) {
  std::vector<Node> nodes;
  nodes.reserve(5);
  for (int i = 0; i < 5; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), 8000, 32 * kGi));
  for (const FitScoring scoring : {FitScoring::kLeastAllocated, FitScoring::kMostAllocated}) {
    ClusterState state(nodes);
    Scheduler scheduler = MakeKubernetesScheduler(scoring, 1);
    PodRequest pod{.requests = Resources::Of(1000, 4 * kGi)};
    for (int i = 0; i < 5; ++i) {
      NodeId n = scheduler.Schedule(SchedulingContext{state}, pod);
      ASSERT_GE(n, 0);
      state.Add({.node = n, .requests = pod.requests});
    }
    int used = 0;
    for (NodeId n = 0; n < 5; ++n) used += !state.containers_on(n).empty();
    EXPECT_EQ(used, scoring == FitScoring::kLeastAllocated ? 5 : 1);
  }
}

TEST(KubernetesPluginsTest, PercentageOfNodesToScoreAndMemoKeepTheChoice) {
  std::vector<Node> nodes;
  nodes.reserve(1000);
  for (int i = 0; i < 1000; ++i) {
    nodes.push_back(MakeNode("n" + std::to_string(i), 4000 + 1000 * (i % 7), 16 * kGi));
  }
  ClusterState with_memo(nodes), without_memo(nodes);
  Scheduler a = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 4);
  Scheduler b = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 4);
  FeasibilityMemo memo;
  PodRequest pod{.requests = Resources::Of(3000, 2 * kGi)};
  for (int i = 0; i < 3000; ++i) {
    NodeId x = a.Schedule(SchedulingContext{with_memo}, pod, &memo);
    NodeId y = b.Schedule(SchedulingContext{without_memo}, pod);
    ASSERT_EQ(x, y) << "placement " << i;
    if (x < 0) break;
    with_memo.Add({.node = x, .requests = pod.requests});
    memo.Placed(x);
    without_memo.Add({.node = y, .requests = pod.requests});
  }
}

// Counts its calls; passes every node, and says whether it applies and is node-local as told.
class CountingFilter : public FilterPlugin {
 public:
  CountingFilter(bool applies, int* calls, bool node_local = false)
      : applies_(applies), node_local_(node_local), calls_(calls) {}
  std::string_view name() const override { return "Counting"; }
  bool node_local() const override { return node_local_; }
  bool Filter(const SchedulingContext&, const PodRequest&, NodeId) const override {
    ++*calls_;
    return true;
  }
  bool AppliesTo(const SchedulingContext&, const PodRequest&) const override { return applies_; }

 private:
  bool applies_;
  bool node_local_;
  int* calls_;
};

// With a memo, the second task of a job is filtered again only on the node the first went to, when
// every plugin is node-local; otherwise on every node that passed.
TEST(KubernetesPluginsTest, TheMemoFiltersAgainOnlyTheNodeATaskWentTo) {
  std::vector<Node> nodes;
  nodes.reserve(8);
  for (int i = 0; i < 8; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), 4000, 16 * kGi));
  for (bool node_local : {true, false}) {
    ClusterState state(nodes);
    int calls = 0;
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(std::make_unique<NodeResourcesFit>());
    filters.push_back(std::make_unique<CountingFilter>(true, &calls, node_local));
    std::vector<WeightedScorer> scorers;
    scorers.push_back({std::make_unique<LeastAllocated>(), 1});
    Scheduler scheduler(std::move(filters), std::move(scorers), SchedulerOptions{});
    FeasibilityMemo memo;
    const PodRequest pod{.requests = Resources::Of(1000, kGi)};
    const NodeId first = scheduler.Schedule(SchedulingContext{state}, pod, &memo);
    ASSERT_GE(first, 0);
    EXPECT_EQ(calls, 8);
    state.Add({.node = first, .requests = pod.requests});
    memo.Placed(first);
    EXPECT_GE(scheduler.Schedule(SchedulingContext{state}, pod, &memo), 0);
    EXPECT_EQ(calls, node_local ? 9 : 16) << "node-local " << node_local;
  }
}

TEST(KubernetesPluginsTest, AFilterThatDoesNotApplyToThePodIsLeftOutOfTheScan) {
  std::vector<Node> nodes;
  nodes.reserve(8);
  for (int i = 0; i < 8; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), 4000, 16 * kGi));
  ClusterState state(nodes);
  for (bool applies : {false, true}) {
    int calls = 0;
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(std::make_unique<NodeResourcesFit>());
    filters.push_back(std::make_unique<CountingFilter>(applies, &calls));
    std::vector<WeightedScorer> scorers;
    scorers.push_back({std::make_unique<LeastAllocated>(), 1});
    Scheduler scheduler(std::move(filters), std::move(scorers), SchedulerOptions{});
    EXPECT_GE(scheduler.Schedule(SchedulingContext{state},
                                 PodRequest{.requests = Resources::Of(1000, kGi)}),
              0);
    EXPECT_EQ(calls, applies ? 8 : 0) << "applies " << applies;
  }
}

// A filter that says it does not apply must indeed pass every node: the Kubernetes filters that
// skip (nodeSelector, required node affinity, the per-node limit, taints) pass everything then.
TEST(KubernetesPluginsTest, FiltersSkipOnlyPodsTheyPassEverywhere) {
  std::vector<Node> nodes{MakeNode("a", 4000, 16 * kGi), MakeNode("b", 4000, 16 * kGi)};
  nodes[0].labels["disk"] = "ssd";
  ClusterState state(nodes);
  state.Add(
      {.kind = OwnerKind::kService, .owner = 0, .node = 0, .requests = Resources::Of(1000, kGi)});
  const std::map<std::string, std::string> ssd{{"disk", "ssd"}};
  const std::vector<NodeSelectorTerm> affinity{
      {.match_expressions = {{.key = "disk", .op = SelectorOp::kIn, .values = {"ssd"}}}}};
  const PodRequest plain{.requests = Resources::Of(1000, kGi), .owner = 0};
  const PodRequest constrained{.requests = Resources::Of(1000, kGi),
                               .owner = 0,
                               .max_per_node = 1,
                               .node_selector = &ssd,
                               .node_affinity = affinity};
  const NodeSelector selector;
  const NodeAffinity node_affinity;
  const MaxPerNode per_node;
  // Each filter with the node it turns the constrained pod away from.
  const std::vector<std::pair<const FilterPlugin*, NodeId>> cases{
      {&selector, 1}, {&node_affinity, 1}, {&per_node, 0}};
  for (const auto& [filter, refused] : cases) {
    EXPECT_FALSE(filter->AppliesTo(SchedulingContext{state}, plain)) << filter->name();
    EXPECT_TRUE(filter->AppliesTo(SchedulingContext{state}, constrained)) << filter->name();
    for (NodeId n : {0, 1}) {
      EXPECT_TRUE(filter->Filter(SchedulingContext{state}, plain, n)) << filter->name();
    }
    EXPECT_FALSE(filter->Filter(SchedulingContext{state}, constrained, refused)) << filter->name();
  }
  // TaintToleration skips while no node of the fleet is tainted.
  const TaintToleration taints;
  EXPECT_FALSE(taints.AppliesTo(SchedulingContext{state}, plain));
  ClusterState tainted(nodes);
  Node dedicated = MakeNode("c", 4000, 16 * kGi);
  dedicated.taints.push_back({.key = "dedicated", .value = "db"});
  const NodeId c = tainted.AddNode(dedicated);
  EXPECT_EQ(tainted.tainted_nodes(), 1);
  EXPECT_TRUE(taints.AppliesTo(SchedulingContext{tainted}, plain));
  EXPECT_FALSE(taints.Filter(SchedulingContext{tainted}, plain, c));
}

}  // namespace
}  // namespace archimedes
