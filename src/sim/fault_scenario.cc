#include "sim/fault_scenario.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>

#include "trace/native_format.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

using nlohmann::json;

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string FormatTime(int64_t seconds) {
  return seconds == kForever ? "forever" : FormatDuration(seconds);
}

// Reads one fault object; `fail` throws with the file and fault index prefixed.
class FaultReader {
 public:
  FaultReader(const json& object, const std::set<std::string>& nodes,
              const std::set<std::string>& pods, std::string where)
      : object_(object), nodes_(nodes), pods_(pods), where_(std::move(where)) {}

  Fault Read() const {
    if (!object_.is_object()) Fail("expected an object, got " + std::string(object_.type_name()));
    static const std::set<std::string> kKnownKeys = {"kind", "at",   "duration", "node",
                                                     "pod",  "link", "period",   "down"};
    for (const auto& [key, value] : object_.items()) {
      if (!kKnownKeys.count(key)) Fail("unknown field " + Quoted(key));
    }
    Fault f;
    const std::string kind = String("kind");
    std::optional<FaultKind> parsed = ParseFaultKind(kind);
    if (!parsed) {
      Fail("unknown kind " + Quoted(kind) +
           " (known: crash, api-cut, pod-cut, pod-isolated, flap)");
    }
    f.kind = *parsed;
    f.at = Time("at", /*required=*/true, 0);
    f.duration = Time("duration", /*required=*/false, 1);
    if (f.kind == FaultKind::kFlap) {
      const std::string link = String("link");
      std::optional<FlapLink> l = ParseFlapLink(link);
      if (!l) Fail("unknown link " + Quoted(link) + " (known: api, pod, node)");
      f.link = *l;
      f.period = Time("period", /*required=*/true, 2);
      f.down = Time("down", /*required=*/true, 1);
      if (f.down >= f.period) {
        Fail("down " + FormatDuration(f.down) + " must be shorter than period " +
             FormatDuration(f.period));
      }
    } else {
      Forbid("link");
      Forbid("period");
      Forbid("down");
    }
    const bool needs_pod = f.kind == FaultKind::kPodCut || f.kind == FaultKind::kPodIsolated ||
                           (f.kind == FaultKind::kFlap && f.link == FlapLink::kPod);
    if (f.kind != FaultKind::kPodIsolated) {
      f.node = String("node");
      if (!nodes_.count(f.node)) Fail("unknown node " + Quoted(f.node));
    } else {
      Forbid("node");
    }
    if (needs_pod) {
      f.pod = String("pod");
      if (!pods_.count(f.pod)) Fail("unknown POD " + Quoted(f.pod));
    } else {
      Forbid("pod");
    }
    return f;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw std::invalid_argument(where_ + why);
  }

  void Forbid(const char* key) const {
    if (object_.contains(key)) Fail(std::string("field \"") + key + "\" does not apply here");
  }

  std::string String(const char* key) const {
    auto it = object_.find(key);
    if (it == object_.end()) Fail(std::string("missing \"") + key + "\"");
    if (!it->is_string()) Fail(std::string("\"") + key + "\" must be a string");
    return it->get<std::string>();
  }

  // Seconds as a whole number or a duration string ("90s", "5m", "1h30m"); kForever if absent.
  int64_t Time(const char* key, bool required, int64_t min) const {
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) Fail(std::string("missing \"") + key + "\"");
      return kForever;
    }
    int64_t v = 0;
    if (it->is_number_integer()) {
      v = it->get<int64_t>();
    } else if (it->is_string()) {
      try {
        v = ParseDuration(it->get<std::string>(), "");
      } catch (const TraceError& e) {
        // The reader names no source here ("": ...); this message names the file and fault.
        Fail(std::string("bad time in \"") + key + "\": " + std::string(e.what()).substr(2));
      }
    } else {
      Fail(std::string("bad time in \"") + key + "\": expected whole seconds or a duration such " +
           "as \"5m\", got " + it->dump());
    }
    if (v < min) {
      Fail(std::string("bad time in \"") + key + "\": " + FormatDuration(v) +
           " is below the minimum " + FormatDuration(min));
    }
    return v;
  }

  const json& object_;
  const std::set<std::string>& nodes_;
  const std::set<std::string>& pods_;
  std::string where_;
};

