#include "sim/fault_review.h"

namespace archimedes {

MigrationReview ReviewMigration(const MigrationRequest& request,
                                const std::vector<MemberView>& views, const magi::QuorumRule& rule,
                                const magi::JudgePolicy& policy) {
  MigrationReview review;
  if (request.reason == MigrationReason::kSlaContention) {
    review.approved = true;
    review.explanation =
        "SLA migration off " + request.node + ": makes no liveness claim, approved without a vote";
    return review;
  }
  std::vector<magi::Member> members;
  std::vector<magi::Vote> votes;
  members.reserve(views.size());
  votes.reserve(views.size());
  for (const MemberView& v : views) {
    members.push_back(v.member);
    magi::Judgement j = magi::Judge(magi::ProposalKind::kNodeOffline, v.node, v.vantage, policy);
    votes.push_back({v.member.id, j.verdict, std::move(j.reason), request.at});
  }
  magi::ValidateRule(members, rule);
  // Opened by the requester, who is not a member (id 0).
  const magi::Proposal proposal{magi::ProposalKind::kMigrate, request.node, request.at, 0};
  review.decision = magi::Decide(proposal, votes, members, rule, request.at);
  review.approved = review.decision.outcome == magi::Outcome::kPassed;
  review.explanation =
      "migration off " + request.node + " (node unreachable): " + review.decision.explanation;
  return review;
}

}  // namespace archimedes
