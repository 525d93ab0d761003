// EtcdStore::Watch and CancelWatch against a real etcd (skipped when /usr/bin/etcd is absent, a
// failure in CI): what serve's MAGI decision watch (server/magi_decisions.h) relies on.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/etcd_store.h"
#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Long enough that a watch never ends for idleness while a test still expects events, short
// enough that a watch that missed them fails the test in seconds rather than hanging it.
constexpr milliseconds kPatientIdle{5000};

// What a change was expected to deliver.
struct ExpectedEvent {
  WatchEvent::Type type;
  std::string key;
  std::string value;
  int64_t mod_revision;
};

void ExpectEvents(const std::vector<WatchEvent>& got, const std::vector<ExpectedEvent>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(got[i].type, want[i].type);
    EXPECT_EQ(got[i].kv.key, want[i].key);
    EXPECT_EQ(got[i].kv.value, want[i].value);
    EXPECT_EQ(got[i].kv.mod_revision, want[i].mod_revision);
  }
}

// The events a watch running on another thread delivered, for the test thread to wait on.
class EventLog {
 public:
  // Records `event`; false (ending the watch) once `stop_after` events are in.
  bool Record(const WatchEvent& event, size_t stop_after) {
    std::lock_guard lock(mu_);
    events_.push_back(event);
    arrived_.notify_all();
    return events_.size() < stop_after;
  }

  // Whether `count` events arrived within `timeout`.
  bool AwaitCount(size_t count, milliseconds timeout) {
    std::unique_lock lock(mu_);
    return arrived_.wait_for(lock, timeout, [&] { return events_.size() >= count; });
  }

  std::vector<WatchEvent> events() {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  std::mutex mu_;
  std::condition_variable arrived_;
  std::vector<WatchEvent> events_;
};

// Ignores SIGPIPE while it lives, as every process serving HTTP with cpp-httplib does (its
// server's constructor ignores it for good).
class ScopedIgnoreSigpipe {
 public:
  ScopedIgnoreSigpipe() : previous_(std::signal(SIGPIPE, SIG_IGN)) {}
  ~ScopedIgnoreSigpipe() { std::signal(SIGPIPE, previous_); }
  ScopedIgnoreSigpipe(const ScopedIgnoreSigpipe&) = delete;
  ScopedIgnoreSigpipe& operator=(const ScopedIgnoreSigpipe&) = delete;

 private:
  void (*previous_)(int);
};

class EtcdWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_ETCD();
    etcd_ = std::make_unique<testing::EtcdTestServer>();
    store_ = std::make_unique<EtcdStore>(etcd_->endpoint());
  }

  EtcdStore& store() { return *store_; }

  // Runs a watch of `prefix` from `start_revision` on a thread of its own, recording into `log`
  // until `stop_after` events arrived.
  std::future<int64_t> WatchInBackground(const std::string& prefix, int64_t start_revision,
                                         milliseconds idle, EventLog& log, size_t stop_after) {
    return std::async(std::launch::async, [this, prefix, start_revision, idle, &log, stop_after] {
      return store().Watch(prefix, start_revision, idle,
                           [&](const WatchEvent& event) { return log.Record(event, stop_after); });
    });
  }

  std::unique_ptr<testing::EtcdTestServer> etcd_;
  std::unique_ptr<EtcdStore> store_;
};

TEST_F(EtcdWatchTest, DeliversChangesUnderThePrefixInRevisionOrder) {
  const std::string prefix = "/watched/";
  EventLog log;
  const int64_t start = store().Revision() + 1;
  std::future<int64_t> watch =
      WatchInBackground(prefix, start, kPatientIdle, log, /*stop_after=*/5);

  // The first change may reach the watch as history if its stream is not open yet; once its
  // event is in, the stream is, and every later change travels live.
  const int64_t first = store().Put("/watched/a", "1");
  ASSERT_TRUE(log.AwaitCount(1, kPatientIdle)) << "the first put never arrived";

  // Changes just outside the prefix come between the watched ones: delivered, they would take
  // the place of a watched event.
  store().Put("/watched0", "past the prefix's end");
  const int64_t second = store().Put("/watched/b", "2");
  store().Put("/other/a", "elsewhere");
  const int64_t third = store().Put("/watched/a", "3");
  store().Put("/watche", "before the prefix");
  ASSERT_EQ(store().Delete("/watched/b"), 1);
  const int64_t deleted = store().Revision();
  store().Delete("/watched0");
  const int64_t last = store().Put("/watched/c", "");

  ASSERT_EQ(watch.wait_for(kPatientIdle), std::future_status::ready) << "the watch never ended";
  EXPECT_EQ(watch.get(), last) << "Watch returns the revision of the last event it delivered";
  ExpectEvents(log.events(), {{WatchEvent::Type::kPut, "/watched/a", "1", first},
                              {WatchEvent::Type::kPut, "/watched/b", "2", second},
                              {WatchEvent::Type::kPut, "/watched/a", "3", third},
                              {WatchEvent::Type::kDelete, "/watched/b", "", deleted},
                              {WatchEvent::Type::kPut, "/watched/c", "", last}});
}

TEST_F(EtcdWatchTest, ReplaysHistoryFromAPastRevision) {
  store().Put("/history/a", "before the start");
  const int64_t start = store().Put("/history/a", "1");
  store().Put("/elsewhere", "not watched");
  const int64_t second = store().Put("/history/b", "2");
  store().Delete("/history/a");
  const int64_t deleted = store().Revision();

  // Every change is history by now, so the watch may run on the test thread.
  std::vector<WatchEvent> events;
  const int64_t resumed = store().Watch("/history/", start, kPatientIdle, [&](const WatchEvent& e) {
    events.push_back(e);
    return events.size() < 3;
  });
  EXPECT_EQ(resumed, deleted);
  ExpectEvents(events, {{WatchEvent::Type::kPut, "/history/a", "1", start},
                        {WatchEvent::Type::kPut, "/history/b", "2", second},
                        {WatchEvent::Type::kDelete, "/history/a", "", deleted}});
}

