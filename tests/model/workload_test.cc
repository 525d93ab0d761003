#include "model/workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace archimedes {
namespace {

using ::testing::HasSubstr;

// A job that can never run is named by the field at fault, as the native format spells it.
TEST(WorkloadTest, ValidateJobNamesTheFieldAtFault) {
  BatchJob ok;
  ok.name = "ok";
  ok.task_requests = Resources::Of(100, 0);
  EXPECT_EQ(ValidateJob(ok), "");
  BatchJob j = ok;
  j.delay_tolerance_s = -1;
  EXPECT_THAT(ValidateJob(j), HasSubstr("delay_tolerance"));
  j = ok;
  j.tasks = 0;
  EXPECT_THAT(ValidateJob(j), HasSubstr("tasks is 0"));
  j = ok;
  j.duration_s = 0;
  EXPECT_THAT(ValidateJob(j), HasSubstr("duration is 0s; it must be positive"));
  j = ok;
  j.duration_estimate_s = -60;
  EXPECT_THAT(ValidateJob(j), HasSubstr("duration_estimate is -1m"));
  j = ok;
  j.task_requests = Resources{};
  EXPECT_THAT(ValidateJob(j), HasSubstr("requests is empty"));
  j = ok;
  j.type = static_cast<JobType>(7);
  EXPECT_THAT(ValidateJob(j), HasSubstr("type is unknown"));
  j = ok;
  j.submit_time = -1;
  EXPECT_THAT(ValidateJob(j), HasSubstr("submit is -1s"));
  j = ok;
  j.utilization = -0.5;
  EXPECT_THAT(ValidateJob(j), HasSubstr("utilization"));
}

// A scenario's times lie within its year; a running engine's clock is Unix time, so the engine
// checks a job's shape alone (serve under the wall clock once refused every job for its time).
TEST(WorkloadTest, OnlyAScenarioBoundsTheSubmitTime) {
  BatchJob job;
  job.name = "now";
  job.task_requests = Resources::Of(100, 0);
  job.submit_time = 1'796'471'306;
  EXPECT_THAT(ValidateJob(job), HasSubstr("the limit is 366d"));
  EXPECT_EQ(ValidateJobShape(job), "");
  job.tasks = 0;
  EXPECT_THAT(ValidateJobShape(job), HasSubstr("tasks is 0"));
}

// Issue 19: sizes that drive loops and allocations are bounded (model/limits.h), so that a job
// arriving through the API cannot make a run endless or overflow the arithmetic on requests.
TEST(WorkloadTest, ValidateJobHoldsJobsToTheLimits) {
  BatchJob ok;
  ok.name = "ok";
  ok.task_requests = Resources::Of(100, 0);
  BatchJob j = ok;
  j.tasks = 1'000'000'000;
  EXPECT_EQ(ValidateJob(j), "tasks is 1000000000; the limit is 100000");
  j = ok;
  j.task_requests = Resources::Of(int64_t{1} << 60, 0);
  EXPECT_THAT(ValidateJob(j), HasSubstr("requests cpu is above the limit"));
  j = ok;
  j.delay_tolerance_s = 400 * kSecondsPerDay;
  EXPECT_EQ(ValidateJob(j), "delay_tolerance is 400d; the limit is 366d");
  j = ok;
  j.utilization = 1e300;
  EXPECT_THAT(ValidateJob(j), HasSubstr("utilization is"));
}

}  // namespace
}  // namespace archimedes
