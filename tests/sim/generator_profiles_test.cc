// The generator's service families, as the profiler sees them through the usage model: a week of
// usage recovers the families as classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "profile/profiler.h"
#include "sim/generator.h"
#include "sim/usage_model.h"
#include "support/family_ari.h"

namespace archimedes {
namespace {

using testing::FamilyAri;
using testing::PrintClasses;

TEST(GeneratorProfilesTest, ClassesRecoverGeneratorFamilies) {
  GeneratorParams params;
  params.nodes = 150;
  params.seed = 3;
  Scenario scenario = GenerateScenario(params);
  Profiler profiler;
  std::vector<std::vector<int>> ids(scenario.workload.services.size());
  for (size_t s = 0; s < scenario.workload.services.size(); ++s) {
    const Service& service = scenario.workload.services[s];
    for (int r = 0; r < std::min(service.replicas, 6); ++r) {
      ids[s].push_back(
          profiler.ContainerIndex(service.app, service.name + "-" + std::to_string(r)));
    }
  }
  for (int64_t t = 0; t < 7 * kSecondsPerDay; t += 300) {
    for (size_t s = 0; s < ids.size(); ++s) {
      for (size_t r = 0; r < ids[s].size(); ++r) {
        profiler.Add(ids[s][r], t,
                     ServiceReplicaUsage(scenario.workload.services[s], static_cast<int32_t>(s),
                                         static_cast<int32_t>(r), t, 11));
      }
    }
  }
  ProfileSet set = profiler.Finish();
  double ari = FamilyAri(set, &ServiceFamilyOf);
  std::printf("generator families (%zu services): %zu classes, ARI %.3f; %s\n", set.apps.size(),
              set.classes.size(), ari, set.class_criterion.c_str());
  PrintClasses(set);
  EXPECT_GE(ari, 0.9);
}

}  // namespace
}  // namespace archimedes
