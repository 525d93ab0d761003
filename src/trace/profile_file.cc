#include "trace/profile_file.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "model/limits.h"
#include "trace/json_reader.h"
#include "trace/output_file.h"

namespace archimedes {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

// Writing.

// Float → the double that prints as the float's shortest text, so files hold "0.1", not
// "0.10000000149011612".
double Short(float v) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  double d = 0;
  std::from_chars(buffer, end, d);
  return d;
}

json CurveJson(const DailyCurve& curve) {
  json values = json::array();
  values.get_ref<json::array_t&>().reserve(curve.bins());
  for (float v : curve.values()) values.push_back(Short(v));
  return values;
}

template <typename T>
json DimsJson(const T& values) {
  json object = json::object();
  for (int d = 0; d < kProfileDims; ++d) {
    object[std::string(DimName(static_cast<Dim>(d)))] = Short(static_cast<float>(values[d]));
  }
  return object;
}

json CurvesJson(const std::array<DailyCurve, kNumDims>& curves) {
  json object = json::object();
  for (int d = 0; d < kProfileDims; ++d) {
    object[std::string(DimName(static_cast<Dim>(d)))] = CurveJson(curves[d]);
  }
  return object;
}

// Reading.

// Every number of the file — amounts, features, scores — is within ±kMaxResourceAmount, so that it
// stays finite as a float and squared.
constexpr double kMaxMagnitude = static_cast<double>(kMaxResourceAmount);

double ReadNumber(const JsonValue& v) { return v.Number(-kMaxMagnitude, kMaxMagnitude); }

// A class id, or a reference to one (checked against the classes by the caller).
int ReadClassId(const JsonValue& v) { return v.Int(0, kMaxClassId); }

// One number per profiled dimension.
template <typename T>
void ReadDims(const JsonValue& v, T& out) {
  JsonObject o(v);
  for (int d = 0; d < kProfileDims; ++d) {
    out[d] = static_cast<typename T::value_type>(
        ReadNumber(o.Require(std::string(DimName(static_cast<Dim>(d))))));
  }
  o.RejectUnknownKeys();
}

// The numbers of an array, each within ±kMaxMagnitude.
std::vector<float> ReadFloats(const JsonValue& v) {
  std::vector<float> out;
  for (const JsonValue& e : v.Elements()) out.push_back(static_cast<float>(ReadNumber(e)));
  return out;
}

// One curve of `bins` values per profiled dimension; GPU's is zero.
void ReadCurves(const JsonValue& v, int bins, std::array<DailyCurve, kNumDims>& out) {
  JsonObject o(v);
  for (int d = 0; d < kProfileDims; ++d) {
    const JsonValue series = o.Require(std::string(DimName(static_cast<Dim>(d))));
    std::vector<float> values = ReadFloats(series);
    if (std::ssize(values) != bins) {
      series.Fail("expected " + std::to_string(bins) + " values, found " +
                  std::to_string(values.size()));
    }
    out[d] = DailyCurve(std::move(values));
  }
  out[static_cast<int>(Dim::kGpu)] = DailyCurve(bins);
  o.RejectUnknownKeys();
}

template <typename Kind>
Kind ReadKind(const JsonValue& v, std::initializer_list<Kind> kinds,
              std::string_view (*name)(Kind)) {
  const std::string text = v.String();
  std::string known;
  for (Kind k : kinds) {
    if (name(k) == text) return k;
    known += (known.empty() ? "" : ", ") + std::string(name(k));
  }
  v.Fail("unknown kind \"" + text + "\"; expected one of " + known);
}

ProfileClass ReadClass(const JsonValue& v, int bins) {
  JsonObject o(v);
  ProfileClass c;
  c.id = ReadClassId(o.Require("id"));
  c.description = o.Require("description").String();
  c.members = o.Require("members").Int(0);
  ReadDims(o.Require("level"), c.level);
  c.centroid = ReadFloats(o.Require("centroid"));
  ReadCurves(o.Require("mean_shape"), bins, c.mean_shape);
  ReadCurves(o.Require("high_shape"), bins, c.high_shape);
  o.RejectUnknownKeys();
  return c;
}

