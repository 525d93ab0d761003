// An address as nodes, agents and MAGI members are reached: HOST:PORT, the port in [1, 65535].
#ifndef ARCHIMEDES_MODEL_HOST_PORT_H_
#define ARCHIMEDES_MODEL_HOST_PORT_H_

#include <string>

namespace archimedes {

// Why `address` is not HOST:PORT with a port in [1, 65535] (a sentence quoting it), or "".
std::string HostPortProblem(const std::string& address);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_HOST_PORT_H_
