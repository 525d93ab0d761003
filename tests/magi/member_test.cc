#include "magi/member.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <type_traits>

#include "magi/loopback.h"
#include "magi/network_observer.h"
#include "store/etcd_store.h"
#include "store/etcd_test_server.h"
#include "store/memory_store.h"

namespace archimedes::magi {
namespace {

using nlohmann::json;

const std::vector<Member> kMembership = {
    {1, "pod-a"}, {2, "pod-b"}, {3, "pod-c"}, {4, "pod-d"}, {5, "pod-e"}};
constexpr char kDecisions[] = "/archimedes/magi/decisions/";

MemberConfig Config(const Member& m, std::vector<NodeTarget> nodes) {
  MemberConfig c;
  c.id = m.id;
  c.pod = m.pod;
  c.members = kMembership;
  c.nodes = std::move(nodes);
  c.lease_ttl = 10;
  return c;
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; ++pos) ++n;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Real members: real etcd, real probes of nodes serving /healthz on loopback ports.

// A node that answers GET /healthz on a loopback port until stopped.
class HealthNode : public testing::HttpStub {
 public:
  HealthNode() : HttpStub("/healthz") {}
  NodeTarget Target(const std::string& name) const {
    return NodeTarget{name, "pod-x", address(), url() + "/healthz"};
  }
};

class MemberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_ETCD();
    etcd_ = std::make_unique<testing::EtcdTestServer>();
    store_ = std::make_unique<EtcdStore>(etcd_->endpoint());
    blocked_file_ =
        (std::filesystem::temp_directory_path() / ("magi-blocked-" + std::to_string(getpid())))
            .string();
    std::vector<NodeTarget> targets;
    for (int i = 0; i < 4; ++i) {
      nodes_.push_back(std::make_unique<HealthNode>());
      targets.push_back(nodes_.back()->Target("node-" + std::to_string(i)));
    }
    // A generous probe timeout: a healthy node must never look missed on a loaded machine (under
    // ThreadSanitizer), and a stopped one refuses the connection at once.
    for (const Member& m : kMembership) {
      observers_.push_back(std::make_unique<NetworkObserver>(
          *store_, "/archimedes/magi/", std::chrono::seconds(2), m.id == 1 ? blocked_file_ : ""));
      members_.push_back(
          std::make_unique<MagiMember>(Config(m, targets), *store_, *observers_.back(), log_));
    }
  }
  void TearDown() override { std::filesystem::remove(blocked_file_); }

  void TickAll(int64_t now) {
    for (auto& m : members_) m->Tick(now);
  }

  std::unique_ptr<testing::EtcdTestServer> etcd_;
  std::unique_ptr<EtcdStore> store_;
  std::string blocked_file_;
  std::vector<std::unique_ptr<HealthNode>> nodes_;
  std::vector<std::unique_ptr<NetworkObserver>> observers_;
  std::vector<std::unique_ptr<MagiMember>> members_;
  std::ostringstream log_;
};

TEST_F(MemberTest, OnePodsViewAloneDecidesNothing) {
  std::ofstream(blocked_file_) << "node-1\n";
  for (int64_t t = 1000; t < 1006; ++t) TickAll(t);
  EXPECT_TRUE(store_->GetPrefix(kDecisions).empty()) << log_.str();
  // Member 1 did suspect the node and said so; the others answered no.
  auto proposal = store_->Get("/archimedes/magi/proposals/node-offline/node-1");
  ASSERT_TRUE(proposal.has_value()) << log_.str();
  EXPECT_EQ(store_->GetPrefix("/archimedes/magi/votes/node-offline/node-1/").size(), 5u);
  auto vote2 = store_->Get("/archimedes/magi/votes/node-offline/node-1/2");
  EXPECT_EQ(json::parse(vote2->value)["verdict"], "no");
}

