// An event the service accepted: a mutation of its state as a request made it, kept verbatim in
// the journal so that replaying the journal in order rebuilds the same state (the engine is
// deterministic: the same events give the same actions, with the same sequence numbers).
#ifndef ARCHIMEDES_SERVER_EVENT_H_
#define ARCHIMEDES_SERVER_EVENT_H_

#include <cstdint>
#include <string>

namespace archimedes {

enum class EventKind : uint8_t {
  kPutNode,
  kDeleteNode,
  kPutService,
  kDeleteService,
  kSubmitJob,
  kCancelJob,
  kContainerStatus,
  kUsage,
  kClock,
  kNodeStatus,  // a node failed (NotReady) or recovered (Ready)
  kPutPriors,   // the profiles and task shapes the engine places by
};
// Kinds are stored as their numbers: a new kind goes last.
inline constexpr EventKind kLastEventKind = EventKind::kPutPriors;

struct Event {
  EventKind kind = EventKind::kClock;
  int64_t time = 0;             // the engine's time when it applied
  std::string target;           // the object the path names (a node, service, job or container)
  std::string body;             // the request's JSON body
  std::string idempotency_key;  // jobs: the client's Idempotency-Key
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_EVENT_H_
