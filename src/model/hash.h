// Deterministic hashing for reproducible randomness: the same 64-bit key gives the same value on
// every platform and standard library (std distributions are implementation-defined).
#ifndef ARCHIMEDES_MODEL_HASH_H_
#define ARCHIMEDES_MODEL_HASH_H_

#include <cstdint>

namespace archimedes {

// The splitmix64 finaliser: a bijective mix of all 64 bits.
inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A double in [0, 1) from the top 53 bits of `bits`.
inline double UnitInterval(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_HASH_H_
