// Readmission of a node recorded offline, and a member's nodes changing between rounds: first the
// judgement alone (Judge on a readmit proposal), then five real members over a MemoryStore, each
// observing what the test scripts.
#include "magi/member.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "magi/quorum.h"
#include "store/memory_store.h"

namespace archimedes::magi {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Judge on a readmit proposal.

// A node recorded offline that answered `answers` probes in a row, the latest one included.
NodeEvidence Answering(int answers) {
  NodeEvidence e;
  e.node = "node-7";
  e.probes = 40;
  e.consecutive_answers = answers;
  e.tcp_ok = e.http_ok = true;
  e.offline_decided = true;
  return e;
}

constexpr VantageEvidence kClearView{4, 4, 9, 10};

TEST(ReadmitJudgeTest, KindNameRoundTrips) {
  EXPECT_EQ(ProposalKindName(ProposalKind::kReadmit), "readmit");
  EXPECT_EQ(ParseProposalKind("readmit"), ProposalKind::kReadmit);
  for (ProposalKind kind :
       {ProposalKind::kNodeOffline, ProposalKind::kMigrate, ProposalKind::kReadmit}) {
    EXPECT_EQ(ParseProposalKind(ProposalKindName(kind)), kind);
  }
  EXPECT_EQ(ParseProposalKind("readmitted"), std::nullopt);
  EXPECT_EQ(ParseProposalKind("Readmit"), std::nullopt);
}

TEST(ReadmitJudgeTest, EnoughAnswersInARowVoteYes) {
  Judgement j = Judge(ProposalKind::kReadmit, Answering(10), kClearView, JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kYes) << j.reason;
  EXPECT_NE(j.reason.find("10 of 10"), std::string::npos) << j.reason;
  EXPECT_EQ(Judge(ProposalKind::kReadmit, Answering(25), kClearView, JudgePolicy{}).verdict,
            Verdict::kYes);
  // Answering TCP alone is answering.
  NodeEvidence tcp_only = Answering(10);
  tcp_only.http_ok = false;
  EXPECT_EQ(Judge(ProposalKind::kReadmit, tcp_only, kClearView, JudgePolicy{}).verdict,
            Verdict::kYes);
}

TEST(ReadmitJudgeTest, FewerAnswersThanNeededAbstain) {
  Judgement j = Judge(ProposalKind::kReadmit, Answering(9), kClearView, JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kAbstain);
  EXPECT_NE(j.reason.find("9 of 10"), std::string::npos) << j.reason;
  JudgePolicy three;
  three.answers_to_readmit = 3;
  EXPECT_EQ(Judge(ProposalKind::kReadmit, Answering(2), kClearView, three).verdict,
            Verdict::kAbstain);
  EXPECT_EQ(Judge(ProposalKind::kReadmit, Answering(3), kClearView, three).verdict, Verdict::kYes);
}

TEST(ReadmitJudgeTest, ALatestProbeThatFailedVotesNo) {
  NodeEvidence e = Answering(0);
  e.tcp_ok = e.http_ok = false;
  e.consecutive_failures = 1;
  e.last_error = "connect: refused";
  Judgement j = Judge(ProposalKind::kReadmit, e, kClearView, JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kNo);
  EXPECT_NE(j.reason.find("connect: refused"), std::string::npos) << j.reason;
  // However long it answered before, the latest failure decides.
  e.consecutive_answers = 50;
  EXPECT_EQ(Judge(ProposalKind::kReadmit, e, kClearView, JudgePolicy{}).verdict, Verdict::kNo);
}

TEST(ReadmitJudgeTest, ANodeNotRecordedOfflineVotesNo) {
  NodeEvidence e = Answering(10);
  e.offline_decided = false;
  Judgement j = Judge(ProposalKind::kReadmit, e, kClearView, JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kNo);
  EXPECT_NE(j.reason.find("not recorded offline"), std::string::npos) << j.reason;
}

TEST(ReadmitJudgeTest, AnIsolatedMemberAbstains) {
  for (const VantageEvidence& cut_off :
       {VantageEvidence{4, 4, 2, 10}, VantageEvidence{1, 4, 9, 10}}) {
    Judgement j = Judge(ProposalKind::kReadmit, Answering(10), cut_off, JudgePolicy{});
    EXPECT_EQ(j.verdict, Verdict::kAbstain);
    EXPECT_NE(j.reason.find("isolated"), std::string::npos) << j.reason;
  }
}

TEST(ReadmitJudgeTest, WithNoAnswersRequiredOnlyAnOperatorReadmits) {
  JudgePolicy policy;
  policy.answers_to_readmit = 0;
  Judgement j = Judge(ProposalKind::kReadmit, Answering(1000), kClearView, policy);
  EXPECT_EQ(j.verdict, Verdict::kAbstain);
  EXPECT_NE(j.reason.find("operator"), std::string::npos) << j.reason;
}

TEST(ReadmitJudgeTest, NoProbeYetAbstains) {
  NodeEvidence e = Answering(10);
  e.probes = 0;
  EXPECT_EQ(Judge(ProposalKind::kReadmit, e, kClearView, JudgePolicy{}).verdict, Verdict::kAbstain);
}

// ---------------------------------------------------------------------------------------------
// Five members over a MemoryStore, each seeing what the test scripts.

const std::vector<Member> kMembership = {
    {1, "pod-a"}, {2, "pod-b"}, {3, "pod-c"}, {4, "pod-d"}, {5, "pod-e"}};
constexpr char kPrefix[] = "/archimedes/magi/";

std::vector<NodeTarget> Nodes(const std::vector<std::string>& names) {
  std::vector<NodeTarget> nodes;
  nodes.reserve(names.size());
  for (const std::string& name : names) nodes.push_back({name, "pod-x", "", ""});
  return nodes;
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; ++pos) ++n;
  return n;
}

