#include "engine/action.h"

namespace archimedes {

std::string_view ActionKindName(ActionKind kind) {
  switch (kind) {
    case ActionKind::kBind:
      return "Bind";
    case ActionKind::kStartTask:
      return "StartTask";
    case ActionKind::kEvict:
      return "Evict";
    case ActionKind::kStop:
      return "Stop";
    case ActionKind::kMigrate:
      return "Migrate";
    case ActionKind::kThrottle:
      return "Throttle";
    case ActionKind::kScaleOut:
      return "ScaleOut";
    case ActionKind::kReportLate:
      return "ReportLate";
    case ActionKind::kReject:
      return "Reject";
  }
  return "Unknown";
}

std::string_view EvictReasonName(EvictReason reason) {
  switch (reason) {
    case EvictReason::kPreemption:
      return "Preemption";
    case EvictReason::kYield:
      return "Yield";
    case EvictReason::kPressure:
      return "Pressure";
    case EvictReason::kNodeRemoved:
      return "NodeRemoved";
    case EvictReason::kNodeFailed:
      return "NodeFailed";
  }
  return "Unknown";
}

}  // namespace archimedes
