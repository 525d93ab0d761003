#include "sim/fault_scenario.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "model/duration.h"
#include "model/limits.h"
#include "model/random.h"
#include "trace/json_reader.h"

namespace archimedes {
namespace {

using nlohmann::json;

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string FormatTime(int64_t seconds) {
  return seconds == kForever ? "forever" : FormatDuration(seconds);
}

// Fails if the fault names `key`, which its kind does not take.
void Forbid(JsonObject& o, const std::string& key, std::string_view kind) {
  if (std::optional<JsonValue> v = o.Find(key)) {
    v->Fail("a " + std::string(kind) + " fault takes no " + key);
  }
}

Fault ReadFault(const JsonValue& v, const std::set<std::string>& nodes,
                const std::set<std::string>& pods) {
  JsonObject o(v);
  Fault f;
  const JsonValue kind = o.Require("kind");
  std::optional<FaultKind> parsed = ParseFaultKind(kind.String());
  if (!parsed) {
    kind.Fail("unknown kind " + Quoted(kind.String()) +
              "; expected crash, api-cut, pod-cut, pod-isolated or flap");
  }
  f.kind = *parsed;
  const std::string_view kind_name = FaultKindName(f.kind);
  f.at = o.Require("at").Duration(0, kMaxDurationSeconds);
  if (std::optional<JsonValue> duration = o.Find("duration")) {
    f.duration = duration->Duration(1, kMaxDurationSeconds);
  }
  if (f.kind == FaultKind::kFlap) {
    const JsonValue link = o.Require("link");
    std::optional<FlapLink> l = ParseFlapLink(link.String());
    if (!l) link.Fail("unknown link " + Quoted(link.String()) + "; expected api, pod or node");
    f.link = *l;
    f.period = o.Require("period").Duration(2, kMaxDurationSeconds);
    const JsonValue down = o.Require("down");
    f.down = down.Duration(1, kMaxDurationSeconds);
    if (f.down >= f.period) {
      down.Fail(FormatDuration(f.down) + " must be shorter than the period " +
                FormatDuration(f.period));
    }
  } else {
    for (const char* key : {"link", "period", "down"}) Forbid(o, key, kind_name);
  }
  if (f.kind != FaultKind::kPodIsolated) {
    const JsonValue node = o.Require("node");
    f.node = node.Name();
    if (!nodes.contains(f.node)) node.Fail("unknown node " + Quoted(f.node));
  } else {
    Forbid(o, "node", kind_name);
  }
  const bool needs_pod = f.kind == FaultKind::kPodCut || f.kind == FaultKind::kPodIsolated ||
                         (f.kind == FaultKind::kFlap && f.link == FlapLink::kPod);
  if (needs_pod) {
    const JsonValue pod = o.Require("pod");
    f.pod = pod.Name();
    if (!pods.contains(f.pod)) pod.Fail("unknown POD " + Quoted(f.pod));
  } else if (f.kind == FaultKind::kFlap) {
    if (std::optional<JsonValue> pod = o.Find("pod")) {
      pod->Fail("only a flap of the pod link takes a pod");
    }
  } else {
    Forbid(o, "pod", kind_name);
  }
  o.RejectUnknownKeys();
  return f;
}

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
  const JsonValue root(source_name, document);
  std::vector<JsonValue> elements;
  if (document.is_object()) {
    JsonObject wrapper(root);
    elements = wrapper.Require("faults").Elements();
    wrapper.RejectUnknownKeys();
  } else if (document.is_array()) {
    elements = root.Elements();
  } else {
    root.Fail("expected a faults array or an object with a faults array, got " + root.Describe());
  }
  std::set<std::string> node_names, pods;
  for (const Node& n : nodes) {
    node_names.insert(n.name);
    pods.insert(n.pod);
  }
  std::vector<Fault> faults;
  faults.reserve(elements.size());
  for (const JsonValue& e : elements) faults.push_back(ReadFault(e, node_names, pods));
  return faults;
}

std::vector<Fault> ReadFaultsFile(const std::string& path, const std::vector<Node>& nodes) {
  return ParseFaults(ReadJsonFile(path), nodes, path);
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

  Random rng(seed ^ 0x6661756c74735eedULL);
  auto lognormal = [&](int64_t median) {
    return std::max<int64_t>(1, std::llround(rng.LogNormal(static_cast<double>(median), 1.0)));
  };
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
    if (rng.Uniform() < r.crash_recover_share) f.duration = lognormal(r.reboot_median_s);
    faults.push_back(f);
  }
  for (int64_t i = count(r.api_cuts_per_node_day, node_days); i > 0; --i) {
    faults.push_back({.kind = FaultKind::kApiCut,
                      .at = start(),
                      .duration = lognormal(r.api_cut_median_s),
                      .node = random_node().name});
  }
  for (int64_t i = count(r.pod_cuts_per_node_day, node_days); i > 0; --i) {
    const Node& n = random_node();
    faults.push_back({.kind = FaultKind::kPodCut,
                      .at = start(),
                      .duration = lognormal(r.pod_cut_median_s),
                      .node = n.name,
                      .pod = other_pod(n.pod)});
  }
  for (int64_t i = count(r.pod_isolations_per_pod_day, days * pods.size()); i > 0; --i) {
    std::string pod = !member_pods.empty() && rng.Uniform() < r.member_pod_isolation_share
                          ? member_pods[rng.UniformInt(0, std::ssize(member_pods) - 1)]
                          : random_pod();
    faults.push_back({.kind = FaultKind::kPodIsolated,
                      .at = start(),
                      .duration = lognormal(r.pod_isolation_median_s),
                      .pod = pod});
  }
  for (int64_t i = count(r.flaps_per_node_day, node_days); i > 0; --i) {
    const Node& n = random_node();
    Fault f{.kind = FaultKind::kFlap,
            .at = start(),
            .duration = lognormal(r.flap_median_s),
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
