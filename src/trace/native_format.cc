#include "trace/native_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "model/duration.h"
#include "model/limits.h"
#include "model/quantity.h"
#include "trace/json_reader.h"
#include "trace/output_file.h"

namespace archimedes {
namespace {

using nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Limits of a usage pattern's parameters (docs/formats.md): far above any real pattern, they keep
// the usage model's arithmetic finite.
constexpr double kMaxUsageFraction = 1000;
constexpr double kMaxNoise = 10;
constexpr double kMaxBurstFactor = 1000;
constexpr double kMaxLeaksPerDay = 86'400;

// CPU and GPU count in thousandths; the other dimensions in whole units.
bool IsMilliDim(Dim d) { return d == Dim::kCpu || d == Dim::kGpu; }

// Bytes with the shorter of a binary ("4Gi") and a decimal ("10G") suffix, since rates such as
// network bandwidth are usually decimal.
std::string FormatUnits(int64_t amount) {
  std::string binary = FormatBytes(amount);
  static constexpr std::pair<int64_t, char> kDecimal[] = {{1'000'000'000'000'000'000, 'E'},
                                                          {1'000'000'000'000'000, 'P'},
                                                          {1'000'000'000'000, 'T'},
                                                          {1'000'000'000, 'G'},
                                                          {1'000'000, 'M'},
                                                          {1'000, 'k'}};
  for (auto [unit, suffix] : kDecimal) {
    if (amount != 0 && amount % unit == 0) {
      std::string decimal = std::to_string(amount / unit) + suffix;
      return decimal.size() < binary.size() ? decimal : binary;
    }
  }
  return binary;
}

std::string FormatAmount(Dim d, int64_t amount) {
  return IsMilliDim(d) ? FormatMilli(amount) : FormatUnits(amount);
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Canonical units per unit of a Kubernetes quantity of the dimension: CPU and GPU are held in
// thousandths (of a core, of a device), the others in whole units.
double CanonicalPerQuantityUnit(Dim d) { return IsMilliDim(d) ? 1000.0 : 1.0; }

// The text of a resource amount: a quantity string, or a bare number read as the quantity it
// spells, so that `2` and `"2"` are both two cores as in Kubernetes.
std::string AmountText(const JsonValue& v) {
  const json& raw = v.raw();
  if (raw.is_string()) return raw.get<std::string>();
  if (raw.is_number()) return raw.dump();
  v.Fail("expected a quantity such as 2, \"500m\" or \"4Gi\", got " + v.Describe());
}

[[noreturn]] void FailAboveLimit(const JsonValue& v, Dim d, const std::string& text) {
  v.Fail(std::string(DimName(d)) + " " + text + " is above the limit of " +
         FormatAmount(d, kMaxResourceAmount) + " (model/limits.h)");
}

// A resource amount in canonical units, in [0, kMaxResourceAmount].
int64_t ReadAmount(const JsonValue& v, Dim d) {
  const std::string text = AmountText(v);
  try {
    return ParseResourceAmount(d, text);
  } catch (const QuantityError& e) {
    v.Fail(e.what());
  }
}

// One sample of a usage series in canonical units, which may be fractional: a quantity string or
// a bare number in Kubernetes units, as a resource amount.
float ReadSample(const JsonValue& v, Dim d) {
  const std::string text = AmountText(v);
  double sample = 0;
  if (v.raw().is_number()) {
    sample = v.raw().get<double>() * CanonicalPerQuantityUnit(d);
  } else {
    try {
      sample =
          static_cast<double>(Quantity::Parse(text).nano()) / 1e9 * CanonicalPerQuantityUnit(d);
    } catch (const QuantityError& e) {
      v.Fail(e.what());
    }
  }
  if (sample < 0) v.Fail("usage must not be negative, got " + text);
  if (!(sample <= static_cast<double>(kMaxResourceAmount))) FailAboveLimit(v, d, text);
  return static_cast<float>(sample);
}
Resources ReadResources(const JsonValue& v) {
  JsonObject o(v);
  Resources r;
  for (Dim d : kAllDims) {
    if (std::optional<JsonValue> amount = o.Find(std::string(DimName(d))))
      r[d] = ReadAmount(*amount, d);
  }
  o.RejectUnknownKeys();
  return r;
}

// `named` is false for the spec of a node event, whose name is the event's `node`.
Node ReadNode(const JsonValue& v, bool named) {
  JsonObject o(v);
  Node n;
  if (named) n.name = o.Require("name").Name();
  n.capacity = ReadResources(o.Require("capacity"));
  n.allocatable = n.capacity;
  if (std::optional<JsonValue> allocatable = o.Find("allocatable")) {
    n.allocatable = ReadResources(*allocatable);
    if (!n.allocatable.FitsIn(n.capacity)) {
      allocatable->Fail("allocatable " + ToString(n.allocatable) + " exceeds capacity " +
                        ToString(n.capacity));
    }
  }
  if (std::optional<JsonValue> zone = o.Find("zone")) n.zone = zone->String();
  if (std::optional<JsonValue> pod = o.Find("pod")) n.pod = pod->String();
  if (std::optional<JsonValue> labels = o.Find("labels")) n.labels = labels->StringMap();
  if (std::optional<JsonValue> condition = o.Find("condition")) {
    std::string c = condition->String();
    if (c == "Ready") {
      n.condition = NodeCondition::kReady;
    } else if (c == "NotReady") {
      n.condition = NodeCondition::kNotReady;
    } else {
      condition->Fail("unknown condition " + Quoted(c) + "; expected Ready or NotReady");
    }
  }
  o.RejectUnknownKeys();
  return n;
}

UsagePattern ReadUsage(const JsonValue& v, const Resources& requests) {
  JsonObject o(v);
  UsagePattern p;
  if (std::optional<JsonValue> step = o.Find("step")) {
    p.step_seconds = step->Duration(1, kMaxDurationSeconds);
  }
  std::optional<std::pair<size_t, std::string>> first;  // samples and path of the first series
  for (Dim d : kAllDims) {
    std::string name(DimName(d));
    std::string fraction_key = name + "_fraction_of_request";
    std::optional<JsonValue> absolute = o.Find(name);
    std::optional<JsonValue> fraction = o.Find(fraction_key);
    if (absolute && fraction) {
      fraction->Fail("give either " + name + " or " + fraction_key + ", not both");
    }
    if (!absolute && !fraction) continue;
    const JsonValue& series = absolute ? *absolute : *fraction;
    if (fraction && requests[d] == 0) {
      series.Fail("a fraction of the request needs a " + name + " request");
    }
    std::vector<float>& values = p.values[static_cast<int>(d)];
    for (const JsonValue& sample : series.Elements()) {
      values.push_back(absolute ? ReadSample(sample, d)
                                : static_cast<float>(sample.Number(0, kMaxUsageFraction) *
                                                     static_cast<double>(requests[d])));
    }
    if (values.empty()) series.Fail("a usage series needs at least one sample");
    if (!first) {
      first.emplace(values.size(), series.path());
    } else if (values.size() != first->first) {
      series.Fail("has " + std::to_string(values.size()) + " samples but " + first->second +
                  " has " + std::to_string(first->first) +
                  "; every series of a pattern has the same length");
    }
  }
  if (p.values[static_cast<int>(Dim::kCpu)].empty()) {
    v.Fail(
        "usage needs a cpu or cpu_fraction_of_request series (the pattern's period is "
        "measured on it)");
  }
  if (std::optional<JsonValue> noise = o.Find("noise"))
    p.noise = static_cast<float>(noise->Number(0, kMaxNoise));
  if (std::optional<JsonValue> probability = o.Find("burst_probability")) {
    p.burst_probability = static_cast<float>(probability->Number(0, 1));
  }
  if (std::optional<JsonValue> factor = o.Find("burst_factor")) {
    p.burst_factor = static_cast<float>(factor->Number(1, kMaxBurstFactor));
  }
  if (std::optional<JsonValue> leaks = o.Find("leak_per_day")) {
    p.leak_per_day = static_cast<float>(leaks->Number(0, kMaxLeaksPerDay));
  }
  if (std::optional<JsonValue> rate = o.Find("leak_rate")) {
    p.leak_rate = static_cast<float>(rate->Number(0, static_cast<double>(kMaxResourceAmount)));
  }
  o.RejectUnknownKeys();
  return p;
}

// The class Kubernetes derives for a one-container pod from its CPU and memory.
QosClass DeriveQos(const Resources& requests, const Resources& limits) {
  bool nothing = true;
  bool guaranteed = true;
  for (Dim d : {Dim::kCpu, Dim::kMemory}) {
    if (requests[d] != 0 || limits[d] != 0) nothing = false;
    if (limits[d] == 0 || requests[d] != limits[d]) guaranteed = false;
  }
  if (nothing) return QosClass::kBestEffort;
  return guaranteed ? QosClass::kGuaranteed : QosClass::kBurstable;
}

Service ReadService(const JsonValue& v) {
  JsonObject o(v);
  Service s;
  s.name = o.Require("name").Name();
  std::optional<JsonValue> app = o.Find("app");
  s.app = app ? app->Name() : s.name;
  if (std::optional<JsonValue> replicas = o.Find("replicas")) {
    s.replicas = replicas->Int(0, kMaxReplicas);
  }
  if (std::optional<JsonValue> requests = o.Find("requests")) s.requests = ReadResources(*requests);
  if (std::optional<JsonValue> limits = o.Find("limits")) {
    s.limits = ReadResources(*limits);
    for (Dim d : kAllDims) {
      // As in Kubernetes, a dimension that is limited but not requested requests its limit.
      if (s.limits[d] != 0 && s.requests[d] == 0) s.requests[d] = s.limits[d];
      if (s.limits[d] != 0 && s.limits[d] < s.requests[d]) {
        limits->Fail(std::string(DimName(d)) + " limit " + FormatAmount(d, s.limits[d]) +
                     " is below its request " + FormatAmount(d, s.requests[d]));
      }
    }
  }
  if (std::optional<JsonValue> priority = o.Find("priority")) s.priority = priority->Int();
  s.qos = DeriveQos(s.requests, s.limits);
  if (std::optional<JsonValue> qos = o.Find("qos")) {
    std::string name = qos->String();
    std::optional<QosClass> parsed = ParseQos(name);
    if (!parsed) {
      qos->Fail("unknown QoS class " + Quoted(name) +
                "; expected Guaranteed, Burstable or BestEffort");
    }
    s.qos = *parsed;
  }
  s.sla = DefaultServiceSla(s.qos, s.replicas);
  if (std::optional<JsonValue> sla = o.Find("sla")) {
    JsonObject sla_object(*sla);
    if (std::optional<JsonValue> a = sla_object.Find("availability"))
      s.sla.availability = a->Number(0, 1);
    if (std::optional<JsonValue> m = sla_object.Find("min_available")) {
      s.sla.min_available = m->Int(0);
      if (s.sla.min_available > s.replicas) {
        m->Fail(std::to_string(s.sla.min_available) + " exceeds the service's " +
                std::to_string(s.replicas) + " replicas");
      }
    }
    sla_object.RejectUnknownKeys();
  }
  if (std::optional<JsonValue> usage = o.Find("usage")) s.usage = ReadUsage(*usage, s.requests);
  if (std::optional<JsonValue> start = o.Find("start")) {
    s.start_time = start->Duration(0, kMaxDurationSeconds);
  }
  if (std::optional<JsonValue> end = o.Find("end")) {
    s.end_time = end->Duration(0, kMaxDurationSeconds);
    if (s.end_time <= s.start_time) {
      end->Fail("the service ends at " + FormatDuration(s.end_time) + ", not after its start " +
                FormatDuration(s.start_time));
    }
  }
  if (std::optional<JsonValue> max = o.Find("max_per_node")) {
    s.max_per_node = max->Int(0, kMaxReplicas);
  }
  if (std::optional<JsonValue> selector = o.Find("node_selector")) {
    s.node_selector = selector->StringMap();
  }
  if (std::optional<JsonValue> startup = o.Find("startup")) {
    s.startup_s = startup->Duration(0, kMaxDurationSeconds);
  }
  o.RejectUnknownKeys();
  return s;
}

// The job as written; whether it can run is ValidateJob's to say.
BatchJob ReadJobFields(const JsonValue& v) {
  JsonObject o(v);
  BatchJob j;
  j.name = o.Require("name").Name();
  if (std::optional<JsonValue> submit = o.Find("submit")) j.submit_time = submit->Duration();
  if (std::optional<JsonValue> type = o.Find("type")) {
    std::string name = type->String();
    std::optional<JobType> parsed = ParseJobType(name);
    if (!parsed)
      type->Fail("unknown job type " + Quoted(name) + "; expected serverless or offline");
    j.type = *parsed;
  }
  if (std::optional<JsonValue> function = o.Find("function")) j.function = function->String();
  if (std::optional<JsonValue> tasks = o.Find("tasks")) j.tasks = tasks->Int();
  j.task_requests = ReadResources(o.Require("requests"));
  j.duration_estimate_s = o.Require("duration_estimate").Duration();
  std::optional<JsonValue> duration = o.Find("duration");
  j.duration_s = duration ? duration->Duration() : j.duration_estimate_s;
  if (std::optional<JsonValue> u = o.Find("utilization")) j.utilization = u->Number();
  if (std::optional<JsonValue> tolerance = o.Find("delay_tolerance")) {
    j.delay_tolerance_s = tolerance->Duration();
  }
  if (std::optional<JsonValue> priority = o.Find("priority")) j.priority = priority->Int();
  if (std::optional<JsonValue> gang = o.Find("gang")) j.gang = gang->Bool();
  o.RejectUnknownKeys();
  return j;
}

BatchJob ReadJob(const JsonValue& v) {
  BatchJob j = ReadJobFields(v);
  if (std::string why = ValidateJob(j); !why.empty()) v.Fail(why);
  return j;
}

NodeEvent ReadNodeEvent(const JsonValue& v) {
  JsonObject o(v);
  NodeEvent e;
  e.time = o.Require("time").Duration(0, kMaxDurationSeconds);
  JsonValue kind = o.Require("kind");
  std::string kind_name = kind.String();
  if (kind_name == "fail") {
    e.kind = NodeEvent::Kind::kFail;
  } else if (kind_name == "recover") {
    e.kind = NodeEvent::Kind::kRecover;
  } else if (kind_name == "add") {
    e.kind = NodeEvent::Kind::kAdd;
  } else {
    kind.Fail("unknown node event kind " + Quoted(kind_name) + "; expected fail, recover or add");
  }
  e.node = o.Require("node").Name();
  std::optional<JsonValue> spec = o.Find("spec");
  if (e.kind == NodeEvent::Kind::kAdd) {
    if (!spec) v.Fail("an \"add\" event needs a spec: the node's capacity and labels");
    e.spec = ReadNode(*spec, /*named=*/false);
    e.spec.name = e.node;
  } else if (spec) {
    spec->Fail("only an \"add\" event takes a spec");
  }
  o.RejectUnknownKeys();
  return e;
}

ScaleEvent ReadScaleEvent(const JsonValue& v) {
  JsonObject o(v);
  ScaleEvent e;
  e.time = o.Require("time").Duration(0, kMaxDurationSeconds);
  e.service = o.Require("service").Name();
  e.replicas = o.Require("replicas").Int(0, kMaxReplicas);
  o.RejectUnknownKeys();
  return e;
}

// Fails on the second of two elements of `items` that share a name.
template <typename T>
void RejectDuplicateNames(const std::vector<T>& items, const std::vector<JsonValue>& elements,
                          std::string_view what) {
  std::map<std::string_view, size_t> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    auto [it, inserted] = seen.emplace(items[i].name, i);
    if (!inserted) {
      elements[i].Fail("duplicate " + std::string(what) + " name " + Quoted(items[i].name) +
                       " (first at " + elements[it->second].path() + ")");
    }
  }
}

// The order in which `times` happen, ties kept in file order.
std::vector<size_t> TimeOrder(const std::vector<int64_t>& times) {
  std::vector<size_t> order(times.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return times[a] < times[b]; });
  return order;
}

template <typename T>
std::vector<T> Permuted(std::vector<T> items, const std::vector<size_t>& order) {
  std::vector<T> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(std::move(items[i]));
  return out;
}

// With `rejected`, a job that cannot run is left out and its error appended there; without, it
// fails the whole array.
std::vector<BatchJob> ReadJobs(const JsonValue& v, std::vector<std::string>* rejected = nullptr) {
  std::vector<JsonValue> elements = v.Elements();
  std::vector<BatchJob> parsed;
  parsed.reserve(elements.size());
  for (const JsonValue& e : elements) parsed.push_back(ReadJobFields(e));
  RejectDuplicateNames(parsed, elements, "job");
  std::vector<BatchJob> jobs;
  std::vector<int64_t> submits;
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (std::string why = ValidateJob(parsed[i]); !why.empty()) {
      if (rejected == nullptr) elements[i].Fail(why);
      rejected->emplace_back(elements[i].Error(why).what());
      continue;
    }
    submits.push_back(parsed[i].submit_time);
    jobs.push_back(std::move(parsed[i]));
  }
  return Permuted(std::move(jobs), TimeOrder(submits));
}

// Fail and recover events must name a node that exists at their time (listed in `nodes` or added
// earlier); add events must name one that does not.
void CheckNodeReferences(const std::vector<NodeEvent>& events,
                         const std::vector<JsonValue>& elements, const std::vector<size_t>& order,
                         const std::vector<Node>& nodes) {
  std::set<std::string> known;
  for (const Node& n : nodes) known.insert(n.name);
  for (size_t i : order) {
    const NodeEvent& e = events[i];
    if (e.kind == NodeEvent::Kind::kAdd) {
      if (!known.insert(e.node).second) {
        elements[i].Fail("adds node " + Quoted(e.node) + ", which already exists");
      }
    } else if (!known.contains(e.node)) {
      elements[i].Fail("unknown node " + Quoted(e.node) + " (not in nodes nor added earlier)");
    }
  }
}

// Writing.

// The shortest decimal that reads back as the same float, so that files show 0.1, not
// 0.10000000149011612, and 400, not 400.0.
OrderedJson Shortest(float f) {
  if (f == std::trunc(f) && std::fabs(f) < 1e15f) return static_cast<int64_t>(f);
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), f);
  return std::stod(std::string(buffer, end));
}

// A usage sample as a bare number in Kubernetes units (cores for CPU) that reads back as the same
// float: the float's shortest decimal with its point moved, so that 100 millicores are written
// 0.1, not 0.10000000149011612 (the double quotient's text); the exact quotient when that shorter
// text would not read back.
OrderedJson SampleInKubernetesUnits(float sample, Dim d) {
  if (!IsMilliDim(d)) return Shortest(sample);
  char buffer[32];
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof(buffer), sample, std::chars_format::scientific);
  const std::string text(buffer, end);
  const size_t e = text.find('e');
  double units =
      std::stod(text.substr(0, e) + "e" + std::to_string(std::stoi(text.substr(e + 1)) - 3));
  if (static_cast<float>(units * CanonicalPerQuantityUnit(d)) != sample) {
    units = static_cast<double>(sample) / CanonicalPerQuantityUnit(d);
  }
  if (units == std::trunc(units) && std::fabs(units) < 1e15) return static_cast<int64_t>(units);
  return units;
}

OrderedJson WriteResources(const Resources& r) {
  OrderedJson out = OrderedJson::object();
  for (Dim d : kAllDims) {
    if (r[d] != 0) out[std::string(DimName(d))] = FormatAmount(d, r[d]);
  }
  return out;
}

OrderedJson WriteNode(const Node& n, bool named) {
  OrderedJson out = OrderedJson::object();
  if (named) out["name"] = n.name;
  out["capacity"] = WriteResources(n.capacity);
  if (n.allocatable != n.capacity) out["allocatable"] = WriteResources(n.allocatable);
  if (!n.zone.empty()) out["zone"] = n.zone;
  if (!n.pod.empty()) out["pod"] = n.pod;
  if (!n.labels.empty()) out["labels"] = n.labels;
  if (n.condition == NodeCondition::kNotReady) out["condition"] = "NotReady";
  return out;
}

OrderedJson WriteUsage(const UsagePattern& p) {
  OrderedJson out = OrderedJson::object();
  out["step"] = FormatDuration(p.step_seconds);
  for (Dim d : kAllDims) {
    const std::vector<float>& values = p.values[static_cast<int>(d)];
    if (values.empty()) continue;
    OrderedJson series = OrderedJson::array();
    for (float v : values) series.push_back(SampleInKubernetesUnits(v, d));
    out[std::string(DimName(d))] = std::move(series);
  }
  if (p.noise != 0) out["noise"] = Shortest(p.noise);
  if (p.burst_probability != 0) out["burst_probability"] = Shortest(p.burst_probability);
  if (p.burst_factor != 1) out["burst_factor"] = Shortest(p.burst_factor);
  if (p.leak_per_day != 0) out["leak_per_day"] = Shortest(p.leak_per_day);
  if (p.leak_rate != 0) out["leak_rate"] = Shortest(p.leak_rate);
  return out;
}

OrderedJson WriteService(const Service& s) {
  OrderedJson out = OrderedJson::object();
  out["name"] = s.name;
  if (s.app != s.name) out["app"] = s.app;
  out["replicas"] = s.replicas;
  out["requests"] = WriteResources(s.requests);
  if (!s.limits.IsZero()) out["limits"] = WriteResources(s.limits);
  out["priority"] = s.priority;
  out["qos"] = QosName(s.qos);
  out["sla"] = {{"availability", s.sla.availability}, {"min_available", s.sla.min_available}};
  bool has_usage = std::any_of(s.usage.values.begin(), s.usage.values.end(),
                               [](const std::vector<float>& v) { return !v.empty(); });
  if (has_usage) out["usage"] = WriteUsage(s.usage);
  if (s.start_time != 0) out["start"] = FormatDuration(s.start_time);
  if (s.end_time != kForever) out["end"] = FormatDuration(s.end_time);
  if (s.max_per_node != 0) out["max_per_node"] = s.max_per_node;
  if (!s.node_selector.empty()) out["node_selector"] = s.node_selector;
  if (s.startup_s != Service{}.startup_s) out["startup"] = FormatDuration(s.startup_s);
  return out;
}

OrderedJson WriteJob(const BatchJob& j) {
  OrderedJson out = OrderedJson::object();
  out["name"] = j.name;
  out["submit"] = FormatDuration(j.submit_time);
  out["type"] = JobTypeName(j.type);
  out["function"] = j.function;
  out["tasks"] = j.tasks;
  out["requests"] = WriteResources(j.task_requests);
  out["duration_estimate"] = FormatDuration(j.duration_estimate_s);
  if (j.duration_s != j.duration_estimate_s) out["duration"] = FormatDuration(j.duration_s);
  out["utilization"] = j.utilization;
  out["delay_tolerance"] = FormatDuration(j.delay_tolerance_s);
  out["priority"] = j.priority;
  out["gang"] = j.gang;
  return out;
}

std::string_view NodeEventKindName(NodeEvent::Kind kind) {
  switch (kind) {
    case NodeEvent::Kind::kFail:
      return "fail";
    case NodeEvent::Kind::kRecover:
      return "recover";
    case NodeEvent::Kind::kAdd:
      return "add";
  }
  return "";
}

// One plain value as JSON text; a name that is not valid UTF-8 (a trace's, say) is written with
// U+FFFD in place of its bad bytes rather than failing the whole file.
std::string Text(const OrderedJson& value) {
  return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

// Two-space indented JSON with arrays of plain values kept on one line, so that a usage series of
// 288 samples takes one line rather than 288.
void Print(const OrderedJson& value, int indent, std::string& out) {
  std::string inner(indent + 2, ' ');
  bool flat = std::none_of(value.begin(), value.end(),
                           [](const OrderedJson& e) { return e.is_structured(); });
  if (value.is_object() && flat) {
    // Small objects of plain values, such as resource amounts, read best on one line.
    std::string line = "{";
    for (const auto& [key, member] : value.items()) {
      line += (line.size() == 1 ? "" : ", ") + Text(OrderedJson(key)) + ": " + Text(member);
    }
    line += "}";
    if (line.size() <= 96) {
      out += line;
      return;
    }
  }
  if (value.is_object() && !value.empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& [key, member] : value.items()) {
      out += (first ? "" : ",\n") + inner + Text(OrderedJson(key)) + ": ";
      Print(member, indent + 2, out);
      first = false;
    }
    out += "\n" + std::string(indent, ' ') + "}";
  } else if (value.is_array() && !flat) {
    out += "[\n";
    for (size_t i = 0; i < value.size(); ++i) {
      out += (i == 0 ? "" : ",\n") + inner;
      Print(value[i], indent + 2, out);
    }
    out += "\n" + std::string(indent, ' ') + "]";
  } else if (value.is_array()) {
    out += "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i == 0 ? "" : ", ") + Text(value[i]);
    out += "]";
  } else {
    out += Text(value);
  }
}

}  // namespace

