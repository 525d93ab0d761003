// What this machine offers, read from the kernel: the node a node agent registers.
#ifndef ARCHIMEDES_AGENT_MACHINE_H_
#define ARCHIMEDES_AGENT_MACHINE_H_

#include <string>

#include "model/resources.h"

namespace archimedes {

// CPUs online (millicores) and MemTotal of `meminfo` (bytes). Throws std::runtime_error naming
// the file when it cannot be read.
Resources ReadMachineCapacity(const std::string& meminfo = "/proc/meminfo");

}  // namespace archimedes

#endif  // ARCHIMEDES_AGENT_MACHINE_H_
