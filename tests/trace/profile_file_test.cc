#include "trace/profile_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "profile/profiler.h"
#include "profile/synthetic_history.h"
#include "trace/json_reader.h"

namespace archimedes {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("archimedes_profiles_" + name)).string();
}

TEST(ProfileFileTest, SaveAndLoadRoundTrip) {
  testing::SyntheticParams params;
  params.apps = 20;
  params.days = 3;
  params.anomalies_per_kind = 1;
  Profiler profiler;
  profiler.SetRequest("daytime-000", {4000, 8e9, 1e8, 1e8, 0});
  // A memory limit far too low and a tiny fleet: both bounds are saved with what was needed.
  profiler.SetLimit("daytime-000", {0, 1e6, 0, 0, 0});
  profiler.SetLargestNode({100, 0, 0, 0, 0});
  testing::GenerateSyntheticHistory(
      params,
      [&](int64_t t, const std::string& app, const std::string& container,
          const std::array<float, kNumDims>& usage) { profiler.Add(t, app, container, usage); });
  ProfileSet saved = profiler.Finish();
  std::string path = TempPath("roundtrip.json");
  WriteProfilesFile(saved, path);
  ProfileSet loaded = ReadProfilesFile(path);

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
    EXPECT_EQ(a->bound[d], b->bound[d]);
    EXPECT_NEAR(a->needed[d], b->needed[d], 1e-6 * b->needed[d]);
  }
  EXPECT_EQ(a->bound[static_cast<int>(Dim::kCpu)], AdviceBound::kNode);
  EXPECT_EQ(a->bound[static_cast<int>(Dim::kMemory)], AdviceBound::kLimit);
  EXPECT_EQ(a->bound[static_cast<int>(Dim::kDisk)], AdviceBound::kNone);
  EXPECT_EQ(a->mean[static_cast<int>(Dim::kGpu)].bins(), loaded.bins);
  ASSERT_NE(loaded.Find("night-001"), nullptr);
  EXPECT_FALSE(loaded.Find("night-001")->has_request);
  // Written application by application, the file is the document ProfilesJson makes, to the byte.
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, ProfilesJson(saved).dump() + "\n");
}

// The message of the TraceError `f` throws, or "no error".
std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProfileFileTest, BadFilesNameTheProblem) {
  const std::string path = TempPath("bad.json");
  auto error = [&](const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
    return ErrorOf([&] { ReadProfilesFile(path); });
  };
  EXPECT_EQ(error(R"({"format": "archimedes-profiles", "version": 1, "bins": 7})"),
            path + ": bins: must divide 86400, got 7");
  EXPECT_EQ(error(R"({"format": "archimedes-profiles", "version": 2})"),
            path + ": version: unsupported version 2 (expected 1)");
  EXPECT_EQ(error(R"({"format": "other"})"),
            path + ": format: expected \"archimedes-profiles\", got string \"other\"");
  EXPECT_THAT(error(R"({"format": "archimedes-profiles", "version": 1, "bins": "288"})"),
              ::testing::HasSubstr(": bins: expected a whole number, got string \"288\""));
  EXPECT_THAT(error("{"), ::testing::HasSubstr("malformed JSON"));
  EXPECT_THAT(ErrorOf([] { ReadProfilesFile(TempPath("missing.json")); }),
              ::testing::HasSubstr("missing.json: no such file"));
}

// A profiles file written from four synthetic applications; Error(edit) writes it with `edit`
// applied and returns what reading it says ("no error" when it reads).
class EditedProfiles {
 public:
  explicit EditedProfiles(const std::string& name) : path_(TempPath(name)) {
    testing::SyntheticParams params;
    params.apps = 4;
    params.days = 1;
    Profiler profiler;
    testing::GenerateSyntheticHistory(
        params,
        [&](int64_t t, const std::string& app, const std::string& container,
            const std::array<float, kNumDims>& usage) { profiler.Add(t, app, container, usage); });
    WriteProfilesFile(profiler.Finish(), path_);
    written_ = ReadJsonFile(path_);
  }