Scenario ParseScenarioJson(const json& document, const std::string& source_name,
                           std::vector<std::string>* rejected_jobs) {
  JsonObject root(JsonValue(source_name, document, ""));
  Scenario scenario;
  if (std::optional<JsonValue> name = root.Find("name")) scenario.name = name->String();
  if (std::optional<JsonValue> duration = root.Find("duration")) {
    scenario.duration_s = duration->Duration(1, kMaxDurationSeconds);
  }

  std::optional<JsonValue> nodes = root.Find("nodes");
  if (nodes) {
    std::vector<JsonValue> elements = nodes->Elements();
    if (elements.size() > kMaxNodes) {
      nodes->Fail("has " + std::to_string(elements.size()) + " nodes; the limit is " +
                  std::to_string(kMaxNodes));
    }
    for (const JsonValue& e : elements) scenario.nodes.push_back(ReadNode(e, /*named=*/true));
    RejectDuplicateNames(scenario.nodes, elements, "node");
  }

  std::optional<JsonValue> services = root.Find("services");
  if (services) {
    std::vector<JsonValue> elements = services->Elements();
    for (const JsonValue& e : elements) scenario.workload.services.push_back(ReadService(e));
    RejectDuplicateNames(scenario.workload.services, elements, "service");
  }

  if (std::optional<JsonValue> jobs = root.Find("jobs"))
    scenario.workload.jobs = ReadJobs(*jobs, rejected_jobs);

  if (std::optional<JsonValue> node_events = root.Find("node_events")) {
    std::vector<JsonValue> elements = node_events->Elements();
    std::vector<NodeEvent> events;
    std::vector<int64_t> times;
    for (const JsonValue& e : elements) {
      events.push_back(ReadNodeEvent(e));
      times.push_back(events.back().time);
    }
    std::vector<size_t> order = TimeOrder(times);
    const auto added = std::count_if(events.begin(), events.end(), [](const NodeEvent& e) {
      return e.kind == NodeEvent::Kind::kAdd;
    });
    if (scenario.nodes.size() + added > kMaxNodes) {
      node_events->Fail("adds " + std::to_string(added) + " nodes to the " +
                        std::to_string(scenario.nodes.size()) + " of nodes; the limit is " +
                        std::to_string(kMaxNodes));
    }
    if (nodes) CheckNodeReferences(events, elements, order, scenario.nodes);
    scenario.workload.node_events = Permuted(std::move(events), order);
  }

  if (std::optional<JsonValue> scale_events = root.Find("scale_events")) {
    std::vector<JsonValue> elements = scale_events->Elements();
    std::vector<ScaleEvent> events;
    std::vector<int64_t> times;
    std::set<std::string_view> service_names;
    for (const Service& s : scenario.workload.services) service_names.insert(s.name);
    for (const JsonValue& e : elements) {
      events.push_back(ReadScaleEvent(e));
      times.push_back(events.back().time);
      if (services && !service_names.contains(events.back().service)) {
        e.Fail("unknown service " + Quoted(events.back().service));
      }
    }
    scenario.workload.scale_events = Permuted(std::move(events), TimeOrder(times));
  }

  root.RejectUnknownKeys();
  return scenario;
}