TEST_F(MemberTest, DeadNodeIsRecordedOfflineOnceThenMigrated) {
  TickAll(1000);
  nodes_[2]->Stop();
  for (int64_t t = 1001; t < 1006; ++t) TickAll(t);
  auto decision = store_->Get("/archimedes/magi/decisions/node-offline/node-2");
  ASSERT_TRUE(decision.has_value()) << log_.str();
  EXPECT_EQ(decision->version, 1);
  json record = json::parse(decision->value);
  EXPECT_EQ(record["outcome"], "passed");
  // Members tick in turn: the third yes vote, member 3's, completes the quorum and records it.
  EXPECT_EQ(record["yes"], 3);
  EXPECT_EQ(record["recorded_by"], 3);
  EXPECT_EQ(record["votes"].size(), 3u);
  EXPECT_TRUE(store_->Get("/archimedes/magi/decisions/migrate/node-2").has_value()) << log_.str();
  EXPECT_FALSE(store_->Get("/archimedes/magi/decisions/node-offline/node-1").has_value());

  // Later ticks neither rewrite the record nor leave the proposal open.
  for (int64_t t = 1006; t < 1009; ++t) TickAll(t);
  EXPECT_EQ(store_->Get("/archimedes/magi/decisions/node-offline/node-2")->mod_revision,
            decision->mod_revision);
  EXPECT_FALSE(store_->Get("/archimedes/magi/proposals/node-offline/node-2").has_value());
  EXPECT_EQ(Occurrences(log_.str(), "recorded decision node-offline node-2"), 1u) << log_.str();
}

TEST_F(MemberTest, TwoMembersCannotDecide) {
  TickAll(1000);
  nodes_[3]->Stop();
  for (int64_t t = 1001; t < 1008; ++t) {
    members_[0]->Tick(t);
    members_[1]->Tick(t);
  }
  EXPECT_FALSE(store_->Get("/archimedes/magi/decisions/node-offline/node-3").has_value())
      << log_.str();
}

TEST_F(MemberTest, HeartbeatsAreReadFromTheStore) {
  store_->Put("/archimedes/magi/heartbeats/node-0", json{{"at", 990}}.dump());
  NetworkObserver observer(*store_, "/archimedes/magi/", std::chrono::seconds(2));
  const std::vector<std::optional<int64_t>> ages =
      observer.HeartbeatAges({"node-0", "node-1"}, 1000);
  EXPECT_EQ(ages, (std::vector<std::optional<int64_t>>{10, std::nullopt}));
  EXPECT_TRUE(observer.ProbeAll({nodes_[0]->Target("node-0")}, 1000).empty());
  nodes_[0]->Stop();
  const std::vector<MissedProbe> missed = observer.ProbeAll({nodes_[0]->Target("node-0")}, 1001);
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_FALSE(missed[0].result.tcp_ok || missed[0].result.http_ok);
}

// ---------------------------------------------------------------------------------------------
// The same member code without a network: each member observes what the test scripts, over an
// in-memory store (no etcd needed) and, where etcd is installed, over a real one.

// What the test says a member sees: the nodes it cannot reach and each node's heartbeat age.
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
    std::vector<std::optional<int64_t>> ages;
    ages.reserve(nodes.size());
    for (const std::string& n : nodes) {
      auto it = heartbeat_age.find(n);
      ages.push_back(it == heartbeat_age.end() ? std::nullopt : std::optional(it->second));
    }
    return ages;
  }

  std::set<std::string> unreachable;
  std::map<std::string, int64_t> heartbeat_age;
};

// A member's link to a store that the test can cut.
class CuttableStore : public KvStore {
 public:
  explicit CuttableStore(KvStore& store) : store_(store) {}
  bool cut = false;

  const std::string& name() const override { return store_.name(); }
  int64_t Put(const std::string& k, const std::string& v, int64_t lease = 0) override {
    return Link().Put(k, v, lease);
  }
  std::optional<KeyValue> Get(const std::string& k) override { return Link().Get(k); }
  std::vector<KeyValue> GetPrefix(const std::string& p) override { return Link().GetPrefix(p); }
  std::vector<KeyValue> GetPrefixKeys(const std::string& p) override {
    return Link().GetPrefixKeys(p);
  }
  std::vector<KeyValue> GetRange(const std::string& from, const std::string& end,
                                 int64_t limit) override {
    return Link().GetRange(from, end, limit);
  }
  int64_t Delete(const std::string& k) override { return Link().Delete(k); }
  int64_t DeletePrefix(const std::string& p) override { return Link().DeletePrefix(p); }
  CreateResult CreateIfAbsent(const std::string& k, const std::string& v,
                              int64_t lease = 0) override {
    return Link().CreateIfAbsent(k, v, lease);
  }
  TxnResult Txn(const std::vector<Compare>& c, const std::vector<TxnOp>& s,
                const std::vector<TxnOp>& f) override {
    return Link().Txn(c, s, f);
  }
  int64_t GrantLease(int64_t ttl) override { return Link().GrantLease(ttl); }
  int64_t KeepAlive(int64_t lease) override { return Link().KeepAlive(lease); }
  void RevokeLease(int64_t lease) override { Link().RevokeLease(lease); }

