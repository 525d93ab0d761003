// One MAGI member: it observes every node from where it runs, keeps a heartbeat in the store,
// votes on open proposals and records quorum decisions (key layout in docs/magi.md). The same code
// runs as `archimedes magi` (over etcd, probing over the network) and as the five members of the
// fault simulation (over a MemoryStore, observing the simulated world).
//
// Contract:
//  - A round at second `now` has four steps. Observe: probe every node through the observer,
//    renew the lease and the member's heartbeat, read the decisions, the open proposals and the
//    live members, and judge every node the member failed to reach or that has an open proposal
//    (reading those nodes' heartbeats). Propose: open a proposal (create-only) for every yes.
//    Vote: vote on every open proposal about a node it judged, including those peers opened since
//    its read. Decide: decide each of those over the votes in the store, record a passed one
//    with a create-only transaction (exactly one record per kind and node, never overwritten)
//    and close an expired one. Tick runs the four steps; a driver that runs several members as
//    if at the same instant (the fault simulation) runs each step for all of them before the
//    next.
//  - `now` is the only time a round knows; Run drives rounds from the wall clock.
//  - If the store cannot be reached, the round logs why (once) and stops after probing: a member
//    cut off from the store cannot vote.
//  - The member's heartbeat and votes live under its own lease (TTL `lease_ttl`), so a member that
//    dies or is cut off loses them within the TTL; a lost lease is replaced on the next round.
//  - Nodes recorded offline are left out of the member's vantage evidence, so that many dead
//    nodes do not make it believe itself isolated. A node-offline decision is cleared only by a
//    passed readmit proposal (the node answered `answers_to_readmit` probes in a row, as seen by
//    a quorum; the record moves to readmissions/<node>) or by an operator deleting it; the node is
//    then judged afresh.
#ifndef ARCHIMEDES_MAGI_MEMBER_H_
#define ARCHIMEDES_MAGI_MEMBER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "magi/observer.h"
#include "magi/probe.h"
#include "magi/quorum.h"
#include "store/kv_store.h"

namespace archimedes::magi {

struct MemberConfig {
  int id = 0;
  std::string pod;
  std::vector<Member> members;  // the whole membership, this member included
  std::vector<NodeTarget> nodes;
  QuorumRule rule;
  JudgePolicy policy;
  std::chrono::milliseconds probe_interval{1000};  // between rounds, for Run
  int64_t lease_ttl = 5;
  std::string key_prefix = "/archimedes/magi/";
  // Where Run reads the nodes again every `nodes_refresh` (the fleet as the service knows it,
  // magi/service_nodes.h); unset: `nodes` stay. What it throws is logged once and the nodes known
  // so far are watched.
  std::function<std::vector<NodeTarget>()> nodes_source;
  std::chrono::milliseconds nodes_refresh{5000};
};

// Throws std::invalid_argument naming the problem: the member is not in the membership or sits
// in another POD, the rule cannot be met, no nodes (and no source of them), an interval or TTL is
// not positive.
void ValidateConfig(const MemberConfig& config);

// Parses "1=pod-a,2=pod-b,..." into a membership; throws std::invalid_argument on bad text.
std::vector<Member> ParseMembers(const std::string& text);

// The record of a decision kept under decisions/<kind>/<node> (docs/magi.md), and back again.
// ParseDecisionRecord throws std::invalid_argument when `record` is not one.
std::string DecisionRecord(const Decision& decision, int recorded_by);
Decision ParseDecisionRecord(const std::string& record);

class MagiMember {
 public:
  // `store`, `observer` and `log` must outlive the member.
  MagiMember(MemberConfig config, KvStore& store, NodeObserver& observer, std::ostream& log);

  // One round at second `now`: Observe, Propose, Vote, Decide.
  void Tick(int64_t now);
  void Observe(int64_t now);
  void Propose(int64_t now);
  void Vote(int64_t now);
  void Decide(int64_t now);

  // Ticks every probe interval until `stop` is set or `duration` has passed (zero: no limit),
  // then revokes the lease so that the member's votes vanish at once.
  void Run(std::chrono::milliseconds duration, const std::atomic<bool>& stop);

  // What this member knows of `node`, for a migration review (sim/fault_review.h): its latest
  // probes, the node's heartbeat age at `now` read through its observer, and whether its last
  // read of the store found the node recorded offline. Throws std::out_of_range for a node it
  // does not watch, and what the observer throws.
  NodeEvidence Evidence(const std::string& node, int64_t now);
  // Its vantage point after its latest round, counting the nodes not in `held_offline`.
  VantageEvidence Vantage(const std::set<std::string>& held_offline) const;

  // Watches `nodes` from the next round on (the fleet changed): what is known of the nodes that
  // stay is kept. Throws std::invalid_argument when a name is listed twice.
  void SetNodes(std::vector<NodeTarget> nodes);

  const MemberConfig& config() const { return config_; }

 private:
  // A node judged in this round on one kind of proposal.
  struct Judged {
    ProposalKind kind = ProposalKind::kNodeOffline;
    size_t node = 0;
    NodeEvidence evidence;
    Judgement judgement;
  };
  // An open proposal this member voted on in this round.
  struct Voted {
    Proposal proposal;
    KeyValue proposal_kv;
  };

  void Probe(int64_t now);
  VantageEvidence VantageWithout(const std::set<size_t>& offline) const;
  std::string HeartbeatValue(int64_t now) const;
  void EnsureLease();
  void ReadDecisions(int64_t now);
  void ReadProposals();
  void Judge(int64_t now);
  void StoreFailed(int64_t now, const StoreError& error);
  void Readmit(const Voted& voted, const Decision& decision, int64_t now);
  void RefreshNodes(int64_t now);
  std::string Key(const std::string& suffix) const { return config_.key_prefix + suffix; }
  void Log(int64_t now, const std::string& line);

  MemberConfig config_;
  KvStore& store_;
  NodeObserver& observer_;
  std::ostream& log_;
  std::map<std::string, size_t> index_;  // node name -> index into config_.nodes
  std::string own_key_;                  // members/<id>
  std::set<std::string> peer_keys_;      // members/<id> of the others
  std::string heartbeat_head_;           // the part of the member's heartbeat that never changes
  // The latest probe of each node (by index); `probes` is left 0, rounds_ holds it.
  std::vector<NodeEvidence> evidence_;
  std::vector<size_t> missed_;    // nodes whose latest probe missed an answer, in order
  std::vector<int> last_failed_;  // by node: the round its probe last got no answer at all
  int rounds_ = 0;
  int peers_alive_ = 0;
  int64_t lease_ = 0;
  bool store_reachable_ = true;
  bool nodes_source_ok_ = true;
  std::vector<std::string> decisions_seen_;   // decision keys on record, logged and tidied
  bool rematch_decisions_ = false;            // the nodes changed since they were matched
  std::map<std::string, Verdict> last_vote_;  // by vote key, to log only changes

  // The round in progress.
  bool round_ok_ = false;                              // the store answered every request so far
  std::set<std::pair<ProposalKind, size_t>> decided_;  // kind and node of each decision
  std::set<size_t> offline_;                           // nodes recorded offline
  std::map<std::string, KeyValue> proposals_;          // by key
  VantageEvidence vantage_;
  std::vector<Judged> judged_;
  std::vector<Voted> voted_;
};

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_MEMBER_H_