Scenario ReadScenarioFile(const std::string& path) {
  return ParseScenarioJson(ReadJsonFile(path), path);
}

std::string FormatScenarioJson(const Scenario& scenario) {
  OrderedJson out = OrderedJson::object();
  if (!scenario.name.empty()) out["name"] = scenario.name;
  out["duration"] = FormatDuration(scenario.duration_s);
  const Workload& w = scenario.workload;
  if (!scenario.nodes.empty()) {
    for (const Node& n : scenario.nodes) out["nodes"].push_back(WriteNode(n, /*named=*/true));
  }
  for (const Service& s : w.services) out["services"].push_back(WriteService(s));
  for (const BatchJob& j : w.jobs) out["jobs"].push_back(WriteJob(j));
  for (const NodeEvent& e : w.node_events) {
    OrderedJson event = {
        {"time", FormatDuration(e.time)}, {"kind", NodeEventKindName(e.kind)}, {"node", e.node}};
    if (e.kind == NodeEvent::Kind::kAdd) event["spec"] = WriteNode(e.spec, /*named=*/false);
    out["node_events"].push_back(std::move(event));
  }
  for (const ScaleEvent& e : w.scale_events) {
    out["scale_events"].push_back(
        {{"time", FormatDuration(e.time)}, {"service", e.service}, {"replicas", e.replicas}});
  }
  std::string text;
  Print(out, 0, text);
  return text + "\n";
}

void WriteScenarioFile(const Scenario& scenario, const std::string& path) {
  WriteFileAtomically(path, FormatScenarioJson(scenario));
}

std::vector<BatchJob> ReadJobsFile(const std::string& path, std::vector<std::string>* rejected) {
  json document = ReadJsonFile(path);
  JsonValue root(path, document, "");
  if (document.is_array()) return ReadJobs(root, rejected);
  if (!document.is_object()) root.Fail("expected a jobs array or an object with a jobs array");
  JsonObject o(root);
  std::vector<BatchJob> jobs = ReadJobs(o.Require("jobs"), rejected);
  o.RejectUnknownKeys();
  return jobs;
}

BatchJob ParseJobJson(const json& job, const std::string& source_name) {
  return ReadJob(JsonValue(source_name, job, ""));
}

}  // namespace archimedes
