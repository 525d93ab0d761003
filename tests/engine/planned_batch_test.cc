// The archimedes policy's batch planning through the engine's interface: the plan it shows
// (Engine::plan()) and the lateness it reports.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/batch_queue.h"
#include "engine/engine.h"
#include "engine/policy.h"

namespace archimedes {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

BatchJob Offline(const std::string& name, int tasks, int64_t cpu, int64_t submit,
                 int64_t tolerance) {
  return BatchJob{.name = name,
                  .submit_time = submit,
                  .tasks = tasks,
                  .task_requests = Resources::Of(cpu, kGi),
                  .duration_estimate_s = 600,
                  .duration_s = 600,
                  .delay_tolerance_s = tolerance};
}

class PlannedBatchTest : public ::testing::Test {
 protected:
  PlannedBatchTest() : engine_(MakePolicy("archimedes"), {}, {Node72()}, {}) {}

  // 7.2 cores and no service: all of it is batch room (no burst buffer where nothing bursts).
  static Node Node72() {
    Node n{.name = "a", .capacity = Resources::Of(7200, 32 * kGi)};
    n.allocatable = n.capacity;
    n.zone = "z";
    n.pod = "p";
    return n;
  }
  // Runs the cycles of the seconds up to `to`, keeping the actions.
  void RunTo(int64_t to) {
    for (int64_t s = engine_.now(); s <= to; ++s) {
      engine_.AdvanceTo(s);
      engine_.Schedule();
      taken_.insert(taken_.end(), engine_.actions().begin(), engine_.actions().end());
      engine_.ClearActions();
    }
  }

  Engine engine_;
  std::vector<Action> taken_;
};

TEST_F(PlannedBatchTest, TasksWaitingForRoomArePlannedAfterTheRunAheadOfThem) {
  engine_.SubmitJob(Offline("first", 1, 6000, 0, 7200), 7200);
  RunTo(1);
  const int32_t next = engine_.SubmitJob(Offline("next", 2, 2000, 1, 7200), 7200);
  RunTo(2);
  const std::vector<PlannedTask> plan = engine_.plan();
  ASSERT_EQ(plan.size(), 2U);
  for (const PlannedTask& p : plan) {
    EXPECT_EQ(p.job, next);
    EXPECT_EQ(p.node, 0);
    EXPECT_EQ(p.start, 600);  // "first" holds the node for its estimated 10 minutes
    EXPECT_EQ(p.end, 1200);
    EXPECT_FALSE(p.late);
  }
  EXPECT_EQ(engine_.plan_of(next).size(), 2U);
  EXPECT_TRUE(engine_.plan_of(0).empty());  // "first" runs
  EXPECT_THROW(engine_.plan_of(next + 1), std::invalid_argument);
}

// A deadline that passes in a cycle with nothing new to plan is reported with what the last
// planner call said, not with another call's placements.
TEST_F(PlannedBatchTest, DeadlinePassingBetweenPlannerCallsIsReportedLateOnce) {
  engine_.SubmitJob(Offline("first", 1, 6000, 0, 7200), 7200);
  RunTo(1);
  const int32_t hurried = engine_.SubmitJob(Offline("hurried", 1, 4000, 1, 60), 7200);
  RunTo(2);
  engine_.SubmitJob(Offline("patient", 2, 2000, 2, 7200), 7200);
  RunTo(9);
  // Cycles with nothing new to plan (a label change makes one run) before and after the deadline.
  engine_.SetNodeLabels(0, {{"rack", "1"}});
  RunTo(99);
  engine_.SetNodeLabels(0, {{"rack", "2"}});
  RunTo(200);
  int reports = 0;
  for (const Action& a : taken_) {
    if (a.kind != ActionKind::kReportLate) continue;
    ++reports;
    EXPECT_EQ(a.job, hurried);
    EXPECT_EQ(a.tasks, 1);
    EXPECT_TRUE(a.expected_start == -1 || a.expected_start >= 600) << a.expected_start;
  }
  EXPECT_EQ(reports, 1);
}

// No service runs on the node, so nothing bursts there: a task may take all of it.
TEST_F(PlannedBatchTest, ATaskMayTakeAWholeNodeWhereNoServiceRuns) {
  engine_.SubmitJob(Offline("whole", 1, 7200, 0, 300), 10'000);
  RunTo(2);
  ASSERT_EQ(taken_.size(), 1u);
  EXPECT_EQ(taken_[0].kind, ActionKind::kStartTask);
}

// A task that found no node rules out, for the rest of the cycle, only tasks that could not fit
// where it did not: a serverless task may borrow the CPU of offline tasks, so a GPU training task
// (greedy: GPU tasks are not planned) failing first must not keep an equal serverless one waiting.
TEST(PlannedBatchFailedShapeTest, AnOfflineFailureDoesNotHoldBackAServerlessTask) {
  Node node{.name = "gpu", .capacity = Resources::Of(7200, 32 * kGi, 0, 0, 1000)};
  node.allocatable = node.capacity;
  node.zone = "z";
  node.pod = "p";
  Engine engine(MakePolicy("archimedes"), {}, {node}, {});
  std::vector<Action> taken;
  auto run_to = [&](int64_t to) {
    for (int64_t s = engine.now(); s <= to; ++s) {
      engine.AdvanceTo(s);
      engine.Schedule();
      taken.insert(taken.end(), engine.actions().begin(), engine.actions().end());
      engine.ClearActions();
    }
  };
  engine.SubmitJob(Offline("first", 1, 6000, 0, 7200), 7200);
  run_to(0);
  ASSERT_EQ(taken.size(), 1u);
  taken.clear();
  BatchJob train = Offline("train", 1, 2000, 1, 60);
  train.task_requests[Dim::kGpu] = 1000;
  BatchJob function = train;
  function.name = "function";
  function.type = JobType::kServerless;
  const int32_t train_id = engine.SubmitJob(train, 7200);
  const int32_t function_id = engine.SubmitJob(function, 7200);
  run_to(1);
  // 1,200 millicores are left: "train" does not fit; "function" borrows half of "first"'s CPU.
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].kind, ActionKind::kStartTask);
  EXPECT_EQ(taken[0].job, function_id);
  EXPECT_NE(taken[0].job, train_id);
}

