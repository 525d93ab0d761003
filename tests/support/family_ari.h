// How well profile classes recover known application families: the adjusted Rand index of the
// classes against the families, and a printout of each class's family mix.
#ifndef ARCHIMEDES_TESTS_SUPPORT_FAMILY_ARI_H_
#define ARCHIMEDES_TESTS_SUPPORT_FAMILY_ARI_H_

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "profile/clustering.h"
#include "profile/profile.h"

namespace archimedes::testing {

// The adjusted Rand index of `set`'s classes against the families `family` maps apps to.
inline double FamilyAri(const ProfileSet& set, std::string_view (*family)(std::string_view)) {
  std::map<std::string, int> family_ids;
  std::vector<int> truth, found;
  for (const AppProfile& p : set.apps) {
    auto [it, inserted] = family_ids.try_emplace(std::string(family(p.app)), family_ids.size());
    truth.push_back(it->second);
    found.push_back(p.class_id);
  }
  return AdjustedRandIndex(truth, found);
}

// The family of an app named "<family>-<n>".
inline std::string_view PrefixFamily(std::string_view name) {
  return name.substr(0, name.find('-'));
}

// Prints each class with the families of its members.
inline void PrintClasses(const ProfileSet& set) {
  for (const ProfileClass& c : set.classes) {
    std::map<std::string, int> families;
    for (const AppProfile& p : set.apps) {
      if (p.class_id == c.id) ++families[std::string(PrefixFamily(p.app))];
    }
    std::string mix;
    for (const auto& [f, n] : families) mix += " " + f + ":" + std::to_string(n);
    std::printf("  class %d (%d apps) %s |%s\n", c.id, c.members, c.description.c_str(),
                mix.c_str());
  }
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SUPPORT_FAMILY_ARI_H_