// The nodes a member cannot reach; every node's heartbeat is stale, so only probes count.
class ScriptedObserver : public NodeObserver {
 public:
  std::vector<MissedProbe> ProbeAll(const std::vector<NodeTarget>& nodes, int64_t) override {
    std::vector<MissedProbe> missed;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (unreachable.count(nodes[i].name)) {
        missed.push_back({i, {false, false, "scripted: unreachable"}});
      }
    }
    return missed;
  }
  std::vector<std::optional<int64_t>> HeartbeatAges(const std::vector<std::string>& nodes,
                                                    int64_t) override {
    return std::vector<std::optional<int64_t>>(nodes.size(), 600);
  }

  std::set<std::string> unreachable;
};

class ReadmissionTest : public ::testing::Test {
 protected:
  // Members are started by each test, for its judge policy.
  void Start(const JudgePolicy& policy) {
    for (const Member& m : kMembership) {
      MemberConfig c;
      c.id = m.id;
      c.pod = m.pod;
      c.members = kMembership;
      c.nodes = Nodes({"node-0", "node-1", "node-2", "node-3"});
      c.lease_ttl = 10;
      c.policy = policy;
      observers_.push_back(std::make_unique<ScriptedObserver>());
      members_.push_back(std::make_unique<MagiMember>(c, store_, *observers_.back(), log_));
    }
  }

  void Crash(const std::string& node) {
    for (auto& o : observers_) o->unreachable.insert(node);
  }
  void Recover(const std::string& node) {
    for (auto& o : observers_) o->unreachable.erase(node);
  }
  void SetNodesAll(const std::vector<std::string>& names) {
    for (auto& m : members_) m->SetNodes(Nodes(names));
  }
  void TickAll(int64_t now) {
    store_.AdvanceTo(now);
    for (auto& m : members_) m->Tick(now);
  }
  void TickAll(int64_t from, int64_t to) {
    for (int64_t t = from; t < to; ++t) TickAll(t);
  }
  std::optional<KeyValue> Key(const std::string& suffix) { return store_.Get(kPrefix + suffix); }
  bool Has(const std::string& suffix) { return Key(suffix).has_value(); }

  MemoryStore store_{1000};
  std::vector<std::unique_ptr<ScriptedObserver>> observers_;
  std::vector<std::unique_ptr<MagiMember>> members_;
  std::ostringstream log_;
};

