#include "profile/clustering.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "model/random.h"

namespace archimedes {

namespace {

double Distance2(const float* a, const float* b, int dims) {
  double sum = 0.0;
  for (int i = 0; i < dims; ++i) {
    double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return sum;
}

// k-means++: the first centre uniformly, each next one with probability ∝ squared distance to the
// nearest centre chosen so far.
std::vector<float> SeedCentroids(std::span<const float> points, int dims, int k, Random& rng) {
  const int n = static_cast<int>(points.size() / dims);
  std::vector<float> centroids;
  centroids.reserve(static_cast<size_t>(k) * dims);
  int first = static_cast<int>(rng.Uniform() * n);
  centroids.insert(centroids.end(), points.begin() + static_cast<size_t>(first) * dims,
                   points.begin() + static_cast<size_t>(first + 1) * dims);
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  for (int c = 1; c < k; ++c) {
    const float* last = &centroids[static_cast<size_t>(c - 1) * dims];
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
      nearest[i] =
          std::min(nearest[i], Distance2(&points[static_cast<size_t>(i) * dims], last, dims));
      total += nearest[i];
    }
    int chosen = n - 1;
    if (total > 0.0) {
      double target = rng.Uniform() * total;
      for (int i = 0; i < n; ++i) {
        target -= nearest[i];
        if (target < 0.0) {
          chosen = i;
          break;
        }
      }
    } else {
      chosen = static_cast<int>(rng.Uniform() * n);
    }
    centroids.insert(centroids.end(), points.begin() + static_cast<size_t>(chosen) * dims,
                     points.begin() + static_cast<size_t>(chosen + 1) * dims);
  }
  return centroids;
}

Clustering Lloyd(std::span<const float> points, int dims, std::vector<float> centroids, int k,
                 int max_iterations) {
  const int n = static_cast<int>(points.size() / dims);
  Clustering result;
  result.k = k;
  result.labels.assign(n, -1);
  std::vector<double> sums(static_cast<size_t>(k) * dims);
  std::vector<int> counts(k);
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    bool changed = false;
    result.inertia = 0.0;
    for (int i = 0; i < n; ++i) {
      const float* p = &points[static_cast<size_t>(i) * dims];
      int best = 0;
      double best_d = std::numeric_limits<double>::infinity();
      for (int c = 0; c < k; ++c) {
        double d = Distance2(p, &centroids[static_cast<size_t>(c) * dims], dims);
        if (d < best_d) {
          best_d = d;
          best = c;
        }
      }
      result.inertia += best_d;
      if (result.labels[i] != best) {
        result.labels[i] = best;
        changed = true;
      }
    }
    if (!changed) break;
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), 0);
    for (int i = 0; i < n; ++i) {
      ++counts[result.labels[i]];
      for (int j = 0; j < dims; ++j) {
        sums[static_cast<size_t>(result.labels[i]) * dims + j] +=
            points[static_cast<size_t>(i) * dims + j];
      }
    }
    for (int c = 0; c < k; ++c) {
      if (counts[c] == 0) continue;  // an emptied cluster keeps its centre
      for (int j = 0; j < dims; ++j) {
        centroids[static_cast<size_t>(c) * dims + j] =
            static_cast<float>(sums[static_cast<size_t>(c) * dims + j] / counts[c]);
      }
    }
  }
  result.centroids = std::move(centroids);
  return result;
}

}  // namespace

Clustering KMeans(std::span<const float> points, int dims, int k, uint64_t seed, int restarts,
                  int max_iterations) {
  const int n = dims > 0 ? static_cast<int>(points.size() / dims) : 0;
  if (k < 1 || k > n) {
    throw std::invalid_argument("k-means needs 1 <= k <= points, got k=" + std::to_string(k) +
                                " for " + std::to_string(n) + " points");
  }
  Random rng(seed);
  Clustering best;
  best.inertia = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(1, restarts); ++r) {
    Clustering c = Lloyd(points, dims, SeedCentroids(points, dims, k, rng), k, max_iterations);
    if (c.inertia < best.inertia) best = std::move(c);
  }
  return best;
}

