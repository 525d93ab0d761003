#include "profile/profile.h"

#include <algorithm>

namespace archimedes {

std::string_view HintKindName(HintKind kind) {
  return kind == HintKind::kAffinity ? "affinity" : "anti-affinity";
}

std::string_view WarningKindName(WarningKind kind) {
  switch (kind) {
    case WarningKind::kMemoryLeak:
      return "memory-leak";
    case WarningKind::kCpuStuckHigh:
      return "cpu-stuck-high";
    case WarningKind::kDivergentReplica:
      return "divergent-replica";
  }
  return "unknown";
}

std::string_view AdviceBoundName(AdviceBound bound) {
  switch (bound) {
    case AdviceBound::kNone:
      return "none";
    case AdviceBound::kLimit:
      return "limit";
    case AdviceBound::kNode:
      return "node";
  }
  return "unknown";
}

const AppProfile* ProfileSet::Find(std::string_view app) const {
  auto it =
      std::lower_bound(apps.begin(), apps.end(), app,
                       [](const AppProfile& p, std::string_view name) { return p.app < name; });
  return it != apps.end() && it->app == app ? &*it : nullptr;
}

const ProfileClass* ProfileSet::FindClass(int id) const {
  for (const ProfileClass& c : classes) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

}  // namespace archimedes
