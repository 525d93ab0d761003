#include "sched/archimedes_placement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include "sched/plugins/batch_displacement.h"
#include "sched/plugins/max_per_node.h"
#include "sched/plugins/node_affinity.h"
#include "sched/plugins/node_ready.h"
#include "sched/plugins/node_selector.h"
#include "sched/plugins/taint_toleration.h"
#include "sched/plugins/time_aware_fit.h"

namespace archimedes {
namespace {

// kAntiAffinityReduction of profile/complementarity.h (not included: its function Complementarity
// would hide the scorer's class of that name here).
constexpr float kAntiAffinityThreshold = 0.03f;

}  // namespace

float HintStrength(const PlacementHint& hint) {
  if (hint.kind == HintKind::kAffinity) return hint.score;
  return std::clamp(kAntiAffinityThreshold - hint.score, 0.0f, kAntiAffinityThreshold);
}

PlacementInputs PlacementInputs::From(const std::vector<Service>& services,
                                      const ProfileSet& profiles, const PredictedLoad& load,
                                      const PlacementSettings& settings, TaskShapeMix shape_mix) {
  PlacementInputs inputs;
  inputs.classes = ClassComplementarity(profiles.complementarity);
  inputs.shape_mix = std::move(shape_mix);
  inputs.rules.resize(services.size());
  for (size_t s = 0; s < services.size(); ++s) {
    PlacementRules& rules = inputs.rules[s];
    const int32_t own_class = load.service_class(static_cast<int32_t>(s));
    if (own_class < 0 || settings.hint_weight <= 0) continue;
    for (const PlacementHint& hint : profiles.hints) {
      if (hint.a != own_class && hint.b != own_class) continue;
      const int weight =
          std::clamp(static_cast<int>(std::lround(HintStrength(hint) *
                                                  static_cast<float>(settings.hint_weight))),
                     1, 100);
      rules.affinity.push_back(AffinityTerm{.target = AffinityTerm::Target::kClass,
                                            .id = hint.a == own_class ? hint.b : hint.a,
                                            .topology = Topology::kNode,
                                            .anti = hint.kind == HintKind::kAntiAffinity,
                                            .weight = weight});
    }
  }
  return inputs;
}

Scheduler MakeArchimedesServiceScheduler(const PlacementSettings& settings,
                                         const PlacementInputs& inputs) {
  auto rules = std::make_shared<const std::vector<PlacementRules>>(inputs.rules);
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NodeReady>());
  filters.push_back(std::make_unique<NodeSelector>());
  filters.push_back(std::make_unique<NodeAffinity>());
  filters.push_back(std::make_unique<TaintToleration>());
  filters.push_back(std::make_unique<MaxPerNode>());
  filters.push_back(std::make_unique<TimeAwareFit>());
  filters.push_back(std::make_unique<InterAppAffinity>(rules));
  filters.push_back(std::make_unique<TopologySpread>(rules));
  std::vector<WeightedScorer> scorers;
  scorers.push_back({std::make_unique<Complementarity>(inputs.classes, settings.class_bonus,
                                                       settings.project_room),
                     settings.complementarity_weight});
  scorers.push_back(
      {std::make_unique<Fragmentation>(inputs.shape_mix), settings.fragmentation_weight});
  scorers.push_back({std::make_unique<InterAppPreference>(rules), settings.affinity_weight});
  scorers.push_back({std::make_unique<TopologySpreadScore>(rules), settings.spread_weight});
  scorers.push_back({std::make_unique<BatchDisplacement>(), settings.batch_displacement_weight});
  return Scheduler(
      std::move(filters), std::move(scorers),
      SchedulerOptions{.percentage_of_nodes_to_score = settings.percentage_of_nodes_to_score,
                       .seed = settings.seed});
}

void RegisterServices(PredictedLoad& load, const std::vector<Service>& services,
                      const ProfileSet& profiles) {
  std::unordered_map<std::string, int32_t> app_ids;
  std::unordered_map<std::string, CurveId> curves;
  for (size_t s = 0; s < services.size(); ++s) {
    const std::string& app = services[s].app.empty() ? services[s].name : services[s].app;
    const int32_t app_id =
        app_ids.try_emplace(app, static_cast<int32_t>(app_ids.size())).first->second;
    CurveId curve = kNoCurve;
    int32_t profile_class = -1;
    const AppProfile* profile = profiles.normalized ? nullptr : profiles.Find(app);
    if (profile != nullptr) {
      auto it = curves.find(app);
      if (it == curves.end()) {
        it = curves.emplace(app, load.AddCurve(profile->high, profile->mean)).first;
      }
      curve = it->second;
      profile_class = profile->class_id;
    }
    load.SetService(static_cast<int32_t>(s), app_id, curve, profile_class);
  }
  load.ExpectReplicas(services);
}

void RefreshResidents(PredictedLoad& load, const ClusterState& state) {
  load.ClearResidents();
  for (ContainerId id = 0; id < state.id_limit(); ++id) {
    if (state.alive(id)) load.AddContainer(state.container(id));
  }
}

PredictedLoad BuildPredictedLoad(const ClusterState& state, const std::vector<Service>& services,
                                 const ProfileSet& profiles, const PlacementSettings& settings) {
  PredictedLoad load(state.nodes(), settings.bins, settings.buffer);
  RegisterServices(load, services, profiles);
  RefreshResidents(load, state);
  return load;
}

std::string DescribePlacement(const SchedulingContext& ctx, const PodRequest& pod, NodeId node,
                              const PlacementSettings& settings, const PlacementInputs& inputs) {
  std::string out = "fit: " + DescribeTimeAwareFit(ctx, pod, node);
  const Complementarity complementarity(inputs.classes, settings.class_bonus,
                                        settings.project_room);
  const ComplementarityTerms c = complementarity.Terms(ctx, pod, node);
  out += "\ncomplementarity (" + std::to_string(c.score) + "): " + DescribeComplementarity(c);
  const FragmentationTerms f = Fragmentation(inputs.shape_mix).Terms(ctx, pod, node);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "\nfragmentation (%lld): unusable %.3g -> %.3g of the fleet's cpu+memory shares",
                static_cast<long long>(f.score), f.unusable_before, f.unusable_after);
  out += buf;
  if (pod.kind == OwnerKind::kService && pod.owner >= 0 &&
      static_cast<size_t>(pod.owner) < inputs.rules.size()) {
    const std::string rules = DescribeRules(ctx, pod, node, inputs.rules[pod.owner]);
    if (!rules.empty()) out += "\nrules: " + rules;
  }
  return out;
}

}  // namespace archimedes