// node-1 fails from second 1001 and is recorded offline (at 1003, its third failed probe) and
// then migrated.
TEST_F(ReadmissionTest, ANodeThatAnswersAgainIsReadmittedByTheQuorum) {
  Start(JudgePolicy{});
  TickAll(1000);
  Crash("node-1");
  TickAll(1001, 1006);
  ASSERT_TRUE(Has("decisions/node-offline/node-1")) << log_.str();
  ASSERT_TRUE(Has("decisions/migrate/node-1")) << log_.str();

  // Answering from 1006 on, its tenth answer in a row comes at 1015.
  Recover("node-1");
  TickAll(1006, 1015);
  EXPECT_TRUE(Has("decisions/node-offline/node-1")) << log_.str();
  EXPECT_FALSE(Has("proposals/readmit/node-1"));
  EXPECT_FALSE(Has("readmissions/node-1"));
  EXPECT_EQ(members_[0]->Evidence("node-1", 1014).consecutive_answers, 9);
  TickAll(1015);

  EXPECT_FALSE(Has("decisions/node-offline/node-1")) << log_.str();
  EXPECT_FALSE(Has("decisions/migrate/node-1")) << log_.str();
  EXPECT_FALSE(Has("proposals/readmit/node-1"));
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "votes/readmit/node-1/").empty());
  std::optional<KeyValue> record = Key("readmissions/node-1");
  ASSERT_TRUE(record.has_value()) << log_.str();
  const Decision d = ParseDecisionRecord(record->value);
  EXPECT_EQ(d.proposal.kind, ProposalKind::kReadmit);
  EXPECT_EQ(d.proposal.node, "node-1");
  EXPECT_EQ(d.outcome, Outcome::kPassed);
  EXPECT_EQ(d.proposal.opened_at, 1015);
  EXPECT_EQ(d.decided_at, 1015);
  // Members tick in turn: member 3's yes completes the quorum, and it records the readmission.
  EXPECT_EQ(d.yes, 3);
  EXPECT_EQ(json::parse(record->value)["recorded_by"], 3);

  // Later rounds neither readmit it again nor decide anything about it.
  TickAll(1016, 1030);
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "decisions/").empty()) << log_.str();
  EXPECT_EQ(Key("readmissions/node-1")->mod_revision, record->mod_revision);
  EXPECT_EQ(Occurrences(log_.str(), "readmitted"), 1u) << log_.str();
  EXPECT_EQ(Occurrences(log_.str(), "magi 3 (pod-c): recorded decision readmit node-1"), 1u);
  for (auto& m : members_) EXPECT_FALSE(m->Evidence("node-1", 1030).offline_decided);
}

TEST_F(ReadmissionTest, ANodeReadmittedThatFailsAgainIsRecordedOfflineAgain) {
  JudgePolicy policy;
  policy.answers_to_readmit = 3;
  Start(policy);
  Crash("node-2");
  TickAll(1000, 1005);
  ASSERT_TRUE(Has("decisions/node-offline/node-2")) << log_.str();
  const int64_t first = Key("decisions/node-offline/node-2")->create_revision;
  Recover("node-2");
  TickAll(1005, 1010);
  ASSERT_TRUE(Has("readmissions/node-2")) << log_.str();
  ASSERT_FALSE(Has("decisions/node-offline/node-2")) << log_.str();

  Crash("node-2");
  TickAll(1010, 1015);
  std::optional<KeyValue> again = Key("decisions/node-offline/node-2");
  ASSERT_TRUE(again.has_value()) << log_.str();
  EXPECT_GT(again->create_revision, first);
  EXPECT_GE(ParseDecisionRecord(again->value).proposal.opened_at, 1010);
  EXPECT_TRUE(Has("decisions/migrate/node-2")) << log_.str();
  // Every member saw each of the two decisions once.
  EXPECT_EQ(Occurrences(log_.str(), "decision on record: node-offline/node-2"), 2u * 5)
      << log_.str();

  // And it can be readmitted a second time: the record of the latest readmission stays.
  Recover("node-2");
  TickAll(1015, 1020);
  EXPECT_FALSE(Has("decisions/node-offline/node-2")) << log_.str();
  EXPECT_GE(ParseDecisionRecord(Key("readmissions/node-2")->value).decided_at, 1015);
  EXPECT_EQ(Occurrences(log_.str(), "readmitted"), 2u) << log_.str();
}

