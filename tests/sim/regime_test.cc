// The two regimes: the fitting stream's mean requests fill the room services leave less the
// buffer in its tighter dimension and stay within it in the other; the overloaded one is the
// generator's default.
#include "sim/regime.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace archimedes {
namespace {

GeneratorParams Small() {
  GeneratorParams p;
  p.nodes = 200;
  p.days = 2;
  p.seed = 4;
  return p;
}

// Mean requests of the stream in `d` over its horizon, and the room: allocatable × (1 − buffer)
// less the services' mean usage.
struct Fill {
  double requested = 0;
  double room = 0;
};

Fill FillOf(const Scenario& s, Dim d, double buffer) {
  Fill f;
  for (const Node& n : s.nodes) f.room += static_cast<double>(n.allocatable[d]) * (1 - buffer);
  for (const Service& svc : s.workload.services) {
    const std::vector<float>& v = svc.usage.values[static_cast<int>(d)];
    double mean = 0;
    for (float x : v) mean += x / static_cast<double>(v.size());
    if (d == Dim::kCpu) {
      mean *= 1 + svc.usage.burst_probability * (svc.usage.burst_factor - 1);
    }
    f.room -= svc.replicas * mean;
  }
  for (const BatchJob& j : s.workload.jobs) {
    f.requested += static_cast<double>(j.tasks) * static_cast<double>(j.task_requests[d]) *
                   static_cast<double>(j.duration_s);
  }
  f.requested /= static_cast<double>(s.duration_s);
  return f;
}

TEST(RegimeTest, TheFittingStreamFillsTheRoomInItsTighterDimension) {
  for (double buffer : {0.1, 0.25}) {
    const GeneratorParams fits = ForRegime(Small(), Regime::kFits, buffer);
    ASSERT_GT(fits.batch_load, 0);
    ASSERT_LT(fits.batch_load, 1);
    const Scenario s = GenerateScenario(fits);
    const Fill cpu = FillOf(s, Dim::kCpu, buffer);
    const Fill memory = FillOf(s, Dim::kMemory, buffer);
    // The tighter dimension fills its room, to within a few jobs of the stream; the other stays
    // below its own.
    const double tighter = std::max(cpu.requested / cpu.room, memory.requested / memory.room);
    EXPECT_LE(tighter, 1.0) << buffer;
    EXPECT_GT(tighter, 0.9) << buffer;
    EXPECT_LE(std::min(cpu.requested / cpu.room, memory.requested / memory.room), tighter);
  }
  // A larger buffer leaves less room: a smaller stream.
  EXPECT_LT(ForRegime(Small(), Regime::kFits, 0.25).batch_load,
            ForRegime(Small(), Regime::kFits, 0.1).batch_load);
}

TEST(RegimeTest, TheOverloadedStreamIsTheGeneratorsDefault) {
  GeneratorParams p = Small();
  p.batch_load = 0.3;
  EXPECT_EQ(ForRegime(p, Regime::kOverloaded, 0.1).batch_load, 1.0);
  EXPECT_EQ(GeneratorParams{}.batch_load, 1.0);
}

TEST(RegimeTest, NamesRoundTripAndAnUnknownOneIsRefused) {
  for (Regime r : {Regime::kFits, Regime::kOverloaded}) EXPECT_EQ(ParseRegime(RegimeName(r)), r);
  EXPECT_THROW(ParseRegime("full"), std::invalid_argument);
}

}  // namespace
}  // namespace archimedes
