// The project's randomness, reproducible everywhere: the same seed or key gives the same numbers on
// every platform and standard library, because every draw is computed here from raw 64-bit output
// (std:: distributions are implementation-defined).
//
// Random is a seeded stream (std::mt19937_64 seeded with the seed as given) for code that draws in
// sequence: generators, k-means seeding, tie-breaking. SplitMix64 and HashUniform turn a key into
// a value with no state at all, for draws that must not depend on the order of other draws (a
// container's noise at a time, a job's copy count).
#ifndef ARCHIMEDES_MODEL_RANDOM_H_
#define ARCHIMEDES_MODEL_RANDOM_H_

#include <cstdint>
#include <random>
#include <vector>

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

// A double in [0, 1) from a 64-bit key: UnitInterval(SplitMix64(key)).
inline double HashUniform(uint64_t key) { return UnitInterval(SplitMix64(key)); }

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  // The engine's next raw 64 bits; every draw below takes one or more of them.
  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1), and in [lo, hi).
  double Uniform() { return UnitInterval(Next()); }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform integer in [lo, hi], both ends included.
  int64_t UniformInt(int64_t lo, int64_t hi);
  // exp of a uniform draw in [log lo, log hi).
  double LogUniform(double lo, double hi);
  // Standard normal by Box-Muller: two uniforms per draw, the second value not kept.
  double Normal();
  double LogNormal(double median, double sigma);
  double Pareto(double scale, double alpha);
  // Poisson by Knuth's product of uniforms; above a mean of 50, the rounded normal approximation.
  int64_t Poisson(double mean);
  // An index drawn with probability proportional to the increments of `cumulative` (non-empty,
  // non-decreasing).
  int Pick(const std::vector<double>& cumulative);

 private:
  std::mt19937_64 engine_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_RANDOM_H_
