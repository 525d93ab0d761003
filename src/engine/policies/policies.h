// The policies, one file each (DESIGN §6). Registered in engine/policy.cc.
#ifndef ARCHIMEDES_ENGINE_POLICIES_POLICIES_H_
#define ARCHIMEDES_ENGINE_POLICIES_POLICIES_H_

#include "engine/policy.h"

namespace archimedes {

Policy K8sDefaultPolicy();
Policy K8sBinpackPolicy();
Policy ReclaimPolicy();
Policy ArchimedesPolicy();
Policy ArchimedesNoHealthPolicy();
Policy ArchimedesGreedyPolicy();
Policy ArchimedesNoBorrowPolicy();

}  // namespace archimedes

#endif  // ARCHIMEDES_ENGINE_POLICIES_POLICIES_H_