 private:
  KvStore& Link() {
    if (cut) throw StoreError(store_.name() + ": cut by the test");
    return store_;
  }
  KvStore& store_;
};

template <typename Store>
class ScriptedMembersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if constexpr (std::is_same_v<Store, EtcdStore>) {
      ARCHIMEDES_REQUIRE_ETCD();
      etcd_ = std::make_unique<testing::EtcdTestServer>();
      store_ = std::make_unique<EtcdStore>(etcd_->endpoint());
    } else {
      store_ = std::make_unique<MemoryStore>(1000);
    }
    std::vector<NodeTarget> nodes;
    nodes.reserve(4);
    for (int i = 0; i < 4; ++i) nodes.push_back({"node-" + std::to_string(i), "pod-x", "", ""});
    for (const Member& m : kMembership) {
      observers_.push_back(std::make_unique<ScriptedObserver>());
      links_.push_back(std::make_unique<CuttableStore>(*store_));
      members_.push_back(
          std::make_unique<MagiMember>(Config(m, nodes), *links_.back(), *observers_.back(), log_));
    }
  }

  // The node stops answering anyone and its heartbeat goes stale.
  void Crash(const std::string& node) {
    for (auto& o : observers_) {
      o->unreachable.insert(node);
      o->heartbeat_age[node] = 60;
    }
  }
  void Recover(const std::string& node) {
    for (auto& o : observers_) {
      o->unreachable.erase(node);
      o->heartbeat_age[node] = 0;
    }
  }
  void TickAll(int64_t now) {
    if constexpr (std::is_same_v<Store, MemoryStore>) {
      static_cast<MemoryStore&>(*store_).AdvanceTo(now);
    }
    for (auto& m : members_) m->Tick(now);
  }
  std::optional<json> Record(const std::string& kind, const std::string& node) {
    std::optional<KeyValue> kv = store_->Get(std::string(kDecisions) + kind + "/" + node);
    if (!kv) return std::nullopt;
    return json::parse(kv->value);
  }

  std::unique_ptr<testing::EtcdTestServer> etcd_;
  std::unique_ptr<KvStore> store_;
  std::vector<std::unique_ptr<ScriptedObserver>> observers_;
  std::vector<std::unique_ptr<CuttableStore>> links_;
  std::vector<std::unique_ptr<MagiMember>> members_;
  std::ostringstream log_;
};

using Stores = ::testing::Types<MemoryStore, EtcdStore>;
TYPED_TEST_SUITE(ScriptedMembersTest, Stores);

TYPED_TEST(ScriptedMembersTest, OnePodsViewAloneDecidesNothing) {
  this->observers_[0]->unreachable.insert("node-1");
  this->observers_[0]->heartbeat_age["node-1"] = 60;
  for (int64_t t = 1000; t < 1006; ++t) this->TickAll(t);
  EXPECT_TRUE(this->store_->GetPrefix(kDecisions).empty()) << this->log_.str();
  ASSERT_TRUE(this->store_->Get("/archimedes/magi/proposals/node-offline/node-1").has_value());
  auto vote2 = this->store_->Get("/archimedes/magi/votes/node-offline/node-1/2");
  ASSERT_TRUE(vote2.has_value());
  EXPECT_EQ(json::parse(vote2->value)["verdict"], "no");
}

