#include "model/workload.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "model/duration.h"
#include "model/limits.h"

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

std::string ValidateJob(const BatchJob& job) {
  if (job.submit_time < 0) {
    return "submit is " + FormatDuration(job.submit_time) +
           "; times count from the start of the scenario and must not be negative";
  }
  if (job.submit_time > kMaxDurationSeconds) {
    return "submit is " + FormatDuration(job.submit_time) + "; the limit is " +
           FormatDuration(kMaxDurationSeconds);
  }
  return ValidateJobShape(job);
}

std::string ValidateJobShape(const BatchJob& job) {
  if (job.name.empty()) return "name is empty";
  if (job.type != JobType::kServerless && job.type != JobType::kOffline) {
    return "type is unknown; expected serverless or offline";
  }
  if (job.tasks < 1) {
    return "tasks is " + std::to_string(job.tasks) + "; a job needs at least one task";
  }
  if (job.tasks > kMaxTasks) {
    return "tasks is " + std::to_string(job.tasks) + "; the limit is " + std::to_string(kMaxTasks);
  }
  if (job.task_requests.IsZero()) return "requests is empty; a task must request some resource";
  if (job.task_requests.AnyNegative()) {
    return "requests has a negative amount: " + ToString(job.task_requests);
  }
  for (Dim d : kAllDims) {
    if (job.task_requests[d] > kMaxResourceAmount) {
      return "requests " + std::string(DimName(d)) + " is above the limit of " +
             std::to_string(kMaxResourceAmount) + " canonical units";
    }
  }
  if (job.duration_estimate_s <= 0) {
    return "duration_estimate is " + FormatDuration(job.duration_estimate_s) +
           "; it must be positive";
  }
  if (job.duration_s <= 0) {
    return "duration is " + FormatDuration(job.duration_s) + "; it must be positive";
  }
  if (!std::isfinite(job.utilization) || job.utilization < 0 || job.utilization > kMaxUtilization) {
    return "utilization is " + std::to_string(job.utilization) +
           "; it must be a share of the CPU request in [0, " +
           std::to_string(static_cast<int>(kMaxUtilization)) + "]";
  }
  if (job.delay_tolerance_s < 0) {
    return "delay_tolerance is " + FormatDuration(job.delay_tolerance_s) +
           "; it must not be negative";
  }
  for (const auto& [field, seconds] : {std::pair{"duration_estimate", job.duration_estimate_s},
                                       {"duration", job.duration_s},
                                       {"delay_tolerance", job.delay_tolerance_s}}) {
    if (seconds > kMaxDurationSeconds) {
      return std::string(field) + " is " + FormatDuration(seconds) + "; the limit is " +
             FormatDuration(kMaxDurationSeconds);
    }
  }
  return "";
}

}  // namespace archimedes
