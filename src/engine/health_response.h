// What the engine does about health warnings (profile/health.h): one part of a Policy
// (engine/policy.h). It is shown each ready node's service replicas and their memory after the
// node's round (Stage), and acts at the end of the round (Act).
#ifndef ARCHIMEDES_ENGINE_HEALTH_RESPONSE_H_
#define ARCHIMEDES_ENGINE_HEALTH_RESPONSE_H_

#include <memory>

#include "model/cluster_state.h"

namespace archimedes {

class EngineCore;

class HealthResponse {
 public:
  virtual ~HealthResponse() = default;
  // Node `n`'s round is over: its live service replicas and their memory this round are samples.
  virtual void Stage(const EngineCore& core, NodeId n) = 0;
  // Container `id` stopped; a sample of it staged since the last Stage of its node is dropped.
  virtual void Removed(ContainerId id) = 0;
  // Acts on the round's samples.
  virtual void Act(EngineCore& core) = 0;
};

// A replica predicted to reach its memory limit within the migration rule's horizon is moved
// make-before-break, or, when no other node can take a replacement, its service gets one more
// replica until the warned one ends; once a replacement is warned in turn, the trend is the
// service's own and its warnings are no longer acted on.
std::unique_ptr<HealthResponse> NewHealthMigration();

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_HEALTH_RESPONSE_H_
