// A machine of the fleet.
#ifndef ARCHIMEDES_MODEL_NODE_H_
#define ARCHIMEDES_MODEL_NODE_H_

#include <map>
#include <string>
#include <vector>

#include "model/resources.h"
#include "model/taint.h"

namespace archimedes {

enum class NodeCondition : uint8_t { kReady, kNotReady };

struct Node {
  std::string name;
  Resources capacity;
  Resources allocatable;  // capacity minus what the system reserves; what requests may use
  std::string zone;       // failure domain: availability zone
  std::string pod;        // failure domain: POD / rack (MAGI members are spread across these)
  std::map<std::string, std::string> labels;
  NodeCondition condition = NodeCondition::kReady;
  std::vector<Taint> taints;  // pods that do not tolerate them stay off (TaintToleration)
};

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_NODE_H_
