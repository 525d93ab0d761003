// Kubernetes taints (on nodes) and tolerations (on pods), with kube-scheduler's matching rule: a
// pod may go to a node only when each of the node's NoSchedule and NoExecute taints is tolerated
// by one of its tolerations (PreferNoSchedule taints only lower a node's score).
#ifndef ARCHIMEDES_MODEL_TAINT_H_
#define ARCHIMEDES_MODEL_TAINT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace archimedes {

enum class TaintEffect : uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };
std::string_view TaintEffectName(TaintEffect effect);  // "NoSchedule", ...
std::optional<TaintEffect> ParseTaintEffect(std::string_view name);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  friend bool operator==(const Taint&, const Taint&) = default;
};

struct Toleration {
  std::string key;      // empty with `exists`: every key
  bool exists = false;  // operator Exists (any value); otherwise Equal (`value` must match)
  std::string value;
  std::optional<TaintEffect> effect;  // nullopt: every effect
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

// Whether `toleration` tolerates `taint` (k8s.io/api/core/v1 Toleration.ToleratesTaint).
bool Tolerates(const Toleration& toleration, const Taint& taint);

// The first NoSchedule or NoExecute taint that no toleration tolerates, or null when none.
const Taint* FirstUntoleratedTaint(std::span<const Taint> taints,
                                   std::span<const Toleration> tolerations);

// "key=value:Effect" (or "key:Effect" without a value), as kubectl prints a taint.
std::string ToString(const Taint& taint);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_TAINT_H_
