#include "profile/profile.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "trace/trace_error.h"

namespace archimedes {

namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

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

// Reading: every accessor names the JSON path of what it found wrong.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const std::string& where, const std::string& what) const {
    throw TraceError(path_, 0, where + ": " + what);
  }

  const json& Field(const json& object, const std::string& key, const std::string& where) const {
    if (!object.is_object()) Fail(where, "expected an object");
    auto it = object.find(key);
    if (it == object.end()) Fail(where, "missing key \"" + key + "\"");
    return *it;
  }

  double Number(const json& object, const std::string& key, const std::string& where) const {
    const json& v = Field(object, key, where);
    if (!v.is_number()) Fail(where + "." + key, "expected a number");
    return v.get<double>();
  }

  int64_t Integer(const json& object, const std::string& key, const std::string& where) const {
    const json& v = Field(object, key, where);
    if (!v.is_number_integer()) Fail(where + "." + key, "expected an integer");
    return v.get<int64_t>();
  }

  std::string String(const json& object, const std::string& key, const std::string& where) const {
    const json& v = Field(object, key, where);
    if (!v.is_string()) Fail(where + "." + key, "expected a string");
    return v.get<std::string>();
  }

  const json& Array(const json& object, const std::string& key, const std::string& where) const {
    const json& v = Field(object, key, where);
    if (!v.is_array()) Fail(where + "." + key, "expected an array");
    return v;
  }

  template <typename T>
  void Dims(const json& object, const std::string& key, const std::string& where, T& out) const {
    const json& dims = Field(object, key, where);
    for (int d = 0; d < kProfileDims; ++d) {
      out[d] = static_cast<typename T::value_type>(
          Number(dims, std::string(DimName(static_cast<Dim>(d))), where + "." + key));
    }
  }

  void Curves(const json& object, const std::string& key, const std::string& where, int bins,
              std::array<DailyCurve, kNumDims>& out) const {
    const json& curves = Field(object, key, where);
    for (int d = 0; d < kProfileDims; ++d) {
      std::string name(DimName(static_cast<Dim>(d)));
      const json& values = Array(curves, name, where + "." + key);
      if (static_cast<int>(values.size()) != bins) {
        Fail(where + "." + key + "." + name, "expected " + std::to_string(bins) +
                                                 " values, found " + std::to_string(values.size()));
      }
      std::vector<float> v(bins);
      for (int b = 0; b < bins; ++b) {
        if (!values[b].is_number()) Fail(where + "." + key + "." + name, "expected numbers");
        v[b] = values[b].get<float>();
      }
      out[d] = DailyCurve(std::move(v));
    }
    out[static_cast<int>(Dim::kGpu)] = DailyCurve(bins);
  }

 private:
  std::string path_;
};

template <typename Kind>
Kind ParseKind(const Reader& reader, const std::string& text, const std::string& where,
               std::initializer_list<Kind> kinds, std::string_view (*name)(Kind)) {
  for (Kind k : kinds) {
    if (name(k) == text) return k;
  }
  reader.Fail(where, "unknown kind \"" + text + "\"");
}

}  // namespace

std::string_view HintKindName(HintKind kind) {
  return kind == HintKind::kAffinity ? "affinity" : "anti-affinity";
}

std::string_view WarningKindName(WarningKind kind) {
  switch (kind) {
    case WarningKind::kMemoryLeak:
      return "memory-leak";
    case WarningKind::kCpuStuckHigh:
      return "cpu-stuck-high";
    case WarningKind::kDivergentReplica:
      return "divergent-replica";
  }
  return "unknown";
}

const AppProfile* ProfileSet::Find(std::string_view app) const {
  auto it =
      std::lower_bound(apps.begin(), apps.end(), app,
                       [](const AppProfile& p, std::string_view name) { return p.app < name; });
  return it != apps.end() && it->app == app ? &*it : nullptr;
}