TEST_F(ReadmissionTest, WithNoAnswersRequiredOnlyAnOperatorReadmits) {
  JudgePolicy policy;
  policy.answers_to_readmit = 0;
  Start(policy);
  Crash("node-0");
  TickAll(1000, 1005);
  ASSERT_TRUE(Has("decisions/node-offline/node-0")) << log_.str();
  Recover("node-0");
  TickAll(1005, 1100);
  EXPECT_TRUE(Has("decisions/node-offline/node-0")) << log_.str();
  EXPECT_TRUE(Has("decisions/migrate/node-0")) << log_.str();
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "proposals/").empty()) << log_.str();
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "votes/").empty()) << log_.str();
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "readmissions/").empty());
  EXPECT_EQ(Occurrences(log_.str(), "readmit"), 0u) << log_.str();
}

// Only member 1 sees the node answer again: its readmit proposal draws four noes, stays short of
// the quorum, expires, and is opened again, for as long as the others see the node down.
TEST_F(ReadmissionTest, OneMemberAloneCannotReadmit) {
  Start(JudgePolicy{});
  Crash("node-3");
  TickAll(1000, 1005);
  std::optional<KeyValue> offline = Key("decisions/node-offline/node-3");
  ASSERT_TRUE(offline.has_value()) << log_.str();
  observers_[0]->unreachable.erase("node-3");
  TickAll(1005, 1020);
  ASSERT_TRUE(Has("proposals/readmit/node-3")) << log_.str();
  EXPECT_EQ(json::parse(Key("votes/readmit/node-3/1")->value)["verdict"], "yes");
  for (int id = 2; id <= 5; ++id) {
    std::optional<KeyValue> vote = Key("votes/readmit/node-3/" + std::to_string(id));
    ASSERT_TRUE(vote.has_value()) << id;
    EXPECT_EQ(json::parse(vote->value)["verdict"], "no") << vote->value;
  }

  // Past the proposal's window (120 s) it is closed and opened again.
  TickAll(1020, 1200);
  EXPECT_NE(log_.str().find("closed proposal readmit/node-3"), std::string::npos) << log_.str();
  EXPECT_EQ(Key("decisions/node-offline/node-3")->mod_revision, offline->mod_revision);
  EXPECT_TRUE(Has("decisions/migrate/node-3"));
  EXPECT_FALSE(Has("readmissions/node-3"));
  EXPECT_EQ(Occurrences(log_.str(), "readmitted"), 0u) << log_.str();
}

// Members acting at one instant all find the readmission passed; one transaction wins.
TEST_F(ReadmissionTest, MembersActingAtOneInstantReadmitOnce) {
  JudgePolicy policy;
  policy.answers_to_readmit = 2;
  Start(policy);
  Crash("node-1");
  TickAll(1000, 1005);
  ASSERT_TRUE(Has("decisions/node-offline/node-1")) << log_.str();
  Recover("node-1");
  for (int64_t t = 1005; t < 1008; ++t) {
    store_.AdvanceTo(t);
    for (auto& m : members_) m->Observe(t);
    for (auto& m : members_) m->Propose(t);
    for (auto& m : members_) m->Vote(t);
    for (auto& m : members_) m->Decide(t);
  }
  std::optional<KeyValue> record = Key("readmissions/node-1");
  ASSERT_TRUE(record.has_value()) << log_.str();
  const Decision d = ParseDecisionRecord(record->value);
  EXPECT_EQ(d.yes, 5);
  EXPECT_EQ(json::parse(record->value)["recorded_by"], 1);
  EXPECT_EQ(record->version, 1);
  EXPECT_FALSE(Has("decisions/node-offline/node-1"));
  EXPECT_EQ(Occurrences(log_.str(), "readmitted"), 1u) << log_.str();
}

// ---------------------------------------------------------------------------------------------
// The watched nodes change between rounds.

