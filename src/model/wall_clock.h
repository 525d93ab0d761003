// The wall clock as the running system reads it: whole seconds since the Unix epoch. Only drivers
// of real time (serve, the agent, MAGI's members) read it; the engine is given its time.
#ifndef ARCHIMEDES_MODEL_WALL_CLOCK_H_
#define ARCHIMEDES_MODEL_WALL_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace archimedes {

inline int64_t WallSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_WALL_CLOCK_H_