// The class `v` names, which must be one of `set`'s.
int ReadClassReference(const JsonValue& v, const ProfileSet& set) {
  const int id = ReadClassId(v);
  if (set.FindClass(id) == nullptr) v.Fail("no class with id " + std::to_string(id));
  return id;
}

ClassPair ReadPair(const JsonValue& v, const ProfileSet& set) {
  JsonObject o(v);
  ClassPair p;
  p.a = ReadClassReference(o.Require("a"), set);
  p.b = ReadClassReference(o.Require("b"), set);
  ReadDims(o.Require("peak_reduction"), p.peak_reduction);
  p.score = static_cast<float>(ReadNumber(o.Require("score")));
  o.RejectUnknownKeys();
  return p;
}

PlacementHint ReadHint(const JsonValue& v, const ProfileSet& set) {
  JsonObject o(v);
  PlacementHint h;
  h.a = ReadClassReference(o.Require("a"), set);
  h.b = ReadClassReference(o.Require("b"), set);
  h.kind =
      ReadKind(o.Require("kind"), {HintKind::kAffinity, HintKind::kAntiAffinity}, &HintKindName);
  h.score = static_cast<float>(ReadNumber(o.Require("score")));
  h.reason = o.Require("reason").String();
  o.RejectUnknownKeys();
  return h;
}

AppProfile ReadApp(const JsonValue& v, const ProfileSet& set) {
  JsonObject o(v);
  AppProfile a;
  a.app = o.Require("app").String();
  a.class_id = ReadClassReference(o.Require("class"), set);
  a.containers = o.Require("containers").Int(0);
  a.samples = o.Require("samples").Integer(0);
  a.days = o.Require("days").Int(0, kMaxDays);
  a.replicas = o.Require("replicas").Int(0, kMaxReplicas);
  ReadDims(o.Require("peak"), a.peak);
  ReadDims(o.Require("recommended"), a.recommended);
  if (std::optional<JsonValue> request = o.Find("request")) {
    a.has_request = true;
    ReadDims(*request, a.request);
  }
  a.needed = a.recommended;
  if (std::optional<JsonValue> bounded = o.Find("bounded")) {
    JsonObject dims(*bounded);
    for (int d = 0; d < kProfileDims; ++d) {
      std::optional<JsonValue> dim = dims.Find(std::string(DimName(static_cast<Dim>(d))));
      if (!dim) continue;
      JsonObject bound(*dim);
      a.bound[d] = ReadKind(bound.Require("by"), {AdviceBound::kLimit, AdviceBound::kNode},
                            &AdviceBoundName);
      a.needed[d] = bound.Require("needed").Number();
      bound.RejectUnknownKeys();
    }
    dims.RejectUnknownKeys();
  }
  JsonObject f(o.Require("features"));
  AppFeatures& features = a.features;
  ReadDims(f.Require("level"), features.level);
  ReadDims(f.Require("peak_to_mean"), features.peak_to_mean);
  ReadDims(f.Require("burstiness"), features.burstiness);
  ReadDims(f.Require("amplitude"), features.amplitude);
  ReadDims(f.Require("peak_hour"), features.peak_hour);
  ReadDims(f.Require("amplitude2"), features.amplitude2);
  ReadDims(f.Require("peak_hour2"), features.peak_hour2);
  ReadDims(f.Require("duty"), features.duty);
  ReadDims(f.Require("balance"), features.balance);
  f.RejectUnknownKeys();
  ReadCurves(o.Require("mean"), set.bins, a.mean);
  ReadCurves(o.Require("high"), set.bins, a.high);
  o.RejectUnknownKeys();
  return a;
}

