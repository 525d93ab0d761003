// MAGI's judgement, free of I/O and clocks: how one member turns what it sees of a node into a
// vote (Judge), and how the votes of all members become a decision (Decide). Time is always passed
// in as int64 seconds, so the simulator and the real member (magi/member.h) run the same code.
//
// Contract:
//  - Judge never votes yes from a member that looks isolated (it reaches too few of the nodes it
//    probes, or too few of its peers): such a member abstains, because "I see nothing" says more
//    about the member than about the node.
//  - Judge votes yes only when the member's own probes have failed `failures_to_suspect` times in a
//    row AND the node's heartbeat channel (the API server's view), when known, also looks dead; a
//    fresh heartbeat means the node is alive and only this path is broken. On readmitting a node
//    recorded offline it votes yes once the node answered `answers_to_readmit` probes in a row.
//  - Decide counts only votes of known members, the latest vote per member, cast inside the
//    proposal's voting window and younger than `vote_ttl`. A proposal passes with at least
//    `min_yes` yes votes from at least `min_pods` distinct PODs (PODs come from the membership,
//    not from the vote), fails once enough no votes make that impossible, and expires when its
//    window closes undecided.
#ifndef ARCHIMEDES_MAGI_QUORUM_H_
#define ARCHIMEDES_MAGI_QUORUM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archimedes::magi {

enum class ProposalKind : uint8_t { kNodeOffline, kMigrate, kReadmit };

// "node-offline", "migrate", "readmit".
std::string_view ProposalKindName(ProposalKind kind);
std::optional<ProposalKind> ParseProposalKind(std::string_view name);

// A question put to the members about one node: "is it offline?", "migrate its containers?" or
// "take the node recorded offline back?".
struct Proposal {
  ProposalKind kind = ProposalKind::kNodeOffline;
  std::string node;
  int64_t opened_at = 0;  // start of the voting window
  int opened_by = 0;      // member id
};

// What one member knows about one node.
struct NodeEvidence {
  std::string node;
  int probes = 0;                // probes made so far; 0 means "no data yet"
  int consecutive_failures = 0;  // latest probes in a row where TCP and HTTP both failed
  int consecutive_answers = 0;   // latest probes in a row where it answered TCP or HTTP
  bool tcp_ok = false;           // results of the latest probe
  bool http_ok = false;
  std::string last_error;  // why the latest probe failed, for the record
  // Age of the node's last heartbeat as the API server sees it; nullopt when the member has no
  // such channel.
  std::optional<int64_t> heartbeat_age;
  // For migrate and readmit proposals: whether the quorum already recorded the node offline.
  bool offline_decided = false;
};

// What one member knows about its own vantage point.
struct VantageEvidence {
  int peers_alive = 0;  // other members whose heartbeat this member can see
  int peers_total = 0;  // other members in the membership
  int nodes_reachable = 0;
  int nodes_probed = 0;
};

struct JudgePolicy {
  int failures_to_suspect = 3;
  // A heartbeat younger than this proves the node alive.
  int64_t heartbeat_grace = 30;
  // Below this share of reachable nodes the member considers itself cut off.
  double min_reachable_node_share = 0.5;
  // The member must see at least half of its peers, or it considers itself cut off.
  bool require_peer_majority = true;
  // Probes in a row a node recorded offline must answer before the member votes to readmit it;
  // 0: never (an operator readmits by deleting the decision).
  int answers_to_readmit = 10;
};

enum class Verdict : uint8_t { kYes, kNo, kAbstain };

// "yes", "no", "abstain".
std::string_view VerdictName(Verdict verdict);
std::optional<Verdict> ParseVerdict(std::string_view name);

struct Judgement {
  Verdict verdict = Verdict::kAbstain;
  std::string reason;
};

// True when the member should regard itself as cut off, with the reason in `why`.
bool IsIsolated(const VantageEvidence& vantage, const JudgePolicy& policy, std::string* why);

// One member's verdict on `kind` for the node that `node` describes.
Judgement Judge(ProposalKind kind, const NodeEvidence& node, const VantageEvidence& vantage,
                const JudgePolicy& policy);

struct Vote {
  int member = 0;
  Verdict verdict = Verdict::kAbstain;
  std::string reason;
  int64_t cast_at = 0;
};

struct Member {
  int id = 0;
  std::string pod;
};

struct QuorumRule {
  int min_yes = 3;
  int min_pods = 2;
  int64_t window = 120;   // seconds after opened_at during which votes count
  int64_t vote_ttl = 30;  // a vote older than this no longer counts (its member stopped voting)
};

enum class Outcome : uint8_t { kPending, kPassed, kRejected, kExpired };

// "pending", "passed", "rejected", "expired".
std::string_view OutcomeName(Outcome outcome);

// One vote as the decision saw it.
struct CountedVote {
  int member = 0;
  std::string pod;
  Verdict verdict = Verdict::kAbstain;
  std::string reason;
  int64_t cast_at = 0;
  bool counted = false;  // false: ignored
  std::string ignored_because;
};

// Who voted what and why, and what came of it.
struct Decision {
  Proposal proposal;
  Outcome outcome = Outcome::kPending;
  int64_t decided_at = 0;
  int yes = 0;
  int no = 0;
  int abstain = 0;
  std::vector<std::string> yes_pods;  // distinct, sorted
  std::vector<CountedVote> votes;     // one per vote given, in member order
  std::string explanation;
};

// Throws std::invalid_argument naming the problem if the rule cannot be met by the membership
// (e.g. min_yes above the member count) or the membership has duplicate ids.
void ValidateRule(const std::vector<Member>& members, const QuorumRule& rule);

Decision Decide(const Proposal& proposal, const std::vector<Vote>& votes,
                const std::vector<Member>& members, const QuorumRule& rule, int64_t now);

// One line per vote plus a summary, for logs and the decision record.
std::string Describe(const Decision& decision);

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_QUORUM_H_
