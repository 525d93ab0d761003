#include "magi/quorum.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace archimedes::magi {
namespace {

const std::vector<Member> kFiveMembers = {
    {1, "pod-a"}, {2, "pod-b"}, {3, "pod-c"}, {4, "pod-d"}, {5, "pod-e"}};

Proposal OfflineProposal(int64_t opened_at = 100) {
  return Proposal{ProposalKind::kNodeOffline, "node-7", opened_at, 1};
}

Vote Yes(int member, int64_t at = 110) { return {member, Verdict::kYes, "probes failed", at}; }
Vote No(int member, int64_t at = 110) { return {member, Verdict::kNo, "node answers", at}; }
Vote Abstain(int member, int64_t at = 110) { return {member, Verdict::kAbstain, "isolated", at}; }

TEST(DecideTest, ThreeYesFromDistinctPodsPasses) {
  Decision d =
      Decide(OfflineProposal(), {Yes(1), Yes(2), Yes(3), No(4)}, kFiveMembers, QuorumRule{}, 115);
  EXPECT_EQ(d.outcome, Outcome::kPassed);
  EXPECT_EQ(d.decided_at, 115);
  EXPECT_EQ(d.yes, 3);
  EXPECT_EQ(d.no, 1);
  EXPECT_EQ(d.yes_pods, (std::vector<std::string>{"pod-a", "pod-b", "pod-c"}));
}

TEST(DecideTest, TwoYesStayPending) {
  Decision d = Decide(OfflineProposal(), {Yes(1), Yes(2)}, kFiveMembers, QuorumRule{}, 115);
  EXPECT_EQ(d.outcome, Outcome::kPending);
  EXPECT_EQ(d.decided_at, 0);
}

TEST(DecideTest, YesVotesFromOnePodDoNotPass) {
  const std::vector<Member> members = {
      {1, "pod-a"}, {2, "pod-a"}, {3, "pod-a"}, {4, "pod-b"}, {5, "pod-c"}};
  Decision d = Decide(OfflineProposal(), {Yes(1), Yes(2), Yes(3)}, members, QuorumRule{}, 115);
  EXPECT_EQ(d.outcome, Outcome::kPending);
  EXPECT_EQ(d.yes, 3);
  EXPECT_EQ(d.yes_pods, (std::vector<std::string>{"pod-a"}));

  d = Decide(OfflineProposal(), {Yes(1), Yes(2), Yes(4)}, members, QuorumRule{}, 115);
  EXPECT_EQ(d.outcome, Outcome::kPassed);
}

TEST(DecideTest, PodComesFromMembershipNotFromTheVoter) {
  const std::vector<Member> members = {{1, "pod-a"}, {2, "pod-a"}, {3, "pod-a"}, {4, "pod-b"}};
  Decision d = Decide(OfflineProposal(), {Yes(1), Yes(2), Yes(3)}, members, QuorumRule{}, 115);
  ASSERT_EQ(d.votes.size(), 3u);
  for (const CountedVote& v : d.votes) EXPECT_EQ(v.pod, "pod-a");
  EXPECT_EQ(d.outcome, Outcome::kPending);
}

TEST(DecideTest, VotesOutsideTheWindowDoNotCount) {
  QuorumRule rule;
  rule.window = 60;
  rule.vote_ttl = 1000;
  // Opened at 100: the window is [100, 160].
  Decision d =
      Decide(OfflineProposal(100), {Yes(1, 90), Yes(2, 120), Yes(3, 170)}, kFiveMembers, rule, 150);
  EXPECT_EQ(d.yes, 1);
  EXPECT_EQ(d.outcome, Outcome::kPending);
  EXPECT_EQ(d.votes[0].ignored_because, "cast before the proposal opened");
  EXPECT_EQ(d.votes[2].ignored_because, "cast after the voting window closed");
}

TEST(DecideTest, WindowClosedUndecidedExpires) {
  QuorumRule rule;
  rule.window = 60;
  Decision d = Decide(OfflineProposal(100), {Yes(1, 150), Yes(2, 155)}, kFiveMembers, rule, 161);
  EXPECT_EQ(d.outcome, Outcome::kExpired);
}

TEST(DecideTest, QuorumInsideTheWindowStillPassesAfterItCloses) {
  QuorumRule rule;
  rule.window = 60;
  Decision d = Decide(OfflineProposal(100), {Yes(1, 150), Yes(2, 155), Yes(3, 158)}, kFiveMembers,
                      rule, 165);
  EXPECT_EQ(d.outcome, Outcome::kPassed);
}

TEST(DecideTest, ExpiredVotesOfDeadMembersDoNotCount) {
  QuorumRule rule;
  rule.vote_ttl = 10;
  Decision d = Decide(OfflineProposal(100), {Yes(1, 101), Yes(2, 112), Yes(3, 113)}, kFiveMembers,
                      rule, 115);
  EXPECT_EQ(d.yes, 2);
  EXPECT_EQ(d.outcome, Outcome::kPending);
  EXPECT_EQ(d.votes[0].ignored_because, "expired (14s old)");
}

TEST(DecideTest, LatestVoteOfAMemberStands) {
  Decision d = Decide(OfflineProposal(), {Yes(1, 105), No(1, 112), Yes(2), Yes(3)}, kFiveMembers,
                      QuorumRule{}, 115);
  EXPECT_EQ(d.yes, 2);
  EXPECT_EQ(d.no, 1);
  EXPECT_EQ(d.outcome, Outcome::kPending);
  EXPECT_EQ(d.votes[0].ignored_because, "superseded by a later vote");
}

TEST(DecideTest, StrangersAreIgnored) {
  Decision d = Decide(OfflineProposal(), {Yes(1), Yes(2), Yes(9)}, kFiveMembers, QuorumRule{}, 115);
  EXPECT_EQ(d.yes, 2);
  EXPECT_EQ(d.votes.back().ignored_because, "not a member");
}

TEST(DecideTest, AbstentionsNeverMakeAQuorum) {
  Decision d = Decide(OfflineProposal(), {Yes(1), Yes(2), Abstain(3), Abstain(4), Abstain(5)},
                      kFiveMembers, QuorumRule{}, 115);
  EXPECT_EQ(d.abstain, 3);
  EXPECT_EQ(d.outcome, Outcome::kPending);
}

TEST(DecideTest, ThreeNoVotesRejectOutOfFive) {
  Decision d =
      Decide(OfflineProposal(), {Yes(1), Yes(2), No(3), No(4)}, kFiveMembers, QuorumRule{}, 115);
  EXPECT_EQ(d.outcome, Outcome::kPending);
  d = Decide(OfflineProposal(), {Yes(1), No(3), No(4), No(5)}, kFiveMembers, QuorumRule{}, 115);
  EXPECT_EQ(d.outcome, Outcome::kRejected);
}

TEST(DecideTest, RecordSaysWhoVotedWhatAndWhy) {
  Decision d =
      Decide(OfflineProposal(), {Yes(3), No(1), Yes(2), Yes(4)}, kFiveMembers, QuorumRule{}, 115);
  ASSERT_EQ(d.votes.size(), 4u);
  EXPECT_EQ(d.votes[0].member, 1);
  EXPECT_EQ(d.votes[0].verdict, Verdict::kNo);
  EXPECT_EQ(d.votes[0].reason, "node answers");
  EXPECT_TRUE(d.votes[0].counted);
  const std::string text = Describe(d);
  EXPECT_NE(text.find("node-offline node-7: passed: 3 yes from 3 PODs"), std::string::npos) << text;
  EXPECT_NE(text.find("member 1 (pod-a): no at 110 - node answers"), std::string::npos) << text;
  EXPECT_NE(text.find("member 4 (pod-d): yes at 110 - probes failed"), std::string::npos) << text;
}

TEST(ValidateRuleTest, RejectsRulesTheMembershipCannotMeet) {
  QuorumRule rule;
  EXPECT_NO_THROW(ValidateRule(kFiveMembers, rule));
  rule.min_yes = 6;
  EXPECT_THROW(ValidateRule(kFiveMembers, rule), std::invalid_argument);
  rule = QuorumRule{};
  rule.min_pods = 3;
  EXPECT_THROW(ValidateRule({{1, "a"}, {2, "a"}, {3, "b"}}, rule), std::invalid_argument);
  EXPECT_THROW(ValidateRule({{1, "a"}, {1, "b"}, {3, "c"}}, QuorumRule{}), std::invalid_argument);
  rule = QuorumRule{};
  rule.window = 0;
  EXPECT_THROW(ValidateRule(kFiveMembers, rule), std::invalid_argument);
}

NodeEvidence DownNode(int failures = 3) {
  NodeEvidence e;
  e.node = "node-7";
  e.probes = 10;
  e.consecutive_failures = failures;
  e.last_error = "connect: timed out";
  return e;
}

VantageEvidence GoodVantage() { return VantageEvidence{4, 4, 9, 10}; }

TEST(JudgeTest, RepeatedFailedProbesVoteYes) {
  Judgement j = Judge(ProposalKind::kNodeOffline, DownNode(), GoodVantage(), JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kYes);
  EXPECT_EQ(j.reason, "3 probes failed in a row: connect: timed out");
}

TEST(JudgeTest, TooFewFailuresAbstain) {
  Judgement j = Judge(ProposalKind::kNodeOffline, DownNode(2), GoodVantage(), JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kAbstain);
}

TEST(JudgeTest, NoDataAbstains) {
  NodeEvidence e;
  e.node = "node-7";
  EXPECT_EQ(Judge(ProposalKind::kNodeOffline, e, GoodVantage(), JudgePolicy{}).verdict,
            Verdict::kAbstain);
}

TEST(JudgeTest, AnsweringNodeVotesNo) {
  NodeEvidence e = DownNode(0);
  e.tcp_ok = true;
  Judgement j = Judge(ProposalKind::kNodeOffline, e, GoodVantage(), JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kNo);
  EXPECT_EQ(j.reason, "node answers: tcp ok, http failed");
}

TEST(JudgeTest, FreshHeartbeatOverridesABrokenPath) {
  NodeEvidence e = DownNode();
  e.heartbeat_age = 5;
  EXPECT_EQ(Judge(ProposalKind::kNodeOffline, e, GoodVantage(), JudgePolicy{}).verdict,
            Verdict::kNo);
  e.heartbeat_age = 45;
  Judgement j = Judge(ProposalKind::kNodeOffline, e, GoodVantage(), JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kYes);
  EXPECT_EQ(j.reason, "3 probes failed in a row: connect: timed out; heartbeat 45s old");
}

TEST(JudgeTest, MemberThatReachesFewNodesAbstains) {
  Judgement j =
      Judge(ProposalKind::kNodeOffline, DownNode(), VantageEvidence{4, 4, 2, 10}, JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kAbstain);
  EXPECT_EQ(j.reason, "isolated: reaches only 2 of 10 nodes");
}

TEST(JudgeTest, MemberThatSeesFewPeersAbstains) {
  Judgement j =
      Judge(ProposalKind::kNodeOffline, DownNode(), VantageEvidence{1, 4, 9, 10}, JudgePolicy{});
  EXPECT_EQ(j.verdict, Verdict::kAbstain);
  EXPECT_EQ(j.reason, "isolated: sees only 1 of 4 other members");
  // Half the peers is not isolation: two members may be down for maintenance.
  EXPECT_EQ(
      Judge(ProposalKind::kNodeOffline, DownNode(), VantageEvidence{2, 4, 9, 10}, JudgePolicy{})
          .verdict,
      Verdict::kYes);
}

TEST(JudgeTest, MigrateNeedsTheOfflineDecisionFirst) {
  NodeEvidence e = DownNode();
  EXPECT_EQ(Judge(ProposalKind::kMigrate, e, GoodVantage(), JudgePolicy{}).verdict, Verdict::kNo);
  e.offline_decided = true;
  EXPECT_EQ(Judge(ProposalKind::kMigrate, e, GoodVantage(), JudgePolicy{}).verdict, Verdict::kYes);
}

TEST(NamesTest, RoundTrip) {
  for (ProposalKind k : {ProposalKind::kNodeOffline, ProposalKind::kMigrate}) {
    EXPECT_EQ(ParseProposalKind(ProposalKindName(k)), k);
  }
  for (Verdict v : {Verdict::kYes, Verdict::kNo, Verdict::kAbstain}) {
    EXPECT_EQ(ParseVerdict(VerdictName(v)), v);
  }
  EXPECT_FALSE(ParseProposalKind("reboot"));
  EXPECT_FALSE(ParseVerdict("maybe"));
}

}  // namespace
}  // namespace archimedes::magi
