#include "magi/quorum.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace archimedes::magi {

std::string_view ProposalKindName(ProposalKind kind) {
  switch (kind) {
    case ProposalKind::kNodeOffline:
      return "node-offline";
    case ProposalKind::kMigrate:
      return "migrate";
    case ProposalKind::kReadmit:
      return "readmit";
  }
  return "unknown";
}

std::optional<ProposalKind> ParseProposalKind(std::string_view name) {
  if (name == "node-offline") return ProposalKind::kNodeOffline;
  if (name == "migrate") return ProposalKind::kMigrate;
  if (name == "readmit") return ProposalKind::kReadmit;
  return std::nullopt;
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kYes:
      return "yes";
    case Verdict::kNo:
      return "no";
    case Verdict::kAbstain:
      return "abstain";
  }
  return "unknown";
}

std::optional<Verdict> ParseVerdict(std::string_view name) {
  if (name == "yes") return Verdict::kYes;
  if (name == "no") return Verdict::kNo;
  if (name == "abstain") return Verdict::kAbstain;
  return std::nullopt;
}

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPending:
      return "pending";
    case Outcome::kPassed:
      return "passed";
    case Outcome::kRejected:
      return "rejected";
    case Outcome::kExpired:
      return "expired";
  }
  return "unknown";
}

bool IsIsolated(const VantageEvidence& vantage, const JudgePolicy& policy, std::string* why) {
  if (vantage.nodes_probed > 0 &&
      vantage.nodes_reachable < policy.min_reachable_node_share * vantage.nodes_probed) {
    *why = "isolated: reaches only " + std::to_string(vantage.nodes_reachable) + " of " +
           std::to_string(vantage.nodes_probed) + " nodes";
    return true;
  }
  // Strictly fewer than half: with 4 peers, seeing 2 is a tie, not isolation.
  if (policy.require_peer_majority && vantage.peers_total > 0 &&
      2 * vantage.peers_alive < vantage.peers_total) {
    *why = "isolated: sees only " + std::to_string(vantage.peers_alive) + " of " +
           std::to_string(vantage.peers_total) + " other members";
    return true;
  }
  return false;
}

namespace {

Judgement JudgeReadmission(const NodeEvidence& node, const JudgePolicy& policy) {
  if (!node.tcp_ok && !node.http_ok) {
    return {Verdict::kNo, "node still unreachable: " + node.last_error};
  }
  if (policy.answers_to_readmit <= 0) {
    return {Verdict::kAbstain, "readmission is an operator's act here"};
  }
  const std::string answered = std::to_string(node.consecutive_answers) + " of " +
                               std::to_string(policy.answers_to_readmit) +
                               " probes answered in a row";
  if (node.consecutive_answers < policy.answers_to_readmit) {
    return {Verdict::kAbstain, answered + " so far"};
  }
  return {Verdict::kYes, "node answers again: " + answered};
}

}  // namespace

Judgement Judge(ProposalKind kind, const NodeEvidence& node, const VantageEvidence& vantage,
                const JudgePolicy& policy) {
  std::string isolated_why;
  if (IsIsolated(vantage, policy, &isolated_why)) return {Verdict::kAbstain, isolated_why};
  if (kind != ProposalKind::kNodeOffline && !node.offline_decided) {
    return {Verdict::kNo, "node is not recorded offline"};
  }
  if (node.probes == 0) return {Verdict::kAbstain, "no probe of the node yet"};
  if (kind == ProposalKind::kReadmit) return JudgeReadmission(node, policy);
  if (node.tcp_ok || node.http_ok) {
    return {Verdict::kNo, std::string("node answers: tcp ") + (node.tcp_ok ? "ok" : "failed") +
                              ", http " + (node.http_ok ? "ok" : "failed")};
  }
  if (node.consecutive_failures < policy.failures_to_suspect) {
    return {Verdict::kAbstain, std::to_string(node.consecutive_failures) + " of " +
                                   std::to_string(policy.failures_to_suspect) +
                                   " failed probes so far: " + node.last_error};
  }
  if (node.heartbeat_age && *node.heartbeat_age < policy.heartbeat_grace) {
    return {Verdict::kNo, "unreachable from here but heartbeat is " +
                              std::to_string(*node.heartbeat_age) +
                              "s old: the path is broken, not the node"};
  }
  std::string reason =
      std::to_string(node.consecutive_failures) + " probes failed in a row: " + node.last_error;
  if (node.heartbeat_age) reason += "; heartbeat " + std::to_string(*node.heartbeat_age) + "s old";
  return {Verdict::kYes, reason};
}