double Silhouette(std::span<const float> points, int dims, std::span<const int> labels, int k,
                  int max_points, uint64_t seed) {
  const int n = static_cast<int>(labels.size());
  std::vector<int> sample(n);
  std::iota(sample.begin(), sample.end(), 0);
  if (n > max_points) {
    Random rng(seed);
    for (int i = 0; i < max_points; ++i) {
      int j = i + static_cast<int>(rng.Uniform() * (n - i));
      std::swap(sample[i], sample[j]);
    }
    sample.resize(max_points);
  }
  std::vector<double> distance_sum(k);
  std::vector<int> count(k);
  for (int i : sample) ++count[labels[i]];
  double total = 0.0;
  for (int i : sample) {
    std::fill(distance_sum.begin(), distance_sum.end(), 0.0);
    for (int j : sample) {
      if (j == i) continue;
      distance_sum[labels[j]] += std::sqrt(Distance2(&points[static_cast<size_t>(i) * dims],
                                                     &points[static_cast<size_t>(j) * dims], dims));
    }
    int own = labels[i];
    if (count[own] <= 1) continue;  // a singleton's silhouette is 0 by convention
    double a = distance_sum[own] / (count[own] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (int c = 0; c < k; ++c) {
      if (c != own && count[c] > 0) b = std::min(b, distance_sum[c] / count[c]);
    }
    if (std::isinf(b)) continue;
    double denominator = std::max(a, b);
    if (denominator > 0.0) total += (b - a) / denominator;
  }
  return sample.empty() ? 0.0 : total / static_cast<double>(sample.size());
}

Clustering ChooseClusters(std::span<const float> points, int dims, int max_k, uint64_t seed,
                          int silhouette_sample) {
  const int n = dims > 0 ? static_cast<int>(points.size() / dims) : 0;
  if (n == 0) return Clustering{};
  if (n < 4) {
    // Too few points for a silhouette: distinct points are separate classes.
    Clustering c;
    c.labels.assign(n, -1);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < i && c.labels[i] < 0; ++j) {
        if (Distance2(&points[static_cast<size_t>(i) * dims],
                      &points[static_cast<size_t>(j) * dims], dims) == 0.0) {
          c.labels[i] = c.labels[j];
        }
      }
      if (c.labels[i] < 0) c.labels[i] = c.k++;
    }
    c.centroids.assign(static_cast<size_t>(c.k) * dims, 0.0f);
    std::vector<int> members(c.k);
    for (int i = 0; i < n; ++i) {
      ++members[c.labels[i]];
      for (int j = 0; j < dims; ++j) {
        c.centroids[static_cast<size_t>(c.labels[i]) * dims + j] +=
            points[static_cast<size_t>(i) * dims + j];
      }
    }
    for (int l = 0; l < c.k; ++l) {
      for (int j = 0; j < dims; ++j) c.centroids[static_cast<size_t>(l) * dims + j] /= members[l];
    }
    c.criterion = "fewer than 4 applications: each distinct application is its own class";
    return c;
  }
  Clustering best;
  best.silhouette = -2.0;
  std::string scores;
  for (int k = 2; k <= std::min(max_k, n - 1); ++k) {
    Clustering c = KMeans(points, dims, k, seed + static_cast<uint64_t>(k));
    c.silhouette = Silhouette(points, dims, c.labels, k, silhouette_sample, seed);
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%sk=%d:%.3f", scores.empty() ? "" : " ", k, c.silhouette);
    scores += buffer;
    if (c.silhouette > best.silhouette + 1e-9) best = std::move(c);
  }
  char buffer[160];
  if (best.silhouette < 0.25) {
    Clustering one = KMeans(points, dims, 1, seed);
    std::snprintf(buffer, sizeof buffer,
                  "silhouette over k-means++ (seed %llu): best %.3f < 0.25, so one class; ",
                  static_cast<unsigned long long>(seed), best.silhouette);
    one.criterion = buffer + scores;
    return one;
  }
  std::snprintf(buffer, sizeof buffer, "silhouette over k-means++ (seed %llu): k=%d (%.3f); ",
                static_cast<unsigned long long>(seed), best.k, best.silhouette);
  best.criterion = buffer + scores;
  return best;
}

double AdjustedRandIndex(std::span<const int> a, std::span<const int> b) {
  if (a.size() != b.size()) throw std::invalid_argument("labelings of different sizes");
  const double n = static_cast<double>(a.size());
  if (a.size() < 2) return 1.0;
  std::map<std::pair<int, int>, double> joint;
  std::map<int, double> rows, cols;
  for (size_t i = 0; i < a.size(); ++i) {
    joint[{a[i], b[i]}] += 1;
    rows[a[i]] += 1;
    cols[b[i]] += 1;
  }
  auto pairs = [](double x) { return x * (x - 1) / 2; };
  double index = 0, sum_rows = 0, sum_cols = 0;
  for (const auto& [key, count] : joint) index += pairs(count);
  for (const auto& [key, count] : rows) sum_rows += pairs(count);
  for (const auto& [key, count] : cols) sum_cols += pairs(count);
  double expected = sum_rows * sum_cols / pairs(n);
  double maximum = (sum_rows + sum_cols) / 2;
  if (maximum == expected) return 1.0;
  return (index - expected) / (maximum - expected);
}

}  // namespace archimedes
