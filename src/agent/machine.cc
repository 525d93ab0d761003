#include "agent/machine.h"

#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace archimedes {

Resources ReadMachineCapacity(const std::string& meminfo) {
  // The CPUs this process may run on: a container's or taskset's share, not the whole board.
  cpu_set_t set;
  int cpus = 0;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    cpus = CPU_COUNT(&set);
  } else {
    cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  }
  std::ifstream in(meminfo);
  if (!in) throw std::runtime_error("cannot read " + meminfo);
  std::string key, unit;
  int64_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemTotal:") return Resources::Of(int64_t{cpus} * 1000, value * 1024);
  }
  throw std::runtime_error(meminfo + " has no MemTotal line");
}

}  // namespace archimedes
