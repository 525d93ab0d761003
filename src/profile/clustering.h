// Clustering of application feature vectors into classes whose number is chosen from the data.
//
// Points are rows of a row-major n × dims float matrix. KMeans is Lloyd's algorithm with k-means++
// seeding, restarted a few times (the lowest within-cluster sum of squares wins); everything is
// drawn from a Random (model/random.h) seeded with `seed`, so a seed gives the same labels on every
// run.
//
// ChooseClusters tries k = 2 … max_k and keeps the k with the highest mean silhouette (computed on
// at most `silhouette_sample` points, drawn deterministically, to stay O(sample² · dims)). When
// even the best silhouette is below 0.25 — the conventional "no substantial structure" bound of
// Kaufman & Rousseeuw — the data is one class; with fewer than 4 points every point is its own
// class when they are distinct.
#ifndef ARCHIMEDES_PROFILE_CLUSTERING_H_
#define ARCHIMEDES_PROFILE_CLUSTERING_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace archimedes {

struct Clustering {
  int k = 0;
  std::vector<int> labels;       // per point, in [0, k)
  std::vector<float> centroids;  // k × dims, row-major
  double inertia = 0.0;          // within-cluster sum of squared distances
  double silhouette = 0.0;       // mean silhouette of the chosen k (0 when k == 1)
  std::string criterion;         // how k was chosen, for reports
};

Clustering KMeans(std::span<const float> points, int dims, int k, uint64_t seed, int restarts = 4,
                  int max_iterations = 100);

// Mean silhouette of `labels` (k clusters), over a deterministic sample of at most `max_points`.
double Silhouette(std::span<const float> points, int dims, std::span<const int> labels, int k,
                  int max_points, uint64_t seed);

Clustering ChooseClusters(std::span<const float> points, int dims, int max_k, uint64_t seed,
                          int silhouette_sample = 2000);

// Adjusted Rand index of two labelings of the same points (Hubert & Arabie): 1 = identical
// partitions, about 0 = chance agreement.
double AdjustedRandIndex(std::span<const int> a, std::span<const int> b);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_CLUSTERING_H_
