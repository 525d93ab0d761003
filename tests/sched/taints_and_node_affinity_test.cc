// TaintToleration and NodeAffinity as kube-scheduler filters, alone and in the schedulers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sched/framework.h"
#include "sched/kubernetes_scheduler.h"
#include "sched/plugins/node_affinity.h"
#include "sched/plugins/taint_toleration.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = 1LL << 30;

Node MakeNode(std::string name, std::vector<Taint> taints = {},
              std::map<std::string, std::string> labels = {}) {
  return Node{.name = std::move(name),
              .capacity = Resources::Of(8000, 32 * kGi),
              .allocatable = Resources::Of(8000, 32 * kGi),
              .labels = std::move(labels),
              .taints = std::move(taints)};
}

TEST(TaintTolerationTest, FollowsKubernetesMatchingRules) {
  const Taint gpu{.key = "nvidia.com/gpu", .value = "present", .effect = TaintEffect::kNoSchedule};
  const Taint soft{.key = "spot", .effect = TaintEffect::kPreferNoSchedule};
  const Taint drain{.key = "drain", .value = "yes", .effect = TaintEffect::kNoExecute};
  ClusterState state({MakeNode("plain"), MakeNode("gpu", {gpu}), MakeNode("soft", {soft}),
                      MakeNode("drain", {drain})});
  SchedulingContext ctx{state};
  TaintToleration filter;
  PodRequest pod;
  EXPECT_TRUE(filter.Filter(ctx, pod, 0));
  EXPECT_FALSE(filter.Filter(ctx, pod, 1));
  EXPECT_TRUE(filter.Filter(ctx, pod, 2));  // PreferNoSchedule only scores
  EXPECT_FALSE(filter.Filter(ctx, pod, 3));

  const std::vector<Toleration> exists_key = {{.key = "nvidia.com/gpu", .exists = true}};
  pod.tolerations = exists_key;
  EXPECT_TRUE(filter.Filter(ctx, pod, 1));
  EXPECT_FALSE(filter.Filter(ctx, pod, 3));

  const std::vector<Toleration> wrong_value = {{.key = "nvidia.com/gpu", .value = "absent"}};
  pod.tolerations = wrong_value;
  EXPECT_FALSE(filter.Filter(ctx, pod, 1));

  const std::vector<Toleration> wrong_effect = {
      {.key = "nvidia.com/gpu", .exists = true, .effect = TaintEffect::kNoExecute}};
  pod.tolerations = wrong_effect;
  EXPECT_FALSE(filter.Filter(ctx, pod, 1));

  const std::vector<Toleration> everything = {{.exists = true}};
  pod.tolerations = everything;
  EXPECT_TRUE(filter.Filter(ctx, pod, 1));
  EXPECT_TRUE(filter.Filter(ctx, pod, 3));
}

TEST(NodeAffinityTest, TermsAreOredAndRequirementsAnded) {
  ClusterState state({MakeNode("a", {}, {{"gen", "4"}, {"disk", "ssd"}}),
                      MakeNode("b", {}, {{"gen", "2"}}), MakeNode("c")});
  SchedulingContext ctx{state};
  NodeAffinity filter;
  const std::vector<NodeSelectorTerm> terms = {
      {.match_expressions = {{.key = "gen", .op = SelectorOp::kGt, .values = {"3"}},
                             {.key = "disk", .op = SelectorOp::kExists}}},
      {.match_fields = {{.key = "metadata.name", .op = SelectorOp::kIn, .values = {"c"}}}}};
  PodRequest pod{.node_affinity = terms};
  EXPECT_TRUE(filter.Filter(ctx, pod, 0));
  EXPECT_FALSE(filter.Filter(ctx, pod, 1));
  EXPECT_TRUE(filter.Filter(ctx, pod, 2));

  const std::vector<NodeSelectorTerm> not_in = {
      {.match_expressions = {{.key = "gen", .op = SelectorOp::kNotIn, .values = {"2"}}}}};
  pod.node_affinity = not_in;
  EXPECT_TRUE(filter.Filter(ctx, pod, 0));
  EXPECT_FALSE(filter.Filter(ctx, pod, 1));
  EXPECT_TRUE(filter.Filter(ctx, pod, 2));  // NotIn matches a node without the label

  const std::vector<NodeSelectorTerm> empty_term = {{}};
  pod.node_affinity = empty_term;
  EXPECT_FALSE(filter.Filter(ctx, pod, 0));  // a term with no requirement matches nothing
}

TEST(TaintTolerationTest, KubernetesSchedulerKeepsUntoleratingServicesOffTaintedNodes) {
  const Taint gpu{.key = "nvidia.com/gpu", .value = "present", .effect = TaintEffect::kNoSchedule};
  // The tainted node is emptier, so it wins whenever it is allowed.
  ClusterState state({MakeNode("busy"), MakeNode("gpu", {gpu})});
  state.Add({.node = 0, .requests = Resources::Of(4000, 16 * kGi)});
  SchedulingContext ctx{state};
  Scheduler scheduler = MakeKubernetesScheduler(FitScoring::kLeastAllocated, 1);
  Service web{.name = "web", .requests = Resources::Of(1000, kGi)};
  EXPECT_EQ(scheduler.Schedule(ctx, ServicePodRequest(web, 0)), 0);
  web.tolerations = {{.key = "nvidia.com/gpu", .exists = true}};
  EXPECT_EQ(scheduler.Schedule(ctx, ServicePodRequest(web, 0)), 1);
  web.node_affinity = {
      {.match_fields = {{.key = "metadata.name", .op = SelectorOp::kIn, .values = {"busy"}}}}};
  EXPECT_EQ(scheduler.Schedule(ctx, ServicePodRequest(web, 0)), 0);
}

}  // namespace
}  // namespace archimedes
