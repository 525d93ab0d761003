// The etcd journal against a real etcd: events come back as they went in, settings are checked,
// and a deposed leader's append is refused by etcd itself (fencing).
#include "server/etcd_journal.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/leadership.h"
#include "store/etcd_cluster.h"
#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

const JournalSettings kSettings = {{"policy", "k8s-default"}, {"clock", "virtual"}};

std::unique_ptr<EtcdJournal> Open(const testing::EtcdTestServer& etcd,
                                  const JournalSettings& settings = kSettings) {
  return std::make_unique<EtcdJournal>(
      std::make_unique<EtcdCluster>(std::vector<std::string>{etcd.endpoint()}), "/t/", settings);
}

Event JobEvent(int k) {
  return {.kind = EventKind::kSubmitJob,
          .time = k,
          .target = "",
          .body = R"({"spec":{"tasks":)" + std::to_string(k) + "}}",
          .idempotency_key = "key-" + std::to_string(k)};
}

TEST(EtcdJournalTest, EventsAreEncodedVerbatim) {
  const Event odd{.kind = EventKind::kContainerStatus,
                  .time = 7,
                  .target = "a\nb 3 4\n",
                  .body = std::string("{\"x\":\"\0\n\"}", 11),
                  .idempotency_key = ""};
  const Event back = DecodeEvent(1, EncodeEvent(odd));
  EXPECT_EQ(back.kind, odd.kind);
  EXPECT_EQ(back.time, odd.time);
  EXPECT_EQ(back.target, odd.target);
  EXPECT_EQ(back.body, odd.body);
  EXPECT_EQ(back.idempotency_key, odd.idempotency_key);
  for (const std::string bad : {"", "4 1 2", "4 1 99 0\nab", "77 0 0 0\n", "4 -1 0 0\n"}) {
    try {
      DecodeEvent(12, bad);
      ADD_FAILURE() << "decoded \"" << bad << "\"";
    } catch (const JournalError& e) {
      EXPECT_NE(std::string(e.what()).find("event 12 is malformed"), std::string::npos);
    }
  }
}

TEST(EtcdJournalTest, AppendedEventsReadBackInOrderAcrossBatches) {
  ARCHIMEDES_REQUIRE_ETCD();
  testing::EtcdTestServer etcd;
  auto journal = Open(etcd);
  EXPECT_THROW(journal->Append(JobEvent(0)), JournalError) << "no one leads yet";
  Leadership leadership(journal->store(), "/t/", "http://replica-a", 5);
  ASSERT_TRUE(leadership.TryLead());
  journal->Lead(leadership.term(), 0);
  int64_t last = 0;
  for (int k = 1; k <= 250; ++k) last = journal->Append(JobEvent(k));  // three transactions
  EXPECT_EQ(last, 250);
  journal->Sync(last);
  EXPECT_EQ(journal->committed(), 250);

  auto reader = Open(etcd);
  int64_t seen = 0;
  reader->ForEach(0, [&](int64_t seq, const Event& event) {
    EXPECT_EQ(seq, seen + 1);
    EXPECT_EQ(event.body, JobEvent(static_cast<int>(seq)).body);
    EXPECT_EQ(event.idempotency_key, JobEvent(static_cast<int>(seq)).idempotency_key);
    seen = seq;
  });
  EXPECT_EQ(seen, 250);
  EXPECT_EQ(reader->Read(240, 100).size(), 10u);
  EXPECT_TRUE(reader->Read(250, 100).empty());

  try {
    Open(etcd, {{"policy", "archimedes"}, {"clock", "virtual"}});
    ADD_FAILURE() << "a log is only replayed under its own settings";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("policy k8s-default, not archimedes"), std::string::npos)
        << e.what();
  }
  // A log older than profile adoption replays without it.
  JournalSettings adopting = kSettings;
  adopting.emplace_back("adopt-profiles", "1h");
  try {
    Open(etcd, adopting);
    ADD_FAILURE() << "an older log replayed with adoption";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("adopt-profiles 0s, not 1h"), std::string::npos)
        << e.what();
  }
  JournalSettings not_adopting = kSettings;
  not_adopting.emplace_back("adopt-profiles", "0s");
  EXPECT_NE(Open(etcd, not_adopting), nullptr);
}

TEST(EtcdJournalTest, ADeposedLeaderCannotAppend) {
  ARCHIMEDES_REQUIRE_ETCD();
  testing::EtcdTestServer etcd;
  auto old_journal = Open(etcd);
  auto new_journal = Open(etcd);
  Leadership old_leader(old_journal->store(), "/t/", "http://old", 5);
  Leadership new_leader(new_journal->store(), "/t/", "http://new", 5);
  ASSERT_TRUE(old_leader.TryLead());
  EXPECT_FALSE(new_leader.TryLead());
  EXPECT_EQ(new_leader.leader(), "http://old");
  old_journal->Lead(old_leader.term(), 0);
  old_journal->Sync(old_journal->Append(JobEvent(1)));

  // The old leader's lease ends (as when it hangs past its TTL); another replica takes the lead.
  old_journal->store().RevokeLease(
      old_journal->store().Get("/t/leader")->lease);  // behind the old leader's back
  ASSERT_TRUE(new_leader.TryLead());
  EXPECT_GT(new_leader.term(), old_leader.term());
  new_journal->ForEach(0, [](int64_t, const Event&) {});
  new_journal->Lead(new_leader.term(), 1);

  // The old leader still believes it leads: etcd refuses its append.
  const int64_t stale = old_journal->Append(JobEvent(2));
  EXPECT_EQ(stale, 2);
  try {
    old_journal->Sync(stale);
    ADD_FAILURE() << "a deposed leader appended";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("no longer leads (the leader is now http://new)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(old_journal->Append(JobEvent(3)), JournalError) << "deposed: it appends no more";
  new_journal->Sync(new_journal->Append(JobEvent(20)));
  const auto log = Open(etcd)->Read(0, 10);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].second.body, JobEvent(1).body);
  EXPECT_EQ(log[1].second.body, JobEvent(20).body) << "sequence number 2 is the new leader's";
}

}  // namespace
}  // namespace archimedes
