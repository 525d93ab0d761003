#include "model/workload.h"

#include <algorithm>

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

ServiceSla DefaultServiceSla(QosClass qos, int replicas) {
  switch (qos) {
    case QosClass::kGuaranteed:
      return {.availability = 0.999, .min_available = std::max(replicas - 1, 0)};
    case QosClass::kBurstable:
      return {.availability = 0.99, .min_available = 0};
    case QosClass::kBestEffort:
      return {.availability = 0.95, .min_available = 0};
  }
  return {};
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