TYPED_TEST(ScriptedMembersTest, DeadNodeIsRecordedOfflineOnceThenMigrated) {
  this->TickAll(1000);
  this->Crash("node-2");
  for (int64_t t = 1001; t < 1006; ++t) this->TickAll(t);
  std::optional<json> record = this->Record("node-offline", "node-2");
  ASSERT_TRUE(record.has_value()) << this->log_.str();
  EXPECT_EQ((*record)["outcome"], "passed");
  EXPECT_EQ((*record)["yes"], 3);
  EXPECT_EQ((*record)["recorded_by"], 3);
  EXPECT_TRUE(this->Record("migrate", "node-2").has_value()) << this->log_.str();
  EXPECT_FALSE(this->Record("node-offline", "node-1").has_value());
  for (int64_t t = 1006; t < 1009; ++t) this->TickAll(t);
  EXPECT_EQ(this->store_->Get(std::string(kDecisions) + "node-offline/node-2")->version, 1);
  EXPECT_FALSE(this->store_->Get("/archimedes/magi/proposals/node-offline/node-2").has_value());
  EXPECT_EQ(Occurrences(this->log_.str(), "recorded decision node-offline node-2"), 1u);
}

TYPED_TEST(ScriptedMembersTest, AFreshHeartbeatMeansThePathIsBrokenNotTheNode) {
  for (auto& o : this->observers_) {
    o->unreachable.insert("node-0");
    o->heartbeat_age["node-0"] = 5;
  }
  for (int64_t t = 1000; t < 1010; ++t) this->TickAll(t);
  EXPECT_TRUE(this->store_->GetPrefix(kDecisions).empty()) << this->log_.str();
  MagiMember& member = *this->members_[0];
  const Judgement j = Judge(ProposalKind::kNodeOffline, member.Evidence("node-0", 1010),
                            member.Vantage({}), member.config().policy);
  EXPECT_EQ(j.verdict, Verdict::kNo);
  EXPECT_NE(j.reason.find("the path is broken, not the node"), std::string::npos) << j.reason;
}

TYPED_TEST(ScriptedMembersTest, TwoMembersCannotDecide) {
  this->TickAll(1000);
  this->Crash("node-3");
  for (int64_t t = 1001; t < 1008; ++t) {
    this->members_[0]->Tick(t);
    this->members_[1]->Tick(t);
  }
  EXPECT_FALSE(this->Record("node-offline", "node-3").has_value()) << this->log_.str();
}

TYPED_TEST(ScriptedMembersTest, ANodeReadmittedByAnOperatorIsDecidedAfresh) {
  this->Crash("node-1");
  for (int64_t t = 1000; t < 1005; ++t) this->TickAll(t);
  ASSERT_TRUE(this->Record("node-offline", "node-1").has_value()) << this->log_.str();
  this->Recover("node-1");
  this->store_->DeletePrefix(kDecisions);  // the operator readmits the repaired node
  for (int64_t t = 1005; t < 1010; ++t) this->TickAll(t);
  EXPECT_FALSE(this->Record("node-offline", "node-1").has_value()) << this->log_.str();

  this->Crash("node-1");
  for (int64_t t = 1010; t < 1015; ++t) this->TickAll(t);
  std::optional<json> again = this->Record("node-offline", "node-1");
  ASSERT_TRUE(again.has_value()) << this->log_.str();
  EXPECT_GE((*again)["opened_at"].get<int64_t>(), 1010);
  EXPECT_EQ(Occurrences(this->log_.str(), "decision on record: node-offline/node-1"), 2u * 5)
      << this->log_.str();
  for (int64_t t = 1015; t < 1017; ++t) this->TickAll(t);
  EXPECT_FALSE(this->store_->Get("/archimedes/magi/proposals/node-offline/node-1").has_value());
}

// Time-driven behaviour, on the in-memory store whose clock the test holds.
using LockstepMembersTest = ScriptedMembersTest<MemoryStore>;

TEST_F(LockstepMembersTest, MembersActingAtOneInstantRecordEveryVote) {
  Crash("node-2");
  for (int64_t t = 1000; t < 1003; ++t) {
    static_cast<MemoryStore&>(*store_).AdvanceTo(t);
    for (auto& m : members_) m->Observe(t);
    for (auto& m : members_) m->Propose(t);
    for (auto& m : members_) m->Vote(t);
    for (auto& m : members_) m->Decide(t);
  }
  std::optional<json> record = Record("node-offline", "node-2");
  ASSERT_TRUE(record.has_value()) << log_.str();
  // Every member voted before any decided: the first to decide records all five votes.
  EXPECT_EQ((*record)["yes"], 5);
  EXPECT_EQ((*record)["recorded_by"], 1);
  EXPECT_EQ((*record)["opened_by"], 1);
  EXPECT_EQ((*record)["decided_at"], 1002);
  const Decision d =
      ParseDecisionRecord(store_->Get(std::string(kDecisions) + "node-offline/node-2")->value);
  EXPECT_EQ(d.yes, 5);
  EXPECT_EQ(d.votes.size(), 5u);
  EXPECT_EQ(DecisionRecord(d, 1),
            store_->Get(std::string(kDecisions) + "node-offline/node-2")->value);
}

