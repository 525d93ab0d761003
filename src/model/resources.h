// The resource vector of DESIGN §2: a fixed set of dimensions known at compile time, held as
// exact integers in canonical units.
//
//   cpu      millicores
//   memory   bytes
//   disk     storage I/O, bytes per second
//   network  bytes per second
//   gpu      thousandths of one GPU (1000 = a whole device)
#ifndef ARCHIMEDES_MODEL_RESOURCES_H_
#define ARCHIMEDES_MODEL_RESOURCES_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace archimedes {

enum class Dim : uint8_t { kCpu = 0, kMemory, kDisk, kNetwork, kGpu };

inline constexpr int kNumDims = 5;
inline constexpr std::array<Dim, kNumDims> kAllDims = {Dim::kCpu, Dim::kMemory, Dim::kDisk,
                                                       Dim::kNetwork, Dim::kGpu};

// "cpu", "memory", "disk", "network", "gpu".
std::string_view DimName(Dim dim);
std::optional<Dim> ParseDim(std::string_view name);

struct Resources {
  std::array<int64_t, kNumDims> amount{};

  static Resources Of(int64_t cpu_milli, int64_t memory_bytes, int64_t disk = 0,
                      int64_t network = 0, int64_t gpu_milli = 0) {
    return Resources{{cpu_milli, memory_bytes, disk, network, gpu_milli}};
  }

  int64_t& operator[](Dim d) { return amount[static_cast<int>(d)]; }
  int64_t operator[](Dim d) const { return amount[static_cast<int>(d)]; }
  int64_t cpu() const { return amount[0]; }
  int64_t memory() const { return amount[1]; }

  Resources& operator+=(const Resources& o) {
    for (int i = 0; i < kNumDims; ++i) amount[i] += o.amount[i];
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    for (int i = 0; i < kNumDims; ++i) amount[i] -= o.amount[i];
    return *this;
  }
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }
  friend bool operator==(const Resources&, const Resources&) = default;

  // True when every dimension is at most the same dimension of `limit`.
  bool FitsIn(const Resources& limit) const {
    for (int i = 0; i < kNumDims; ++i) {
      if (amount[i] > limit.amount[i]) return false;
    }
    return true;
  }
  bool IsZero() const { return *this == Resources{}; }
  bool AnyNegative() const {
    for (int64_t a : amount) {
      if (a < 0) return true;
    }
    return false;
  }
  // Each dimension scaled by `factor`, rounded to the nearest unit.
  Resources Scaled(double factor) const;
};

// Componentwise maximum. Inline: batch queues take it over every node at every cycle.
inline Resources Max(const Resources& a, const Resources& b) {
  Resources r;
  for (int i = 0; i < kNumDims; ++i) r.amount[i] = std::max(a.amount[i], b.amount[i]);
  return r;
}

// "cpu=2500m memory=4Gi ..." with Kubernetes quantity formatting; zero dimensions are omitted.
std::string ToString(const Resources& r);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_RESOURCES_H_