TEST_F(ReadmissionTest, ANodeAddedMidRunIsWatched) {
  Start(JudgePolicy{});
  TickAll(1000, 1003);
  // The new node sorts first: every other node moves to another index.
  SetNodesAll({"node-00", "node-0", "node-1", "node-2", "node-3"});
  Crash("node-00");
  TickAll(1003, 1008);
  ASSERT_TRUE(Has("decisions/node-offline/node-00")) << log_.str();
  EXPECT_TRUE(Has("decisions/migrate/node-00")) << log_.str();
  EXPECT_EQ(store_.GetPrefixKeys(std::string(kPrefix) + "decisions/").size(), 2u) << log_.str();
  const NodeEvidence e = members_[4]->Evidence("node-00", 1008);
  EXPECT_TRUE(e.offline_decided);
  EXPECT_EQ(e.consecutive_failures, 5);
  EXPECT_FALSE(members_[4]->Evidence("node-0", 1008).offline_decided);
  EXPECT_EQ(members_[4]->Vantage({}).nodes_probed, 5);
}

TEST_F(ReadmissionTest, ANodeRemovedMidRunIsNoLongerJudged) {
  Start(JudgePolicy{});
  Crash("node-2");
  TickAll(1000, 1002);  // two failures: not yet a yes
  SetNodesAll({"node-0", "node-1", "node-3"});
  TickAll(1002, 1010);
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "proposals/").empty()) << log_.str();
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "decisions/").empty()) << log_.str();
  EXPECT_THROW(members_[0]->Evidence("node-2", 1010), std::out_of_range);
  const VantageEvidence v = members_[0]->Vantage({});
  EXPECT_EQ(v.nodes_probed, 3);
  EXPECT_EQ(v.nodes_reachable, 3);
}

TEST_F(ReadmissionTest, EvidenceOfNodesThatStayIsKept) {
  Start(JudgePolicy{});
  TickAll(1000);
  Crash("node-3");
  TickAll(1001, 1003);  // two failures in a row
  // node-3 moves from the last index to the first; node-1 leaves, node-9 joins.
  SetNodesAll({"node-3", "node-0", "node-2", "node-9"});
  const NodeEvidence before = members_[0]->Evidence("node-3", 1003);
  EXPECT_EQ(before.consecutive_failures, 2);
  EXPECT_FALSE(before.tcp_ok || before.http_ok);
  EXPECT_EQ(members_[0]->Evidence("node-9", 1003).consecutive_failures, 0);
  // The third failure in a row, the first after the change, is already a yes.
  TickAll(1003);
  std::optional<KeyValue> record = Key("decisions/node-offline/node-3");
  ASSERT_TRUE(record.has_value()) << log_.str();
  EXPECT_EQ(ParseDecisionRecord(record->value).decided_at, 1003);
}

TEST_F(ReadmissionTest, DecisionsFollowTheirNodeWhenTheNodesMove) {
  Start(JudgePolicy{});
  Crash("node-1");
  TickAll(1000, 1005);
  ASSERT_TRUE(Has("decisions/node-offline/node-1")) << log_.str();
  // node-1 moves to index 2, and node-3 to its old index 1.
  SetNodesAll({"node-0", "node-3", "node-1", "node-2"});
  TickAll(1005, 1010);
  for (auto& m : members_) {
    EXPECT_TRUE(m->Evidence("node-1", 1010).offline_decided);
    EXPECT_FALSE(m->Evidence("node-3", 1010).offline_decided);
  }
  EXPECT_EQ(store_.GetPrefixKeys(std::string(kPrefix) + "decisions/").size(), 2u) << log_.str();
  EXPECT_TRUE(store_.GetPrefix(std::string(kPrefix) + "proposals/").empty()) << log_.str();
  // Each member logs each decision once, the change of nodes notwithstanding.
  EXPECT_EQ(Occurrences(log_.str(), "decision on record: node-offline/node-1"), 5u) << log_.str();
}

