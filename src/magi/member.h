// One MAGI member as a real process: it probes every node from where it runs, keeps a heartbeat
// in etcd, votes on open proposals and records quorum decisions (key layout in docs/magi.md).
//
// Contract:
//  - Each Tick probes every node (in parallel), then talks to etcd. If etcd cannot be reached the
//    tick logs why and does nothing else: a member cut off from the store cannot vote.
//  - The member's heartbeat and votes live under its own lease (TTL `lease_ttl`), so a member
//    that dies loses them within the TTL; a lost lease is replaced on the next tick.
//  - A proposal is opened (created once) by the first member that votes yes on it; every member
//    then votes on every open proposal each tick. Any member that sees the quorum rule met writes
//    the decision with a create-only transaction, so there is exactly one record per
//    (kind, node), never overwritten; later attempts only read it back.
//  - Nodes already recorded offline are left out of the member's vantage evidence, so that many
//    dead nodes do not make the member believe itself isolated.
//  - Nodes named (one per line) in `blocked_file` are treated as unreachable from this member:
//    fault injection where the test cannot cut real links.
#ifndef ARCHIMEDES_MAGI_MEMBER_H_
#define ARCHIMEDES_MAGI_MEMBER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "magi/probe.h"
#include "magi/quorum.h"
#include "store/etcd_store.h"

namespace archimedes::magi {

struct MemberConfig {
  int id = 0;
  std::string pod;
  std::vector<Member> members;  // the whole membership, this member included
  std::vector<NodeTarget> nodes;
  QuorumRule rule;
  JudgePolicy policy;
  std::chrono::milliseconds probe_interval{1000};
  std::chrono::milliseconds probe_timeout{500};
  int64_t lease_ttl = 5;
  std::string key_prefix = "/archimedes/magi/";
  std::string blocked_file;
};

// Throws std::invalid_argument naming the problem: the member is not in the membership or sits
// in another POD, the rule cannot be met, an interval or TTL is not positive.
void ValidateConfig(const MemberConfig& config);

// Parses "1=pod-a,2=pod-b,..." into a membership; throws std::invalid_argument on bad text.
std::vector<Member> ParseMembers(const std::string& text);

class MagiMember {
 public:
  // `store` and `log` must outlive the member.
  MagiMember(MemberConfig config, EtcdStore& store, std::ostream& log);

  // One round of probing, heartbeat, voting and deciding at wall-clock second `now`.
  void Tick(int64_t now);

  // Ticks every probe interval until `stop` is set or `duration` has passed (zero: no limit),
  // then revokes the lease so that the member's votes vanish at once.
  void Run(std::chrono::milliseconds duration, const std::atomic<bool>& stop);

 private:
  void Probe();
  void ReadHeartbeats(int64_t now);
  void EnsureLease();
  void Vote(ProposalKind kind, const std::string& node, const KeyValue& proposal_kv,
            const VantageEvidence& vantage, int64_t now);
  std::string Key(const std::string& suffix) const { return config_.key_prefix + suffix; }
  void Log(int64_t now, const std::string& line);

  MemberConfig config_;
  EtcdStore& store_;
  std::ostream& log_;
  std::map<std::string, NodeEvidence> evidence_;  // by node name
  int64_t lease_ = 0;
  bool store_reachable_ = true;
  std::set<std::string> decisions_seen_;      // decision keys already logged and cleaned up
  std::map<std::string, Verdict> last_vote_;  // by vote key, to log only changes
};

}  // namespace archimedes::magi

#endif  // ARCHIMEDES_MAGI_MEMBER_H_
