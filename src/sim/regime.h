// The two regimes of the default comparison (issue 21, docs/generator.md "Regimes"). A batch stream
// either fits what the fleet can reclaim or overloads it, and each regime has its own headline:
//
//   fits        the stream's mean requests equal the room services leave on average, less the
//               burst buffer, in CPU and in memory (the tighter of the two): every task could
//               start within its tolerance, so *started within tolerance* is the headline.
//   overloaded  the generator's default, batch_load 1 (mean CPU usage = the CPU services leave
//               idle): more is offered than any policy completes, so *core-hours completed* and
//               *lateness weighted by priority* are the headline.
//
// Both are computed from the generated fleet and services alone, never from a policy's result.
#ifndef ARCHIMEDES_SIM_REGIME_H_
#define ARCHIMEDES_SIM_REGIME_H_

#include <string_view>

#include "sim/generator.h"

namespace archimedes {

enum class Regime { kFits, kOverloaded };

// "fits" or "overloaded"; throws std::invalid_argument naming the text otherwise.
Regime ParseRegime(std::string_view text);
std::string_view RegimeName(Regime regime);
// What the regime's table is read by, one line.
std::string_view RegimeHeadline(Regime regime);

// `params` with the batch_load of `regime`: for fits, the load at which the stream's mean CPU and
// memory requests (Σ tasks × request × duration ÷ horizon) fit
//
//   Σ_nodes allocatable × (1 − buffer) − Σ_services replicas × mean usage
//
// in both dimensions; for overloaded, batch_load 1.
GeneratorParams ForRegime(GeneratorParams params, Regime regime, double buffer);

}  // namespace archimedes

#endif  // ARCHIMEDES_SIM_REGIME_H_