const ProfileClass* ProfileSet::FindClass(int id) const {
  for (const ProfileClass& c : classes) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

void SaveProfiles(const ProfileSet& profiles, const std::string& path) {
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

  json apps = json::array();
  for (const AppProfile& a : profiles.apps) {
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
    apps.push_back(std::move(app));
  }
  doc["applications"] = std::move(apps);

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

  std::ofstream out(path);
  if (!out) throw TraceError(path, 0, "cannot create file");
  out << doc.dump() << '\n';
  if (!out) throw TraceError(path, 0, "write failed");
}

ProfileSet LoadProfiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TraceError(path, 0, "cannot open file");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw TraceError(path, 0, std::string("malformed JSON: ") + e.what());
  }
  Reader r(path);
  if (r.String(doc, "format", "$") != "archimedes-profiles") {
    r.Fail("$.format", "expected \"archimedes-profiles\"");
  }
  if (r.Integer(doc, "version", "$") != kFormatVersion) {
    r.Fail("$.version", "unsupported version (expected " + std::to_string(kFormatVersion) + ")");
  }
  ProfileSet set;
  set.bins = static_cast<int>(r.Integer(doc, "bins", "$"));
  if (set.bins <= 0 || kSecondsPerDay % set.bins != 0) {
    r.Fail("$.bins", "must divide 86400, got " + std::to_string(set.bins));
  }
  set.high_quantile = r.Number(doc, "high_quantile", "$");
  const json& normalized = r.Field(doc, "normalized", "$");
  if (!normalized.is_boolean()) r.Fail("$.normalized", "expected true or false");
  set.normalized = normalized.get<bool>();
  set.class_criterion = r.String(doc, "class_criterion", "$");
  r.Dims(doc, "freed", "$", set.freed);

  const json& classes = r.Array(doc, "classes", "$");
  for (size_t i = 0; i < classes.size(); ++i) {
    std::string where = "$.classes[" + std::to_string(i) + "]";
    ProfileClass c;
    c.id = static_cast<int>(r.Integer(classes[i], "id", where));
    c.description = r.String(classes[i], "description", where);
    c.members = static_cast<int>(r.Integer(classes[i], "members", where));
    r.Dims(classes[i], "level", where, c.level);
    for (const json& v : r.Array(classes[i], "centroid", where)) {
      if (!v.is_number()) r.Fail(where + ".centroid", "expected numbers");
      c.centroid.push_back(v.get<float>());
    }
    r.Curves(classes[i], "mean_shape", where, set.bins, c.mean_shape);
    r.Curves(classes[i], "high_shape", where, set.bins, c.high_shape);
    set.classes.push_back(std::move(c));
  }

  const json& pairs = r.Array(doc, "complementarity", "$");
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::string where = "$.complementarity[" + std::to_string(i) + "]";
    ClassPair p;
    p.a = static_cast<int>(r.Integer(pairs[i], "a", where));
    p.b = static_cast<int>(r.Integer(pairs[i], "b", where));
    r.Dims(pairs[i], "peak_reduction", where, p.peak_reduction);
    p.score = static_cast<float>(r.Number(pairs[i], "score", where));
    set.complementarity.push_back(p);
  }

  const json& hints = r.Array(doc, "hints", "$");
  for (size_t i = 0; i < hints.size(); ++i) {
    std::string where = "$.hints[" + std::to_string(i) + "]";
    PlacementHint h;
    h.a = static_cast<int>(r.Integer(hints[i], "a", where));
    h.b = static_cast<int>(r.Integer(hints[i], "b", where));
    h.kind = ParseKind(r, r.String(hints[i], "kind", where), where + ".kind",
                       {HintKind::kAffinity, HintKind::kAntiAffinity}, &HintKindName);
    h.score = static_cast<float>(r.Number(hints[i], "score", where));
    h.reason = r.String(hints[i], "reason", where);
    set.hints.push_back(std::move(h));
  }

  const json& apps = r.Array(doc, "applications", "$");
  for (size_t i = 0; i < apps.size(); ++i) {
    std::string where = "$.applications[" + std::to_string(i) + "]";
    const json& j = apps[i];
    AppProfile a;
    a.app = r.String(j, "app", where);
    a.class_id = static_cast<int>(r.Integer(j, "class", where));
    a.containers = static_cast<int>(r.Integer(j, "containers", where));
    a.samples = r.Integer(j, "samples", where);
    a.days = static_cast<int>(r.Integer(j, "days", where));
    a.replicas = static_cast<int>(r.Integer(j, "replicas", where));
    r.Dims(j, "peak", where, a.peak);
    r.Dims(j, "recommended", where, a.recommended);
    if (j.contains("request")) {
      a.has_request = true;
      r.Dims(j, "request", where, a.request);
    }
    const json& f = r.Field(j, "features", where);
    std::string fw = where + ".features";
    r.Dims(f, "level", fw, a.features.level);
    r.Dims(f, "peak_to_mean", fw, a.features.peak_to_mean);
    r.Dims(f, "burstiness", fw, a.features.burstiness);
    r.Dims(f, "amplitude", fw, a.features.amplitude);
    r.Dims(f, "peak_hour", fw, a.features.peak_hour);
    r.Dims(f, "amplitude2", fw, a.features.amplitude2);
    r.Dims(f, "peak_hour2", fw, a.features.peak_hour2);
    r.Dims(f, "duty", fw, a.features.duty);
    r.Dims(f, "balance", fw, a.features.balance);
    r.Curves(j, "mean", where, set.bins, a.mean);
    r.Curves(j, "high", where, set.bins, a.high);
    if (set.FindClass(a.class_id) == nullptr) {
      r.Fail(where + ".class", "no class with id " + std::to_string(a.class_id));
    }
    set.apps.push_back(std::move(a));
  }
  std::sort(set.apps.begin(), set.apps.end(),
            [](const AppProfile& x, const AppProfile& y) { return x.app < y.app; });
  for (size_t i = 1; i < set.apps.size(); ++i) {
    if (set.apps[i].app == set.apps[i - 1].app) {
      r.Fail("$.applications", "application \"" + set.apps[i].app + "\" appears twice");
    }
  }

  const json& warnings = r.Array(doc, "warnings", "$");
  for (size_t i = 0; i < warnings.size(); ++i) {
    std::string where = "$.warnings[" + std::to_string(i) + "]";
    const json& j = warnings[i];
    HealthWarning w;
    w.app = r.String(j, "app", where);
    w.container = r.String(j, "container", where);
    w.kind = ParseKind(
        r, r.String(j, "kind", where), where + ".kind",
        {WarningKind::kMemoryLeak, WarningKind::kCpuStuckHigh, WarningKind::kDivergentReplica},
        &WarningKindName);
    std::optional<Dim> dim = ParseDim(r.String(j, "dim", where));
    if (!dim) r.Fail(where + ".dim", "unknown dimension");
    w.dim = *dim;
    w.time = r.Integer(j, "time", where);
    w.lead_time_s = r.Integer(j, "lead_time_s", where);
    w.value = static_cast<float>(r.Number(j, "value", where));
    w.expected = static_cast<float>(r.Number(j, "expected", where));
    w.detail = r.String(j, "detail", where);
    set.warnings.push_back(std::move(w));
  }
  return set;
}

}  // namespace archimedes
