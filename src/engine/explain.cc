#include "engine/explain.h"

#include <algorithm>
#include <map>

#include "model/resources.h"

namespace archimedes {

std::string FormatExplanation(const Scheduler& scheduler, const SchedulingContext& ctx,
                              const PodRequest& pod, NodeId chosen, int top) {
  std::vector<NodeExplanation> all = scheduler.Explain(ctx, pod);
  std::map<std::string, int> rejected;
  std::vector<const NodeExplanation*> passing;
  for (const NodeExplanation& e : all) {
    if (e.failed_filter.empty()) {
      passing.push_back(&e);
    } else {
      ++rejected[e.failed_filter];
    }
  }
  std::stable_sort(
      passing.begin(), passing.end(),
      [](const NodeExplanation* a, const NodeExplanation* b) { return a->total > b->total; });
  const std::vector<std::string_view> scorers = scheduler.scorer_names();
  std::string out = "  requests " + ToString(pod.requests) + "; chosen node: " +
                    (chosen >= 0 ? ctx.state.node(chosen).name : std::string("none")) + "\n";
  out += "  " + std::to_string(passing.size()) + " of " + std::to_string(all.size()) +
         " nodes pass every filter";
  for (const auto& [filter, count] : rejected) {
    out += "; " + filter + " rejects " + std::to_string(count);
  }
  out += "\n  node                    total";
  for (std::string_view s : scorers) out += "  " + std::string(s);
  out += "\n";
  auto row = [&](const NodeExplanation& e) {
    std::string name = ctx.state.node(e.node).name;
    name.resize(std::max<size_t>(name.size(), 22), ' ');
    std::string line = (e.node == chosen ? "* " : "  ") + name + " " + std::to_string(e.total);
    for (size_t i = 0; i < e.scores.size(); ++i) {
      std::string value = std::to_string(e.scores[i]);
      line += std::string(std::max<size_t>(scorers[i].size() + 2 - value.size(), 1), ' ') + value;
    }
    return line + "\n";
  };
  int shown = 0;
  bool chosen_shown = false;
  for (const NodeExplanation* e : passing) {
    if (shown++ >= top) break;
    chosen_shown |= e->node == chosen;
    out += row(*e);
  }
  // The scheduler scores a sample of the fleet, so the chosen node need not be the best overall.
  if (chosen >= 0 && !chosen_shown) out += row(all[chosen]);
  return out;
}

}  // namespace archimedes