// Deterministic draws (std:: distributions differ between standard libraries).
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed ^ 0x6661756c74735eedULL) {}
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  int64_t UniformInt(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Uniform() * static_cast<double>(hi - lo + 1));
  }
  double Normal() {
    double u1 = 1.0 - Uniform();
    double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  int64_t LogNormal(int64_t median) {
    return std::max<int64_t>(1, std::llround(static_cast<double>(median) * std::exp(Normal())));
  }
  int64_t Poisson(double mean) {
    if (mean > 50) return std::max<int64_t>(0, std::llround(mean + std::sqrt(mean) * Normal()));
    const double limit = std::exp(-mean);
    int64_t k = 0;
    for (double p = Uniform(); p > limit; p *= Uniform()) ++k;
    return k;
  }

 private:
  std::mt19937_64 engine_;
};

void CheckRate(double v, const char* name) {
  if (!(v >= 0)) throw std::invalid_argument(std::string("fault rate ") + name + " is negative");
}

void CheckShare(double v, const char* name) {
  if (!(v >= 0 && v <= 1)) {
    throw std::invalid_argument(std::string("fault share ") + name + " must be in [0, 1]");
  }
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCrash:
      return "crash";
    case FaultKind::kApiCut:
      return "api-cut";
    case FaultKind::kPodCut:
      return "pod-cut";
    case FaultKind::kPodIsolated:
      return "pod-isolated";
    case FaultKind::kFlap:
      return "flap";
  }
  return "unknown";
}

std::optional<FaultKind> ParseFaultKind(std::string_view name) {
  for (FaultKind k : {FaultKind::kCrash, FaultKind::kApiCut, FaultKind::kPodCut,
                      FaultKind::kPodIsolated, FaultKind::kFlap}) {
    if (FaultKindName(k) == name) return k;
  }
  return std::nullopt;
}

std::string_view FlapLinkName(FlapLink link) {
  switch (link) {
    case FlapLink::kApi:
      return "api";
    case FlapLink::kPod:
      return "pod";
    case FlapLink::kNode:
      return "node";
  }
  return "unknown";
}

std::optional<FlapLink> ParseFlapLink(std::string_view name) {
  for (FlapLink l : {FlapLink::kApi, FlapLink::kPod, FlapLink::kNode}) {
    if (FlapLinkName(l) == name) return l;
  }
  return std::nullopt;
}

std::string DescribeFault(const Fault& f) {
  std::string out(FaultKindName(f.kind));
  if (f.kind == FaultKind::kFlap) out += " " + std::string(FlapLinkName(f.link));
  if (!f.node.empty()) out += " " + f.node;
  if (!f.pod.empty()) out += (f.kind == FaultKind::kPodIsolated ? " " : " from ") + f.pod;
  out += " at " + FormatDuration(f.at) + " for " + FormatTime(f.duration);
  if (f.kind == FaultKind::kFlap) {
    out += " (down " + FormatDuration(f.down) + " every " + FormatDuration(f.period) + ")";
  }
  return out;
}

std::vector<Fault> ParseFaults(const json& document, const std::vector<Node>& nodes,
                               const std::string& source_name) {
  const json* list = &document;
  if (document.is_object()) {
    if (!document.contains("faults") || document.size() != 1) {
      throw std::invalid_argument(source_name +
                                  ": expected an object with the single key \"faults\"");
    }
    list = &document["faults"];
  }
  if (!list->is_array()) {
    throw std::invalid_argument(source_name + ": \"faults\" must be an array");
  }
  std::set<std::string> node_names, pods;
  for (const Node& n : nodes) {
    node_names.insert(n.name);
    pods.insert(n.pod);
  }
  std::vector<Fault> faults;
  for (size_t i = 0; i < list->size(); ++i) {
    faults.push_back(FaultReader((*list)[i], node_names, pods,
                                 source_name + ": fault " + std::to_string(i) + ": ")
                         .Read());
  }
  return faults;
}

std::vector<Fault> ReadFaultsFile(const std::string& path, const std::vector<Node>& nodes) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the fault-scenario file");
  json document = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) throw std::invalid_argument(path + ": not valid JSON");
  return ParseFaults(document, nodes, path);
}

json FaultsToJson(const std::vector<Fault>& faults) {
  json list = json::array();
  for (const Fault& f : faults) {
    json o = {{"kind", FaultKindName(f.kind)}, {"at", f.at}};
    if (f.duration != kForever) o["duration"] = f.duration;
    if (!f.node.empty()) o["node"] = f.node;
    if (!f.pod.empty()) o["pod"] = f.pod;
    if (f.kind == FaultKind::kFlap) {
      o["link"] = FlapLinkName(f.link);
      o["period"] = f.period;
      o["down"] = f.down;
    }
    list.push_back(std::move(o));
  }
  return json{{"faults", list}};
}

