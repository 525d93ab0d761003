// MAGI review of a proposed migration: before any logic (the SLA engine, a node controller) moves
// containers off a node, it asks the MAGI members whether the reason holds.
//
// Contract:
//  - A migration justified by "node unreachable" is put to the members as a migrate proposal
//    opened at `request.at`; each member votes Judge(kNodeOffline) on its own evidence of the
//    source node, all votes cast at `request.at`, and the migration is approved only if Decide
//    passes it under `rule` (e.g. 3 yes from 2 PODs). A member that sees the node answer, or
//    sees its heartbeat fresh, votes no; an isolated member abstains.
//  - A migration justified by SLA contention (the node is alive but overloaded) makes no claim
//    about liveness, which is all MAGI judges: it is approved without a vote.
//  - Pure: no clock, no I/O. The fault simulation (sim/fault_sim.h) calls it for every migration
//    its controllers trigger; the SLA engine calls it the same way with its members' evidence.
#ifndef ARCHIMEDES_SIM_FAULT_REVIEW_H_
#define ARCHIMEDES_SIM_FAULT_REVIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "magi/quorum.h"

namespace archimedes {

enum class MigrationReason : uint8_t {
  kNodeUnreachable,  // the source node is believed dead or cut off
  kSlaContention,    // the source node is alive; its containers' SLAs need room elsewhere
};

struct MigrationRequest {
  std::string node;  // source node
  MigrationReason reason = MigrationReason::kNodeUnreachable;
  int64_t at = 0;
};

// What one member knows of the source node and of its own vantage point at `request.at`.
struct MemberView {
  magi::Member member;
  magi::NodeEvidence node;
  magi::VantageEvidence vantage;
};

struct MigrationReview {
  bool approved = false;
  magi::Decision decision;  // the vote; empty (no proposal) when no vote was needed
  std::string explanation;
};

// Throws std::invalid_argument (from magi::ValidateRule) when the rule cannot be met by the
// members in `views`.
MigrationReview ReviewMigration(const MigrationRequest& request,
                                const std::vector<MemberView>& views, const magi::QuorumRule& rule,
                                const magi::JudgePolicy& policy);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_FAULT_REVIEW_H_
