// Complementarity of classes (DESIGN §1.1, §4): for every pair of classes, how much co-locating a
// typical member of each lowers the peak, per dimension:
//
//   peak_reduction_d = 1 − max_t(a_d(t) + b_d(t)) ÷ (max_t a_d(t) + max_t b_d(t))
//
// where a_d, b_d are the classes' high-quantile shapes scaled by their median level. The pair's
// score is the mean over the dimensions both classes use. Hints follow from the table:
//
//   affinity       score ≥ kAffinityScore, or one dimension's peak_reduction ≥ kAffinityReduction:
//                  their peaks fall at different hours or dimensions
//   anti-affinity  some dimension where both have a pronounced peak (peak ≥ kPeakyRatio × mean of
//                  the shape) and co-locating them lowers it by less than kAntiAffinityReduction:
//                  their peaks stack
#ifndef ARCHIMEDES_PROFILE_COMPLEMENTARITY_H_
#define ARCHIMEDES_PROFILE_COMPLEMENTARITY_H_

#include <vector>

#include "profile/profile.h"

namespace archimedes {

inline constexpr float kAffinityScore = 0.10f;
inline constexpr float kAffinityReduction = 0.20f;
inline constexpr float kAntiAffinityReduction = 0.03f;
inline constexpr float kPeakyRatio = 1.3f;

ClassPair Complementarity(const ProfileClass& a, const ProfileClass& b);

// Every pair a ≤ b, diagonal included (two members of one class).
std::vector<ClassPair> ComplementarityTable(const std::vector<ProfileClass>& classes);

std::vector<PlacementHint> PlacementHints(const std::vector<ProfileClass>& classes,
                                          const std::vector<ClassPair>& table);

}  // namespace archimedes

#endif  // ARCHIMEDES_PROFILE_COMPLEMENTARITY_H_
