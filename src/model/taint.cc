#include "model/taint.h"

namespace archimedes {

std::string_view TaintEffectName(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "NoSchedule";
}

std::optional<TaintEffect> ParseTaintEffect(std::string_view name) {
  for (TaintEffect e :
       {TaintEffect::kNoSchedule, TaintEffect::kPreferNoSchedule, TaintEffect::kNoExecute}) {
    if (name == TaintEffectName(e)) return e;
  }
  return std::nullopt;
}

bool Tolerates(const Toleration& toleration, const Taint& taint) {
  if (toleration.effect && *toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  return toleration.exists || toleration.value == taint.value;
}

const Taint* FirstUntoleratedTaint(std::span<const Taint> taints,
                                   std::span<const Toleration> tolerations) {
  for (const Taint& taint : taints) {
    if (taint.effect == TaintEffect::kPreferNoSchedule) continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) {
      if (Tolerates(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return &taint;
  }
  return nullptr;
}

std::string ToString(const Taint& taint) {
  std::string s = taint.key;
  if (!taint.value.empty()) s += "=" + taint.value;
  s += ":";
  s += TaintEffectName(taint.effect);
  return s;
}

}  // namespace archimedes