  std::string Error(const std::function<void(nlohmann::json&)>& edit) const {
    nlohmann::json doc = written_;
    edit(doc);
    std::ofstream(path_, std::ios::trunc) << doc.dump();
    return ErrorOf([&] { ReadProfilesFile(path_); });
  }
  const nlohmann::json& written() const { return written_; }

 private:
  std::string path_;
  nlohmann::json written_;
};

TEST(ProfileFileTest, EveryKeyIsCheckedWithItsPath) {
  const EditedProfiles edited("strict.json");
  auto error = [&](const std::function<void(nlohmann::json&)>& edit) { return edited.Error(edit); };
  EXPECT_EQ(error([](nlohmann::json&) {}), "no error");
  EXPECT_THAT(error([](nlohmann::json& d) { d["applications"][1]["features"]["dutty"] = 1; }),
              ::testing::HasSubstr("applications[1].features.dutty: unknown key \"dutty\"; did "
                                   "you mean \"duty\"?"));
  EXPECT_THAT(error([](nlohmann::json& d) { d["applications"][0]["mean"]["cpu"].erase(0); }),
              ::testing::HasSubstr("applications[0].mean.cpu: expected 288 values, found 287"));
  EXPECT_THAT(error([](nlohmann::json& d) { d["applications"][0]["high"]["memory"][5] = "x"; }),
              ::testing::HasSubstr("applications[0].high.memory[5]: expected a number"));
  EXPECT_THAT(error([](nlohmann::json& d) { d["applications"][2]["class"] = 99; }),
              ::testing::HasSubstr("applications[2].class: no class with id 99"));
  EXPECT_THAT(
      error([](nlohmann::json& d) { d["applications"][3]["app"] = d["applications"][0]["app"]; }),
      ::testing::HasSubstr("applications[3]: application"));
  EXPECT_THAT(error([](nlohmann::json& d) { d["classes"][0].erase("level"); }),
              ::testing::HasSubstr("classes[0]: missing required key \"level\""));
}

// Issue 19: a class id of 2147483647 in `complementarity` crashed the scheduler (its table is
// indexed by id), 100000 exhausted memory and 20000 took 3.1 GB; an id must be one of the classes',
// each within [0, 1023]. And a number beyond a float's range became infinity.
TEST(ProfileFileTest, ClassIdsAndNumbersAreChecked) {
  const EditedProfiles edited("class-ids.json");
  auto error = [&](const std::function<void(nlohmann::json&)>& edit) { return edited.Error(edit); };
  auto pair = [](int a, int b) {
    return nlohmann::json{
        {"a", a},
        {"b", b},
        {"peak_reduction", {{"cpu", 0}, {"memory", 0}, {"disk", 0}, {"network", 0}}},
        {"score", 0.5}};
  };
  const int id = edited.written()["classes"][0]["id"];
  for (int bad : {2147483647, 100000, 20000}) {
    EXPECT_THAT(error([&](nlohmann::json& d) {
                  d["complementarity"] = nlohmann::json::array({pair(bad, id)});
                }),
                ::testing::HasSubstr("complementarity[0].a: " + std::to_string(bad) +
                                     " is above the maximum 1023"));
  }
  EXPECT_THAT(error([&](nlohmann::json& d) {
                d["complementarity"] = nlohmann::json::array({pair(id, 1000)});
              }),
              ::testing::HasSubstr("complementarity[0].b: no class with id 1000"));
  EXPECT_THAT(error([&](nlohmann::json& d) { d["classes"].push_back(d["classes"][0]); }),
              ::testing::HasSubstr("appears twice"));
  EXPECT_THAT(error([](nlohmann::json& d) { d["applications"][0]["mean"]["cpu"][0] = 1e300; }),
              ::testing::HasSubstr("applications[0].mean.cpu[0]: 1e+300 is above the maximum"));
}

}  // namespace
}  // namespace archimedes
