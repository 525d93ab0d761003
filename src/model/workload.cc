#include "model/workload.h"

namespace archimedes {

std::string_view QosName(QosClass qos) {
  switch (qos) {
    case QosClass::kGuaranteed:
      return "Guaranteed";
    case QosClass::kBurstable:
      return "Burstable";
    case QosClass::kBestEffort:
      return "BestEffort";
  }
  return "?";
}

std::optional<QosClass> ParseQos(std::string_view name) {
  for (QosClass q : {QosClass::kGuaranteed, QosClass::kBurstable, QosClass::kBestEffort}) {
    if (QosName(q) == name) return q;
  }
  return std::nullopt;
}

std::string_view JobTypeName(JobType type) {
  return type == JobType::kServerless ? "serverless" : "offline";
}

std::optional<JobType> ParseJobType(std::string_view name) {
  if (name == "serverless") return JobType::kServerless;
  if (name == "offline") return JobType::kOffline;
  return std::nullopt;
}

}  // namespace archimedes