HealthWarning ReadWarning(const JsonValue& v) {
  JsonObject o(v);
  HealthWarning w;
  w.app = o.Require("app").String();
  w.container = o.Require("container").String();
  w.kind = ReadKind(
      o.Require("kind"),
      {WarningKind::kMemoryLeak, WarningKind::kCpuStuckHigh, WarningKind::kDivergentReplica},
      &WarningKindName);
  const JsonValue dim = o.Require("dim");
  std::optional<Dim> parsed = ParseDim(dim.String());
  if (!parsed) dim.Fail("unknown dimension \"" + dim.String() + "\"");
  w.dim = *parsed;
  w.time = o.Require("time").Integer();
  w.lead_time_s = o.Require("lead_time_s").Integer();
  w.value = static_cast<float>(ReadNumber(o.Require("value")));
  w.expected = static_cast<float>(ReadNumber(o.Require("expected")));
  w.detail = o.Require("detail").String();
  o.RejectUnknownKeys();
  return w;
}

ProfileSet ReadProfiles(const JsonValue& root) {
  JsonObject o(root);
  const JsonValue format = o.Require("format");
  if (format.String() != "archimedes-profiles") {
    format.Fail("expected \"archimedes-profiles\", got " + format.Describe());
  }
  const JsonValue version = o.Require("version");
  if (version.Integer() != kFormatVersion) {
    version.Fail("unsupported version " + std::to_string(version.Integer()) + " (expected " +
                 std::to_string(kFormatVersion) + ")");
  }
  ProfileSet set;
  const JsonValue bins = o.Require("bins");
  set.bins = bins.Int();
  if (set.bins <= 0 || kSecondsPerDay % set.bins != 0) {
    bins.Fail("must divide 86400, got " + std::to_string(set.bins));
  }
  set.high_quantile = o.Require("high_quantile").Number(0, 1);
  set.normalized = o.Require("normalized").Bool();
  set.class_criterion = o.Require("class_criterion").String();
  ReadDims(o.Require("freed"), set.freed);
  std::map<int, std::string> class_at;  // id → the path that defined it
  for (const JsonValue& c : o.Require("classes").Elements()) {
    set.classes.push_back(ReadClass(c, set.bins));
    auto [it, inserted] = class_at.emplace(set.classes.back().id, c.path());
    if (!inserted) {
      c.Fail("class id " + std::to_string(it->first) + " appears twice (first at " + it->second +
             ")");
    }
  }
  for (const JsonValue& p : o.Require("complementarity").Elements()) {
    set.complementarity.push_back(ReadPair(p, set));
  }
  for (const JsonValue& h : o.Require("hints").Elements()) set.hints.push_back(ReadHint(h, set));
  std::map<std::string, std::string> first_at;  // app → the path that named it first
  for (const JsonValue& a : o.Require("applications").Elements()) {
    set.apps.push_back(ReadApp(a, set));
    auto [it, inserted] = first_at.emplace(set.apps.back().app, a.path());
    if (!inserted) {
      a.Fail("application \"" + it->first + "\" appears twice (first at " + it->second + ")");
    }
  }
  std::sort(set.apps.begin(), set.apps.end(),
            [](const AppProfile& x, const AppProfile& y) { return x.app < y.app; });
  for (const JsonValue& w : o.Require("warnings").Elements()) {
    set.warnings.push_back(ReadWarning(w));
  }
  o.RejectUnknownKeys();
  return set;
}

json AppJson(const AppProfile& a) {
  const AppFeatures& f = a.features;
  json app = {{"app", a.app},
              {"class", a.class_id},
              {"containers", a.containers},
              {"samples", a.samples},
              {"days", a.days},
              {"replicas", a.replicas},
              {"peak", DimsJson(a.peak)},
              {"recommended", DimsJson(a.recommended)},
              {"features",
               {{"level", DimsJson(f.level)},
                {"peak_to_mean", DimsJson(f.peak_to_mean)},
                {"burstiness", DimsJson(f.burstiness)},
                {"amplitude", DimsJson(f.amplitude)},
                {"peak_hour", DimsJson(f.peak_hour)},
                {"amplitude2", DimsJson(f.amplitude2)},
                {"peak_hour2", DimsJson(f.peak_hour2)},
                {"duty", DimsJson(f.duty)},
                {"balance", DimsJson(f.balance)}}},
              {"mean", CurvesJson(a.mean)},
              {"high", CurvesJson(a.high)}};
  if (a.has_request) app["request"] = DimsJson(a.request);
  json bounded = json::object();
  for (int d = 0; d < kProfileDims; ++d) {
    if (a.bound[d] == AdviceBound::kNone) continue;
    bounded[std::string(DimName(static_cast<Dim>(d)))] = {
        {"by", AdviceBoundName(a.bound[d])}, {"needed", Short(static_cast<float>(a.needed[d]))}};
  }
  if (!bounded.empty()) app["bounded"] = std::move(bounded);
  return app;
}

