// ParallelMap: results in index order, work really on several threads, errors rethrown in order.
#include "model/parallel_map.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace archimedes {
namespace {

TEST(ParallelMapTest, ResultsComeInIndexOrderWhateverFinishesFirst) {
  const std::vector<std::string> out = ParallelMap(6, 3, [](int i) {
    // Later items finish first.
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * (6 - i)));
    return std::to_string(i * i);
  });
  EXPECT_EQ(out, (std::vector<std::string>{"0", "1", "4", "9", "16", "25"}));
}

// Two items that each wait for the other to have started can only both finish on two threads.
TEST(ParallelMapTest, TwoThreadsRunTwoItemsAtOnce) {
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  const std::vector<bool> met = ParallelMap(2, 2, [&](int) {
    std::unique_lock lock(mu);
    ++started;
    cv.notify_all();
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return started == 2; });
  });
  EXPECT_EQ(met, (std::vector<bool>{true, true}));
}

TEST(ParallelMapTest, OneThreadRunsOnTheCallersThread) {
  const std::thread::id caller = std::this_thread::get_id();
  const std::vector<bool> here =
      ParallelMap(3, 1, [&](int) { return std::this_thread::get_id() == caller; });
  EXPECT_EQ(here, (std::vector<bool>{true, true, true}));
}

TEST(ParallelMapTest, TheLowestIndexErrorIsRethrown) {
  try {
    ParallelMap(4, 1, [](int i) -> int {
      if (i >= 1) throw std::runtime_error("item " + std::to_string(i));
      return i;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 1");
  }
}

TEST(ParallelMapTest, NoItemsNoResults) {
  EXPECT_TRUE(ParallelMap(0, 4, [](int i) { return i; }).empty());
}

}  // namespace
}  // namespace archimedes