std::vector<Fault> GenerateFaults(const std::vector<Node>& nodes,
                                  const std::vector<std::string>& member_pods, const FaultRates& r,
                                  int64_t duration_s, uint64_t seed) {
  CheckRate(r.crashes_per_node_day, "crashes_per_node_day");
  CheckRate(r.api_cuts_per_node_day, "api_cuts_per_node_day");
  CheckRate(r.pod_cuts_per_node_day, "pod_cuts_per_node_day");
  CheckRate(r.pod_isolations_per_pod_day, "pod_isolations_per_pod_day");
  CheckRate(r.flaps_per_node_day, "flaps_per_node_day");
  CheckShare(r.crash_recover_share, "crash_recover_share");
  CheckShare(r.member_pod_isolation_share, "member_pod_isolation_share");
  CheckShare(r.flap_down_share_min, "flap_down_share_min");
  CheckShare(r.flap_down_share_max, "flap_down_share_max");
  if (r.flap_period_min_s < 2 || r.flap_period_max_s < r.flap_period_min_s ||
      r.flap_down_share_max < r.flap_down_share_min) {
    throw std::invalid_argument(
        "flap bounds: need 2 <= period min <= period max and down share "
        "min <= max");
  }
  if (nodes.empty() || duration_s <= 0) return {};

  std::vector<std::string> pods;
  for (const Node& n : nodes) {
    if (pods.empty() || pods.back() != n.pod) pods.push_back(n.pod);
  }
  std::sort(pods.begin(), pods.end());
  pods.erase(std::unique(pods.begin(), pods.end()), pods.end());

  Rng rng(seed);
  const double days = static_cast<double>(duration_s) / kSecondsPerDay;
  const double node_days = days * static_cast<double>(nodes.size());
  auto count = [&](double rate, double exposure) {
    if (rate <= 0) return int64_t{0};
    return std::max<int64_t>(1, rng.Poisson(rate * exposure));
  };
  auto random_node = [&]() -> const Node& {
    return nodes[rng.UniformInt(0, static_cast<int64_t>(nodes.size()) - 1)];
  };
  auto random_pod = [&] { return pods[rng.UniformInt(0, static_cast<int64_t>(pods.size()) - 1)]; };
  auto other_pod = [&](const std::string& own) {
    if (pods.size() < 2) return own;
    std::string pod = own;
    while (pod == own) pod = random_pod();
    return pod;
  };
  auto start = [&] { return rng.UniformInt(0, duration_s - 1); };

  std::vector<Fault> faults;
  for (int64_t i = count(r.crashes_per_node_day, node_days); i > 0; --i) {
    Fault f{.kind = FaultKind::kCrash, .at = start(), .node = random_node().name};
    if (rng.Uniform() < r.crash_recover_share) f.duration = rng.LogNormal(r.reboot_median_s);
    faults.push_back(f);
  }
  for (int64_t i = count(r.api_cuts_per_node_day, node_days); i > 0; --i) {
    faults.push_back({.kind = FaultKind::kApiCut,
                      .at = start(),
                      .duration = rng.LogNormal(r.api_cut_median_s),
                      .node = random_node().name});
  }
  for (int64_t i = count(r.pod_cuts_per_node_day, node_days); i > 0; --i) {
    const Node& n = random_node();
    faults.push_back({.kind = FaultKind::kPodCut,
                      .at = start(),
                      .duration = rng.LogNormal(r.pod_cut_median_s),
                      .node = n.name,
                      .pod = other_pod(n.pod)});
  }
  for (int64_t i = count(r.pod_isolations_per_pod_day, days * pods.size()); i > 0; --i) {
    std::string pod = !member_pods.empty() && rng.Uniform() < r.member_pod_isolation_share
                          ? member_pods[rng.UniformInt(0, std::ssize(member_pods) - 1)]
                          : random_pod();
    faults.push_back({.kind = FaultKind::kPodIsolated,
                      .at = start(),
                      .duration = rng.LogNormal(r.pod_isolation_median_s),
                      .pod = pod});
  }
  for (int64_t i = count(r.flaps_per_node_day, node_days); i > 0; --i) {
    const Node& n = random_node();
    Fault f{.kind = FaultKind::kFlap,
            .at = start(),
            .duration = rng.LogNormal(r.flap_median_s),
            .node = n.name};
    f.link = rng.Uniform() < 0.5 ? FlapLink::kApi : FlapLink::kPod;
    if (f.link == FlapLink::kPod) f.pod = other_pod(n.pod);
    f.period = rng.UniformInt(r.flap_period_min_s, r.flap_period_max_s);
    f.down = std::clamp<int64_t>(
        std::llround(f.period * rng.Uniform(r.flap_down_share_min, r.flap_down_share_max)), 1,
        f.period - 1);
    faults.push_back(f);
  }
  std::stable_sort(faults.begin(), faults.end(),
                   [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return faults;
}

}  // namespace archimedes