// The batch queue's room bound holds only if a start never lets serverless tasks borrow more CPU
// than it takes.
TEST(PlannedBatchFailedShapeTest, BorrowingMoreThanATaskTakesIsRefused) {
  EXPECT_THROW(NewPlannedBatch(0.1, 1.5, 1), std::invalid_argument);
  EXPECT_THROW(NewPlannedBatch(0.1, -0.1, 1), std::invalid_argument);
  EXPECT_NE(NewPlannedBatch(0.1, 1.0, 1), nullptr);
}

TEST(FailedShapeTest, RulesOutOnlyTasksThatNeedMoreOfEverything) {
  using Shape = BatchQueue::TaskShape;
  const Shape failed{.requests = Resources::Of(2000, kGi), .run = {.bins = 12}};
  EXPECT_TRUE(BatchQueue::Dominates(failed, failed));
  EXPECT_TRUE(BatchQueue::Dominates(
      Shape{.requests = Resources::Of(3000, 2 * kGi), .run = {.bins = 24}}, failed));
  // Less of one request, a shorter run (fewer time bins to hold), or a serverless task (which may
  // use the serverless reserve and borrow CPU) may fit where `failed` did not.
  EXPECT_FALSE(BatchQueue::Dominates(
      Shape{.requests = Resources::Of(3000, kGi / 2), .run = {.bins = 24}}, failed));
  EXPECT_FALSE(BatchQueue::Dominates(
      Shape{.requests = Resources::Of(3000, 2 * kGi), .run = {.bins = 2}}, failed));
  EXPECT_FALSE(BatchQueue::Dominates(
      Shape{.requests = Resources::Of(3000, 2 * kGi), .run = {.bins = 24, .serverless = true}},
      failed));
  Shape failed_serverless = failed;
  failed_serverless.run.serverless = true;
  EXPECT_TRUE(BatchQueue::Dominates(failed, failed_serverless));
}

// Room freed between re-plans: a whole-node task estimated at an hour starts alone, two whole-node
// jobs queue behind it at 1 s, and it ends after 100 s (the re-plans come every 300 s). Arrival
// order would give the room to the first job; in each case the second is the more urgent and
// takes it.
struct QueuedJob {
  const char* name;
  int64_t tolerance;
  int64_t give_up_at;
};
struct FreedRoomCase {
  const char* rule;
  QueuedJob first, second;
};
constexpr int64_t kPatient = 100'000;

class FreedRoomTest : public PlannedBatchTest,
                      public ::testing::WithParamInterface<FreedRoomCase> {};

TEST_P(FreedRoomTest, GoesToTheMostUrgentJob) {
  BatchJob blocker = Offline("blocker", 1, 7200, 0, 7200);
  blocker.duration_estimate_s = 3600;
  engine_.SubmitJob(blocker, kPatient);
  RunTo(0);
  ASSERT_EQ(taken_.size(), 1u);
  ASSERT_EQ(taken_[0].kind, ActionKind::kStartTask);
  const ContainerId running = taken_[0].container;
  auto queue = [&](const QueuedJob& q) {
    return engine_.SubmitJob(Offline(q.name, 1, 7200, 1, q.tolerance), q.give_up_at);
  };
  queue(GetParam().first);
  const int32_t second = queue(GetParam().second);
  RunTo(99);
  taken_.clear();
  engine_.ContainerFinished(running);
  RunTo(100);
  int32_t taker = -1;
  for (const Action& a : taken_) {
    if (a.kind != ActionKind::kStartTask) continue;
    EXPECT_EQ(taker, -1) << "one task fits";
    taker = a.job;
  }
  EXPECT_EQ(taker, second);
}

INSTANTIATE_TEST_SUITE_P(
    Urgency, FreedRoomTest,
    ::testing::Values(
        // In arrival order the job with two hours to spare would take the room; the one whose
        // deadline passes before the next re-plan goes first.
        FreedRoomCase{"ATaskAboutToMissItsDeadlineFirst",
                      {"slack", 7200, kPatient},
                      {"hurried", 250, kPatient}},
        // A late task whose submitter gives up before the next re-plan is lost unless it starts
        // now; the task in time can wait.
        FreedRoomCase{"ALateTaskAboutToBeGivenUpBeforeOneThatCanWait",
                      {"slack", 7200, kPatient},
                      {"late", 10, 350}},
        // A late task with patience left does not take the room from one still in time.
        FreedRoomCase{"ATaskInTimeBeforeALateOneThatCanWait",
                      {"late", 10, kPatient},
                      {"slack", 7200, kPatient}},
        // Both would be lost before the next re-plan: the contract that can still be kept first.
        FreedRoomCase{"ATaskAboutToMissItsDeadlineBeforeALateOneAboutToBeGivenUp",
                      {"late", 10, 350},
                      {"hurried", 250, kPatient}}),
    [](const ::testing::TestParamInfo<FreedRoomCase>& info) { return info.param.rule; });

}  // namespace
}  // namespace archimedes