// A node joins the fleet right after a readmission (Run refreshes the nodes before a round): the
// node readmitted must be judged afresh, and recorded offline when it fails again.
// Members 1 to 3 read the store before member 3 readmitted node-1: what they hold of it must
// follow the store, not the list of nodes.
TEST_F(ReadmissionTest, ANodeReadmittedWhileTheNodesChangeIsJudgedAfresh) {
  JudgePolicy policy;
  policy.answers_to_readmit = 2;
  Start(policy);
  Crash("node-1");
  TickAll(1000, 1005);
  Recover("node-1");
  TickAll(1005, 1007);
  ASSERT_TRUE(Has("readmissions/node-1")) << log_.str();
  ASSERT_FALSE(Has("decisions/node-offline/node-1")) << log_.str();
  SetNodesAll({"node-0", "node-1", "node-2", "node-3", "node-4"});
  TickAll(1007);
  for (auto& m : members_) {
    EXPECT_FALSE(m->Evidence("node-1", 1007).offline_decided) << m->config().id;
  }

  Crash("node-1");
  TickAll(1008, 1013);
  EXPECT_TRUE(Has("decisions/node-offline/node-1")) << log_.str();
}

TEST_F(ReadmissionTest, ANodeListedTwiceIsRefusedAndTheNodesStay) {
  Start(JudgePolicy{});
  TickAll(1000);
  MagiMember& member = *members_[0];
  EXPECT_THROW(member.SetNodes(Nodes({"node-0", "node-5", "node-0"})), std::invalid_argument);
  EXPECT_EQ(member.config().nodes.size(), 4u);
  EXPECT_THROW(member.Evidence("node-5", 1000), std::out_of_range);
  Crash("node-2");
  TickAll(1001, 1005);
  EXPECT_TRUE(Has("decisions/node-offline/node-2")) << log_.str();
}

// ---------------------------------------------------------------------------------------------
// Run reading the nodes from a source.

TEST(MemberNodesSourceTest, ValidateConfigAllowsNoNodesGivenASource) {
  MemberConfig c;
  c.id = 1;
  c.pod = "pod-a";
  c.members = kMembership;
  EXPECT_THROW(ValidateConfig(c), std::invalid_argument);
  c.nodes_source = [] { return Nodes({"node-0"}); };
  EXPECT_NO_THROW(ValidateConfig(c));
  c.nodes_refresh = std::chrono::milliseconds(0);
  EXPECT_THROW(ValidateConfig(c), std::invalid_argument);
}

// The source fails once, then returns a changed fleet: the failure is logged once and the
// member goes on with the nodes it knows, then watches the new ones.
TEST(MemberNodesSourceTest, RunReadsTheNodesAgain) {
  MemoryStore store(0);
  ScriptedObserver observer;
  std::ostringstream log;
  int reads = 0;
  MemberConfig c;
  c.id = 1;
  c.pod = "pod-a";
  c.members = kMembership;
  c.probe_interval = std::chrono::milliseconds(10);
  c.nodes_refresh = std::chrono::milliseconds(10);
  c.nodes_source = [&reads] {
    ++reads;
    if (reads <= 2) throw std::runtime_error("serve is away");
    if (reads == 3) return Nodes({"node-a", "node-b"});
    return Nodes({"node-b", "node-c"});
  };
  MagiMember member(c, store, observer, log);
  const std::atomic<bool> stop = false;
  member.Run(std::chrono::milliseconds(200), stop);
  EXPECT_GE(reads, 4);
  EXPECT_EQ(Occurrences(log.str(), "serve is away; watching the nodes known so far"), 1u)
      << log.str();
  EXPECT_EQ(Occurrences(log.str(), "reading the nodes again"), 1u) << log.str();
  EXPECT_NE(log.str().find("watching 2 nodes; joined: node-a node-b"), std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("watching 2 nodes; joined: node-c; left: node-a"), std::string::npos)
      << log.str();
  // The same list read again is no change.
  EXPECT_EQ(Occurrences(log.str(), "watching 2 nodes"), 2u) << log.str();
  EXPECT_EQ(member.config().nodes.size(), 2u);
  EXPECT_EQ(member.config().nodes[1].name, "node-c");
}

}  // namespace
}  // namespace archimedes::magi
