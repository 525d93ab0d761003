#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "profile/profile.h"
#include "profile/profiler.h"
#include "profile/synthetic_history.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("archimedes_profiles_" + name)).string();
}

TEST(ProfileIoTest, SaveAndLoadRoundTrip) {
  testing::SyntheticParams params;
  params.apps = 20;
  params.days = 3;
  params.anomalies_per_kind = 1;
  Profiler profiler;
  profiler.SetRequest("daytime-000", {4000, 8e9, 1e8, 1e8, 0});
  testing::GenerateSyntheticHistory(
      params,
      [&](int64_t t, const std::string& app, const std::string& container,
          const std::array<float, kNumDims>& usage) { profiler.Add(t, app, container, usage); });
  ProfileSet saved = profiler.Finish();
  std::string path = TempPath("roundtrip.json");
  SaveProfiles(saved, path);
  ProfileSet loaded = LoadProfiles(path);

  ASSERT_EQ(loaded.apps.size(), saved.apps.size());
  EXPECT_EQ(loaded.classes.size(), saved.classes.size());
  EXPECT_EQ(loaded.complementarity.size(), saved.complementarity.size());
  EXPECT_EQ(loaded.hints.size(), saved.hints.size());
  EXPECT_EQ(loaded.warnings.size(), saved.warnings.size());
  EXPECT_EQ(loaded.class_criterion, saved.class_criterion);
  const AppProfile* a = loaded.Find("daytime-000");
  const AppProfile* b = saved.Find("daytime-000");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->has_request);
  EXPECT_EQ(a->class_id, b->class_id);
  for (int d = 0; d < kProfileDims; ++d) {
    for (int bin = 0; bin < loaded.bins; ++bin) {
      EXPECT_FLOAT_EQ(a->mean[d][bin], b->mean[d][bin]);
      EXPECT_FLOAT_EQ(a->high[d][bin], b->high[d][bin]);
    }
    EXPECT_NEAR(a->recommended[d], b->recommended[d], 1e-6 * b->recommended[d]);
  }
  EXPECT_EQ(a->mean[static_cast<int>(Dim::kGpu)].bins(), loaded.bins);
  ASSERT_NE(loaded.Find("night-001"), nullptr);
  EXPECT_FALSE(loaded.Find("night-001")->has_request);
}

TEST(ProfileIoTest, BadFilesNameTheProblem) {
  std::string path = TempPath("bad.json");
  std::ofstream(path) << R"({"format": "archimedes-profiles", "version": 1, "bins": 7})";
  try {
    LoadProfiles(path);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("$.bins"), std::string::npos) << e.what();
  }
  std::ofstream(path, std::ios::trunc) << "{";
  EXPECT_THROW(LoadProfiles(path), TraceError);
  EXPECT_THROW(LoadProfiles(TempPath("missing.json")), TraceError);
}

}  // namespace
}  // namespace archimedes