TEST_F(LockstepMembersTest, AMemberCutOffFromTheStoreStopsVotingAndItsVotesExpire) {
  observers_[0]->unreachable.insert("node-0");
  observers_[0]->heartbeat_age["node-0"] = 60;
  for (int64_t t = 1000; t < 1005; ++t) TickAll(t);
  ASSERT_TRUE(store_->Get("/archimedes/magi/votes/node-offline/node-0/1").has_value());
  links_[0]->cut = true;
  TickAll(1005);
  EXPECT_NE(log_.str().find("cannot use the store, not voting"), std::string::npos);
  EXPECT_EQ(members_[0]->Vantage({}).peers_alive, 0);
  // Its heartbeat and vote live until its lease (10 s) runs out.
  TickAll(1013);
  EXPECT_TRUE(store_->Get("/archimedes/magi/members/1").has_value());
  TickAll(1014);
  EXPECT_FALSE(store_->Get("/archimedes/magi/members/1").has_value());
  EXPECT_FALSE(store_->Get("/archimedes/magi/votes/node-offline/node-0/1").has_value());
  EXPECT_EQ(members_[1]->Vantage({}).peers_alive, 3);
  // Back on the store, it takes a new lease and votes again.
  links_[0]->cut = false;
  TickAll(1015);
  EXPECT_NE(log_.str().find("reachable again"), std::string::npos);
  EXPECT_TRUE(store_->Get("/archimedes/magi/votes/node-offline/node-0/1").has_value());
}

TEST_F(LockstepMembersTest, EvidenceAndVantageForAReview) {
  Crash("node-3");
  for (int64_t t = 1000; t < 1004; ++t) TickAll(t);
  NodeEvidence e = members_[1]->Evidence("node-3", 1004);
  EXPECT_EQ(e.probes, 4);
  EXPECT_EQ(e.consecutive_failures, 4);
  EXPECT_FALSE(e.tcp_ok || e.http_ok);
  EXPECT_EQ(e.heartbeat_age, 60);
  EXPECT_TRUE(e.offline_decided);
  // The member leaves out what it holds offline, a reviewer what it is told to.
  const VantageEvidence without = members_[1]->Vantage({"node-3"});
  EXPECT_EQ(without.nodes_probed, 3);
  EXPECT_EQ(without.nodes_reachable, 3);
  const VantageEvidence with_all = members_[1]->Vantage({});
  EXPECT_EQ(with_all.nodes_probed, 4);
  EXPECT_EQ(with_all.nodes_reachable, 3);
  EXPECT_EQ(with_all.peers_alive, 4);
  EXPECT_THROW(members_[1]->Evidence("node-9", 1004), std::out_of_range);
}

TEST(DecisionRecordTest, MalformedRecordsAreRefused) {
  EXPECT_THROW(ParseDecisionRecord("not json"), std::invalid_argument);
  EXPECT_THROW(ParseDecisionRecord(R"({"kind": "node-offline"})"), std::invalid_argument);
}

TEST(MemberConfigTest, RejectsInconsistentConfigs) {
  MemberConfig c;
  c.id = 1;
  c.pod = "pod-a";
  c.members = ParseMembers("1=pod-a,2=pod-b,3=pod-c");
  c.nodes = {NodeTarget{"n", "", "127.0.0.1:1", ""}};
  EXPECT_NO_THROW(ValidateConfig(c));
  c.pod = "pod-b";
  EXPECT_THROW(ValidateConfig(c), std::invalid_argument);
  c.pod = "pod-a";
  c.id = 9;
  EXPECT_THROW(ValidateConfig(c), std::invalid_argument);
  EXPECT_THROW(ParseMembers("1=pod-a,x=pod-b"), std::invalid_argument);
  EXPECT_THROW(ParseMembers("1=pod-a,"), std::invalid_argument);
}

}  // namespace
}  // namespace archimedes::magi