void ValidateRule(const std::vector<Member>& members, const QuorumRule& rule) {
  std::set<int> ids;
  std::set<std::string> pods;
  for (const Member& m : members) {
    if (!ids.insert(m.id).second) {
      throw std::invalid_argument("membership lists member " + std::to_string(m.id) + " twice");
    }
    if (m.pod.empty()) {
      throw std::invalid_argument("member " + std::to_string(m.id) + " has no POD");
    }
    pods.insert(m.pod);
  }
  if (rule.min_yes < 1 || rule.min_yes > static_cast<int>(members.size())) {
    throw std::invalid_argument("quorum of " + std::to_string(rule.min_yes) +
                                " yes votes cannot be met by " + std::to_string(members.size()) +
                                " members");
  }
  if (rule.min_pods < 1 || rule.min_pods > static_cast<int>(pods.size())) {
    throw std::invalid_argument("quorum needs yes votes from " + std::to_string(rule.min_pods) +
                                " PODs but the members span " + std::to_string(pods.size()));
  }
  if (rule.window <= 0 || rule.vote_ttl <= 0) {
    throw std::invalid_argument("voting window and vote TTL must be positive");
  }
}

Decision Decide(const Proposal& proposal, const std::vector<Vote>& votes,
                const std::vector<Member>& members, const QuorumRule& rule, int64_t now) {
  Decision d;
  d.proposal = proposal;
  std::map<int, std::string> pod_of;
  for (const Member& m : members) pod_of[m.id] = m.pod;

  // The latest vote of each member stands; earlier ones are superseded.
  std::map<int, const Vote*> latest;
  for (const Vote& v : votes) {
    auto [it, inserted] = latest.try_emplace(v.member, &v);
    if (!inserted && v.cast_at >= it->second->cast_at) it->second = &v;
  }

  const int64_t window_end = proposal.opened_at + rule.window;
  std::set<std::string> yes_pods;
  std::set<int> voted_no;
  for (const Vote& v : votes) {
    CountedVote c{v.member, "", v.verdict, v.reason, v.cast_at, false, ""};
    auto pod = pod_of.find(v.member);
    if (pod == pod_of.end()) {
      c.ignored_because = "not a member";
    } else if (latest[v.member] != &v) {
      c.pod = pod->second;
      c.ignored_because = "superseded by a later vote";
    } else {
      c.pod = pod->second;
      if (v.cast_at < proposal.opened_at) {
        c.ignored_because = "cast before the proposal opened";
      } else if (v.cast_at > window_end) {
        c.ignored_because = "cast after the voting window closed";
      } else if (now - v.cast_at > rule.vote_ttl) {
        c.ignored_because = "expired (" + std::to_string(now - v.cast_at) + "s old)";
      } else {
        c.counted = true;
      }
    }
    if (c.counted) {
      switch (v.verdict) {
        case Verdict::kYes:
          ++d.yes;
          yes_pods.insert(c.pod);
          break;
        case Verdict::kNo:
          ++d.no;
          voted_no.insert(v.member);
          break;
        case Verdict::kAbstain:
          ++d.abstain;
          break;
      }
    }
    d.votes.push_back(std::move(c));
  }
  std::stable_sort(d.votes.begin(), d.votes.end(),
                   [](const CountedVote& a, const CountedVote& b) { return a.member < b.member; });
  d.yes_pods.assign(yes_pods.begin(), yes_pods.end());

  // Could the members that have not voted no still make the quorum?
  int could_say_yes = 0;
  std::set<std::string> could_say_yes_pods;
  for (const Member& m : members) {
    if (voted_no.count(m.id)) continue;
    ++could_say_yes;
    could_say_yes_pods.insert(m.pod);
  }

  const std::string need = "need " + std::to_string(rule.min_yes) + " yes from " +
                           std::to_string(rule.min_pods) + " PODs";
  const std::string have = std::to_string(d.yes) + " yes from " + std::to_string(yes_pods.size()) +
                           " PODs, " + std::to_string(d.no) + " no, " + std::to_string(d.abstain) +
                           " abstain";
  if (d.yes >= rule.min_yes && static_cast<int>(yes_pods.size()) >= rule.min_pods) {
    d.outcome = Outcome::kPassed;
    d.decided_at = now;
    d.explanation = "passed: " + have + " (" + need + ")";
  } else if (now > window_end) {
    d.outcome = Outcome::kExpired;
    d.explanation = "expired: window closed at " + std::to_string(window_end) + " with " + have +
                    " (" + need + ")";
  } else if (could_say_yes < rule.min_yes ||
             static_cast<int>(could_say_yes_pods.size()) < rule.min_pods) {
    d.outcome = Outcome::kRejected;
    d.explanation = "rejected: " + have + "; too many no votes to " + need;
  } else {
    d.outcome = Outcome::kPending;
    d.explanation = "pending: " + have + " (" + need + ")";
  }
  return d;
}

std::string Describe(const Decision& decision) {
  std::string out = std::string(ProposalKindName(decision.proposal.kind)) + " " +
                    decision.proposal.node + ": " + decision.explanation;
  for (const CountedVote& v : decision.votes) {
    out += "\n  member " + std::to_string(v.member) + (v.pod.empty() ? "" : " (" + v.pod + ")") +
           ": " + std::string(VerdictName(v.verdict)) + " at " + std::to_string(v.cast_at) + " - " +
           v.reason;
    if (!v.counted) out += " [ignored: " + v.ignored_because + "]";
  }
  return out;
}

}  // namespace archimedes::magi