TEST_F(EtcdWatchTest, CompactedStartRevisionThrowsWatchCompacted) {
  const int64_t start = store().Put("/compacted/a", "1");
  store().Put("/compacted/a", "2");
  const int64_t compacted_to = store().Put("/compacted/b", "3");
  store().Compact(compacted_to);

  bool delivered = false;
  try {
    store().Watch("/compacted/", start, kPatientIdle, [&](const WatchEvent&) {
      delivered = true;
      return true;
    });
    FAIL() << "a watch from compacted revision " << start << " did not throw";
  } catch (const WatchCompacted& e) {
    EXPECT_EQ(e.compact_revision, compacted_to);
    EXPECT_NE(std::string(e.what()).find(etcd_->endpoint()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(delivered);

  // The compaction kept `compacted_to` itself: a watch may resume from there.
  int64_t resumed = 0;
  EXPECT_NO_THROW(resumed = store().Watch("/compacted/", compacted_to, kPatientIdle,
                                          [](const WatchEvent&) { return false; }));
  EXPECT_EQ(resumed, compacted_to);
}

TEST_F(EtcdWatchTest, ReturnsWhenNothingHappensForTheIdlePeriod) {
  const int64_t start = store().Revision() + 1;
  bool delivered = false;
  const auto began = steady_clock::now();
  const int64_t resumed =
      store().Watch("/quiet/", start, milliseconds(500), [&](const WatchEvent&) {
        delivered = true;
        return true;
      });
  const auto took = steady_clock::now() - began;
  EXPECT_EQ(resumed, start - 1) << "nothing delivered: resume from where the watch began";
  EXPECT_FALSE(delivered);
  EXPECT_GE(took, milliseconds(400)) << "returned before the idle period passed";
  EXPECT_LT(took, milliseconds(3000));
}

TEST_F(EtcdWatchTest, CancelWatchEndsARunningWatchAndRefusesLaterOnes) {
  EventLog log;
  const int64_t start = store().Revision() + 1;
  std::future<int64_t> watch =
      WatchInBackground("/cancel/", start, milliseconds(10000), log, /*stop_after=*/100);
  const int64_t delivered = store().Put("/cancel/a", "1");
  ASSERT_TRUE(log.AwaitCount(1, kPatientIdle)) << "the watch never delivered the put";

  const auto cancelled = steady_clock::now();
  store().CancelWatch();
  ASSERT_EQ(watch.wait_for(milliseconds(2000)), std::future_status::ready)
      << "the watch went on after CancelWatch";
  EXPECT_LT(steady_clock::now() - cancelled, milliseconds(2000));
  EXPECT_EQ(watch.get(), delivered);

  // History to replay is there, yet a cancelled store's watch returns at once without it.
  bool replayed = false;
  const auto began = steady_clock::now();
  EXPECT_EQ(store().Watch("/cancel/", start, milliseconds(10000),
                          [&](const WatchEvent&) {
                            replayed = true;
                            return true;
                          }),
            start - 1);
  EXPECT_LT(steady_clock::now() - began, milliseconds(500));
  EXPECT_FALSE(replayed);
}

// Serve stopping just after it began following MAGI's decisions: CancelWatch while the watch is
// still setting up. Watch registers its connection before the connection exists; a long prefix
// makes the request slow to build, which widens that moment from microseconds to milliseconds.
TEST_F(EtcdWatchTest, CancelWatchAsTheWatchStartsEndsItPromptly) {
  // Were the cancellation to land just as the request is written, the write to the shut socket
  // would raise SIGPIPE and end the whole test binary: ignored here, as in serve.
  ScopedIgnoreSigpipe ignore_sigpipe;
  const std::string prefix = "/" + std::string(500 * 1000, 'p') + "/";
  const milliseconds idle(2000);
  for (const milliseconds delay : {milliseconds(5), milliseconds(10)}) {
    SCOPED_TRACE("cancelled " + std::to_string(delay.count()) + " ms after Watch was called");
    EtcdStore store(etcd_->endpoint());
    std::promise<void> calling;
    std::future<void> called = calling.get_future();
    std::future<int64_t> watch = std::async(std::launch::async, [&] {
      calling.set_value();
      return store.Watch(prefix, 1, idle, [](const WatchEvent&) { return true; });
    });
    called.wait();
    std::this_thread::sleep_for(delay);
    store.CancelWatch();
    const bool ended = watch.wait_for(milliseconds(1000)) == std::future_status::ready;
    EXPECT_TRUE(ended) << "the watch went on after CancelWatch until it was idle for "
                       << idle.count() << " ms";
    EXPECT_NO_THROW(watch.get());
    if (!ended) break;
  }
}

TEST(EtcdWatchErrorsTest, UnreachableEndpointThrowsNamingIt) {
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  EtcdStore store(endpoint, milliseconds(300));
  bool delivered = false;
  try {
    store.Watch("/any/", 1, kPatientIdle, [&](const WatchEvent&) {
      delivered = true;
      return true;
    });
    FAIL() << "a watch of a closed port did not throw";
  } catch (const WatchCompacted& e) {
    FAIL() << "a closed port reported as a compaction: " << e.what();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(endpoint + ": watch /any/: "), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(delivered);
}

}  // namespace
}  // namespace archimedes
