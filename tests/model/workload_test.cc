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

}  // namespace
}  // namespace archimedes