// Everything but the applications.
json ProfilesJsonWithoutApps(const ProfileSet& profiles) {
  json doc;
  doc["format"] = "archimedes-profiles";
  doc["version"] = kFormatVersion;
  doc["bins"] = profiles.bins;
  doc["high_quantile"] = profiles.high_quantile;
  doc["normalized"] = profiles.normalized;
  doc["class_criterion"] = profiles.class_criterion;
  doc["freed"] = DimsJson(profiles.freed);

  json classes = json::array();
  for (const ProfileClass& c : profiles.classes) {
    classes.push_back({{"id", c.id},
                       {"description", c.description},
                       {"members", c.members},
                       {"level", DimsJson(c.level)},
                       {"centroid", c.centroid},
                       {"mean_shape", CurvesJson(c.mean_shape)},
                       {"high_shape", CurvesJson(c.high_shape)}});
  }
  doc["classes"] = std::move(classes);

  json pairs = json::array();
  for (const ClassPair& p : profiles.complementarity) {
    pairs.push_back({{"a", p.a},
                     {"b", p.b},
                     {"peak_reduction", DimsJson(p.peak_reduction)},
                     {"score", Short(p.score)}});
  }
  doc["complementarity"] = std::move(pairs);

  json hints = json::array();
  for (const PlacementHint& h : profiles.hints) {
    hints.push_back({{"a", h.a},
                     {"b", h.b},
                     {"kind", HintKindName(h.kind)},
                     {"score", Short(h.score)},
                     {"reason", h.reason}});
  }
  doc["hints"] = std::move(hints);

  json warnings = json::array();
  for (const HealthWarning& w : profiles.warnings) {
    warnings.push_back({{"app", w.app},
                        {"container", w.container},
                        {"kind", WarningKindName(w.kind)},
                        {"dim", DimName(w.dim)},
                        {"time", w.time},
                        {"lead_time_s", w.lead_time_s},
                        {"value", Short(w.value)},
                        {"expected", Short(w.expected)},
                        {"detail", w.detail}});
  }
  doc["warnings"] = std::move(warnings);
  return doc;
}

}  // namespace

nlohmann::json ProfilesJson(const ProfileSet& profiles) {
  json doc = ProfilesJsonWithoutApps(profiles);
  json apps = json::array();
  for (const AppProfile& a : profiles.apps) apps.push_back(AppJson(a));
  doc["applications"] = std::move(apps);
  return doc;
}

ProfileSet ReadProfilesFile(const std::string& path) {
  const json doc = ReadJsonFile(path);
  return ReadProfiles(JsonValue(path, doc));
}

ProfileSet ReadProfilesJson(const JsonValue& document) { return ReadProfiles(document); }

// The text of ProfilesJson(profiles) on one line, written as it is made: one application at a time
// as the document's first member (an object's keys are written sorted), since the whole document
// in memory takes several times the profiles' own size.
void WriteProfilesFile(const ProfileSet& profiles, const std::string& path) {
  AtomicOutputFile file(path);
  file.Write("{\"applications\":[");
  for (size_t i = 0; i < profiles.apps.size(); ++i) {
    if (i > 0) file.Write(",");
    file.Write(
        FormatJsonValue(AppJson(profiles.apps[i]), "applications[" + std::to_string(i) + "]"));
  }
  const std::string rest = FormatJsonDocument(ProfilesJsonWithoutApps(profiles), -1);
  static_assert(std::string_view("applications") < "bins");  // and every other key
  file.Write("],");
  file.Write(std::string_view(rest).substr(1));  // without its opening brace
  file.Commit();
}

}  // namespace archimedes
