// Quantiles of samples, by the one rule the project uses for every p50 and p99: nearest rank. The
// q-quantile of n values is the ⌈q·n⌉-th smallest (counting from 1, and at least the first): the
// smallest value with a share q of the values at or below it. So p99 of a day's 288 five-minute
// bins is the 286th smallest, and two bins lie above it. For weighted samples the rule reads: the
// smallest value whose cumulative weight reaches q × the total weight (unit weights give the same
// value as the unweighted rule).
//
// Median is the robust statistic of profiling and health checks (typical levels, sibling
// replicas, outlier days), not a report figure: the value at 0-based index ⌊n/2⌋ in sorted order,
// the middle one, or the upper of the two middle ones for an even count (where Quantile(v, 0.5)
// gives the lower).
#ifndef ARCHIMEDES_MODEL_QUANTILE_H_
#define ARCHIMEDES_MODEL_QUANTILE_H_

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace archimedes {

// The 0-based position of the q-quantile among n > 0 sorted values: ⌈q·n⌉ − 1, clamped to
// [0, n − 1].
size_t NearestRankIndex(size_t n, double q);

// The q-quantile of `values` (taken by value and partially reordered); 0 when there are none.
float Quantile(std::vector<float> values, double q);
double Quantile(std::vector<double> values, double q);

// The median of `values`, partially reordering them in place (std::nth_element, so a caller can
// reuse its buffer); 0 when there are none.
float Median(std::span<float> values);

// The q-quantile of (value, weight) samples with non-negative weights; 0 when there are none.
double WeightedQuantile(std::vector<std::pair<double, double>> samples, double q);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_QUANTILE_H_
