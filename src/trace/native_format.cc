#include "trace/native_format.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "model/quantity.h"

namespace archimedes {
namespace {

using nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

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

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

struct DurationUnit {
  char suffix;
  int64_t seconds;
};
constexpr DurationUnit kDurationUnits[] = {{'d', 86'400}, {'h', 3'600}, {'m', 60}, {'s', 1}};

std::string_view CanonicalUnit(Dim d) {
  switch (d) {
    case Dim::kCpu:
      return "millicores";
    case Dim::kMemory:
      return "bytes";
    case Dim::kDisk:
    case Dim::kNetwork:
      return "bytes per second";
    case Dim::kGpu:
      return "thousandths of a GPU";
  }
  return "";
}

// `path` is the JSON path of the value, empty outside a document.
int64_t ParseDurationAt(std::string_view text, const std::string& source, const std::string& path) {
  auto fail = [&](const std::string& why) -> int64_t {
    throw TraceError(source, 0,
                     (path.empty() ? "" : path + ": ") + "duration " + Quoted(text) + ": " + why);
  };
  std::string_view rest = text;
  bool negative = !rest.empty() && rest[0] == '-';
  if (negative) rest.remove_prefix(1);
  if (rest.empty()) return fail("empty");
  __int128 total = 0;
  while (!rest.empty()) {
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0) return fail("expected a number before each unit");
    if (digits > 18) return fail("number too large");
    int64_t amount = 0;
    std::from_chars(rest.data(), rest.data() + digits, amount);
    if (digits == rest.size()) return fail("missing unit after " + std::string(rest));
    char suffix = rest[digits];
    const DurationUnit* unit = nullptr;
    for (const DurationUnit& u : kDurationUnits) {
      if (u.suffix == suffix) unit = &u;
    }
    if (unit == nullptr) {
      return fail("unknown unit '" + std::string(1, suffix) + "' (use s, m, h or d)");
    }
    total += static_cast<__int128>(amount) * unit->seconds;
    if (total > static_cast<__int128>(kInt64Max) + (negative ? 1 : 0)) return fail("too long");
    rest.remove_prefix(digits + 1);
  }
  return static_cast<int64_t>(negative ? -total : total);
}

// A JSON value and where it sits in its document, so that every complaint about it names the file
// and the JSON path.
class Value {
 public:
  Value(const std::string& source, const json& value, std::string path)
      : source_(&source), json_(&value), path_(std::move(path)) {}

  const json& raw() const { return *json_; }
  const std::string& source() const { return *source_; }
  const std::string& path() const { return path_; }

  TraceError Error(const std::string& reason) const {
    return TraceError(*source_, 0, (path_.empty() ? "" : path_ + ": ") + reason);
  }
  [[noreturn]] void Fail(const std::string& reason) const { throw Error(reason); }

  Value Member(const std::string& key, const json& value) const {
    return Value(*source_, value, path_.empty() ? key : path_ + "." + key);
  }

  std::vector<Value> Elements() const {
    if (!json_->is_array()) Fail("expected an array, got " + Describe());
    std::vector<Value> out;
    out.reserve(json_->size());
    for (size_t i = 0; i < json_->size(); ++i) {
      out.emplace_back(*source_, (*json_)[i], path_ + "[" + std::to_string(i) + "]");
    }
    return out;
  }

  std::string Describe() const {
    std::string text = json_->dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(json_->type_name()) + " " + text;
  }

  std::string String() const {
    if (!json_->is_string()) Fail("expected a string, got " + Describe());
    return json_->get<std::string>();
  }

  // A string that names something: not empty.
  std::string Name() const {
    std::string name = String();
    if (name.empty()) Fail("a name must not be empty");
    return name;
  }

  bool Bool() const {
    if (!json_->is_boolean()) Fail("expected true or false, got " + Describe());
    return json_->get<bool>();
  }

  int64_t Integer(int64_t min = kInt64Min, int64_t max = kInt64Max) const {
    int64_t v = 0;
    if (json_->is_number_unsigned()) {
      if (json_->get<uint64_t>() > static_cast<uint64_t>(kInt64Max)) Fail("number out of range");
      v = json_->get<int64_t>();
    } else if (json_->is_number_integer()) {
      v = json_->get<int64_t>();
    } else if (json_->is_number_float()) {
      double d = json_->get<double>();
      if (d != std::floor(d) || std::fabs(d) >= 9.2e18) {
        Fail("expected a whole number, got " + json_->dump());
      }
      v = static_cast<int64_t>(d);
    } else {
      Fail("expected a whole number, got " + Describe());
    }
    CheckRange(v, min, max);
    return v;
  }

  int Int(int min = INT_MIN, int max = INT_MAX) const {
    return static_cast<int>(Integer(min, max));
  }

  double Number(double min = -kInfinity, double max = kInfinity) const {
    if (!json_->is_number()) Fail("expected a number, got " + Describe());
    double v = json_->get<double>();
    if (v < min) Fail(json_->dump() + " is below the minimum " + ShortNumber(min));
    if (v > max) Fail(json_->dump() + " is above the maximum " + ShortNumber(max));
    return v;
  }

  // Whole seconds, or a duration string ("90s", "1h30m").
  int64_t Duration(int64_t min = kInt64Min) const {
    int64_t v = 0;
    if (json_->is_string()) {
      v = ParseDurationAt(json_->get<std::string>(), *source_, path_);
    } else if (json_->is_number()) {
      v = Integer();
    } else {
      Fail("expected seconds or a duration such as \"5m\", got " + Describe());
    }
    if (v < min) Fail(FormatDuration(v) + " is below the minimum " + FormatDuration(min));
    return v;
  }

  // A resource amount in canonical units: a quantity string, or a whole non-negative number.
  int64_t Amount(Dim d) const {
    int64_t v = 0;
    if (json_->is_string()) {
      try {
        Quantity q = Quantity::Parse(json_->get<std::string>());
        v = IsMilliDim(d) ? q.MilliValue() : q.Value();
      } catch (const QuantityError& e) {
        Fail(e.what());
      }
    } else if (json_->is_number()) {
      if (json_->is_number_float() && json_->get<double>() != std::floor(json_->get<double>())) {
        Fail("a plain number is in canonical units (" + std::string(CanonicalUnit(d)) +
             ") and must be whole; write fractions as a quantity string such as \"0.5\"");
      }
      v = Integer();
    } else {
      Fail("expected a quantity such as \"500m\" or \"4Gi\", got " + Describe());
    }
    if (v < 0) Fail("a resource amount must not be negative, got " + FormatAmount(d, v));
    return v;
  }

  // One sample of a usage series in canonical units: a quantity string or any number.
  float Sample(Dim d) const {
    double v = 0;
    if (json_->is_string()) {
      try {
        Quantity q = Quantity::Parse(json_->get<std::string>());
        v = static_cast<double>(q.nano()) / (IsMilliDim(d) ? 1e6 : 1e9);
      } catch (const QuantityError& e) {
        Fail(e.what());
      }
    } else if (json_->is_number()) {
      v = json_->get<double>();
    } else {
      Fail("expected a quantity or a number, got " + Describe());
    }
    if (v < 0) Fail("usage must not be negative, got " + json_->dump());
    return static_cast<float>(v);
  }

 private:
  static std::string ShortNumber(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  }

  void CheckRange(int64_t v, int64_t min, int64_t max) const {
    if (v < min) Fail(std::to_string(v) + " is below the minimum " + std::to_string(min));
    if (v > max) Fail(std::to_string(v) + " is above the maximum " + std::to_string(max));
  }

  const std::string* source_;
  const json* json_;
  std::string path_;
};

// A JSON object whose keys are asked for by name; a key never asked for is a typo and rejected.
class Object {
 public:
  explicit Object(const Value& value) : value_(value) {
    if (!value.raw().is_object()) value.Fail("expected an object, got " + value.Describe());
  }

  std::optional<Value> Find(const std::string& key) {
    known_.insert(key);
    auto it = value_.raw().find(key);
    if (it == value_.raw().end()) return std::nullopt;
    return value_.Member(key, *it);
  }

  Value Require(const std::string& key) {
    if (std::optional<Value> v = Find(key)) return *v;
    std::string reason = "missing required key " + Quoted(key);
    for (const auto& [present, unused] : value_.raw().items()) {
      if (EditDistance(present, key) <= 2) reason += " (found " + Quoted(present) + ")";
    }
    value_.Fail(reason);
  }

  // Call once every key has been asked for.
  void RejectUnknownKeys() const {
    for (const auto& [key, member] : value_.raw().items()) {
      if (known_.contains(key)) continue;
      std::string reason = "unknown key " + Quoted(key);
      std::string closest;
      int best = 3;
      for (const std::string& k : known_) {
        int d = EditDistance(k, key);
        if (d < best) best = d, closest = k;
      }
      if (!closest.empty()) {
        reason += "; did you mean " + Quoted(closest) + "?";
      } else {
        std::string list;
        for (const std::string& k : known_) list += (list.empty() ? "" : ", ") + k;
        reason += "; expected one of " + list;
      }
      value_.Member(key, member).Fail(reason);
    }
  }

 private:
  Value value_;
  std::set<std::string> known_;
};

std::map<std::string, std::string> ReadStringMap(const Value& v) {
  if (!v.raw().is_object()) v.Fail("expected an object of strings, got " + v.Describe());
  std::map<std::string, std::string> out;
  for (const auto& [key, member] : v.raw().items()) out[key] = v.Member(key, member).String();
  return out;
}

Resources ReadResources(const Value& v) {
  Object o(v);
  Resources r;
  for (Dim d : kAllDims) {
    if (std::optional<Value> amount = o.Find(std::string(DimName(d)))) r[d] = amount->Amount(d);
  }
  o.RejectUnknownKeys();
  return r;
}

// `named` is false for the spec of a node event, whose name is the event's `node`.
Node ReadNode(const Value& v, bool named) {
  Object o(v);
  Node n;
  if (named) n.name = o.Require("name").Name();
  n.capacity = ReadResources(o.Require("capacity"));
  n.allocatable = n.capacity;
  if (std::optional<Value> allocatable = o.Find("allocatable")) {
    n.allocatable = ReadResources(*allocatable);
    if (!n.allocatable.FitsIn(n.capacity)) {
      allocatable->Fail("allocatable " + ToString(n.allocatable) + " exceeds capacity " +
                        ToString(n.capacity));
    }
  }
  if (std::optional<Value> zone = o.Find("zone")) n.zone = zone->String();
  if (std::optional<Value> pod = o.Find("pod")) n.pod = pod->String();
  if (std::optional<Value> labels = o.Find("labels")) n.labels = ReadStringMap(*labels);
  if (std::optional<Value> condition = o.Find("condition")) {
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

UsagePattern ReadUsage(const Value& v, const Resources& requests) {
  Object o(v);
  UsagePattern p;
  if (std::optional<Value> step = o.Find("step")) p.step_seconds = step->Duration(1);
  std::optional<std::pair<size_t, std::string>> first;  // samples and path of the first series
  for (Dim d : kAllDims) {
    std::string name(DimName(d));
    std::string fraction_key = name + "_fraction_of_request";
    std::optional<Value> absolute = o.Find(name);
    std::optional<Value> fraction = o.Find(fraction_key);
    if (absolute && fraction) {
      fraction->Fail("give either " + name + " or " + fraction_key + ", not both");
    }
    if (!absolute && !fraction) continue;
    const Value& series = absolute ? *absolute : *fraction;
    if (fraction && requests[d] == 0) {
      series.Fail("a fraction of the request needs a " + name + " request");
    }
    std::vector<float>& values = p.values[static_cast<int>(d)];
    for (const Value& sample : series.Elements()) {
      values.push_back(absolute ? sample.Sample(d)
                                : static_cast<float>(sample.Number(0) * requests[d]));
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
  if (std::optional<Value> noise = o.Find("noise")) p.noise = static_cast<float>(noise->Number(0));
  if (std::optional<Value> probability = o.Find("burst_probability")) {
    p.burst_probability = static_cast<float>(probability->Number(0, 1));
  }
  if (std::optional<Value> factor = o.Find("burst_factor")) {
    p.burst_factor = static_cast<float>(factor->Number(1));
  }
  if (std::optional<Value> leaks = o.Find("leak_per_day")) {
    p.leak_per_day = static_cast<float>(leaks->Number(0));
  }
  if (std::optional<Value> rate = o.Find("leak_rate")) {
    p.leak_rate = static_cast<float>(rate->Number(0));
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

Service ReadService(const Value& v) {
  Object o(v);
  Service s;
  s.name = o.Require("name").Name();
  std::optional<Value> app = o.Find("app");
  s.app = app ? app->Name() : s.name;
  if (std::optional<Value> replicas = o.Find("replicas")) s.replicas = replicas->Int(0);
  if (std::optional<Value> requests = o.Find("requests")) s.requests = ReadResources(*requests);
  if (std::optional<Value> limits = o.Find("limits")) {
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
  if (std::optional<Value> priority = o.Find("priority")) s.priority = priority->Int();
  s.qos = DeriveQos(s.requests, s.limits);
  if (std::optional<Value> qos = o.Find("qos")) {
    std::string name = qos->String();
    std::optional<QosClass> parsed = ParseQos(name);
    if (!parsed) {
      qos->Fail("unknown QoS class " + Quoted(name) +
                "; expected Guaranteed, Burstable or BestEffort");
    }
    s.qos = *parsed;
  }
  s.sla = DefaultServiceSla(s.qos, s.replicas);
  if (std::optional<Value> sla = o.Find("sla")) {
    Object sla_object(*sla);
    if (std::optional<Value> a = sla_object.Find("availability"))
      s.sla.availability = a->Number(0, 1);
    if (std::optional<Value> m = sla_object.Find("min_available")) {
      s.sla.min_available = m->Int(0);
      if (s.sla.min_available > s.replicas) {
        m->Fail(std::to_string(s.sla.min_available) + " exceeds the service's " +
                std::to_string(s.replicas) + " replicas");
      }
    }
    sla_object.RejectUnknownKeys();
  }
  if (std::optional<Value> usage = o.Find("usage")) s.usage = ReadUsage(*usage, s.requests);
  if (std::optional<Value> start = o.Find("start")) s.start_time = start->Duration(0);
  if (std::optional<Value> end = o.Find("end")) {
    s.end_time = end->Duration();
    if (s.end_time <= s.start_time) {
      end->Fail("the service ends at " + FormatDuration(s.end_time) + ", not after its start " +
                FormatDuration(s.start_time));
    }
  }
  if (std::optional<Value> max = o.Find("max_per_node")) s.max_per_node = max->Int(0);
  if (std::optional<Value> selector = o.Find("node_selector")) {
    s.node_selector = ReadStringMap(*selector);
  }
  if (std::optional<Value> startup = o.Find("startup")) s.startup_s = startup->Duration(0);
  o.RejectUnknownKeys();
  return s;
}

// The job as written; whether it can run is ValidateJob's to say.
BatchJob ReadJobFields(const Value& v) {
  Object o(v);
  BatchJob j;
  j.name = o.Require("name").Name();
  if (std::optional<Value> submit = o.Find("submit")) j.submit_time = submit->Duration();
  if (std::optional<Value> type = o.Find("type")) {
    std::string name = type->String();
    std::optional<JobType> parsed = ParseJobType(name);
    if (!parsed)
      type->Fail("unknown job type " + Quoted(name) + "; expected serverless or offline");
    j.type = *parsed;
  }
  if (std::optional<Value> function = o.Find("function")) j.function = function->String();
  if (std::optional<Value> tasks = o.Find("tasks")) j.tasks = tasks->Int();
  j.task_requests = ReadResources(o.Require("requests"));
  j.duration_estimate_s = o.Require("duration_estimate").Duration();
  std::optional<Value> duration = o.Find("duration");
  j.duration_s = duration ? duration->Duration() : j.duration_estimate_s;
  if (std::optional<Value> u = o.Find("utilization")) j.utilization = u->Number();
  if (std::optional<Value> tolerance = o.Find("delay_tolerance")) {
    j.delay_tolerance_s = tolerance->Duration();
  }
  if (std::optional<Value> priority = o.Find("priority")) j.priority = priority->Int();
  if (std::optional<Value> gang = o.Find("gang")) j.gang = gang->Bool();
  o.RejectUnknownKeys();
  return j;
}

BatchJob ReadJob(const Value& v) {
  BatchJob j = ReadJobFields(v);
  if (std::string why = ValidateJob(j); !why.empty()) v.Fail(why);
  return j;
}

NodeEvent ReadNodeEvent(const Value& v) {
  Object o(v);
  NodeEvent e;
  e.time = o.Require("time").Duration(0);
  Value kind = o.Require("kind");
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
  std::optional<Value> spec = o.Find("spec");
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

ScaleEvent ReadScaleEvent(const Value& v) {
  Object o(v);
  ScaleEvent e;
  e.time = o.Require("time").Duration(0);
  e.service = o.Require("service").Name();
  e.replicas = o.Require("replicas").Int(0);
  o.RejectUnknownKeys();
  return e;
}

// Fails on the second of two elements of `items` that share a name.
template <typename T>
void RejectDuplicateNames(const std::vector<T>& items, const std::vector<Value>& elements,
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
std::vector<BatchJob> ReadJobs(const Value& v, std::vector<std::string>* rejected = nullptr) {
  std::vector<Value> elements = v.Elements();
  std::vector<BatchJob> parsed;
  parsed.reserve(elements.size());
  for (const Value& e : elements) parsed.push_back(ReadJobFields(e));
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
void CheckNodeReferences(const std::vector<NodeEvent>& events, const std::vector<Value>& elements,
                         const std::vector<size_t>& order, const std::vector<Node>& nodes) {
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

// A key given twice in one object is as likely a mistake as an unknown one, but nlohmann keeps
// only the last; this parser callback tracks the open objects and arrays to reject it with a path.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& source) : source_(&source) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        CountElement();
        frames_.push_back({event == json::parse_event_t::array_start, -1, {}, {}});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          throw TraceError(*source_, 0, Path() + ": key " + Quoted(top.key) + " appears twice");
        }
        break;
      }
      case json::parse_event_t::value:
        CountElement();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    int64_t index;    // of the current element, in an array
    std::string key;  // the current key, in an object
    std::set<std::string> keys;
  };

  void CountElement() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.array) {
        path += "[" + std::to_string(f.index) + "]";
      } else {
        path += (path.empty() ? "" : ".") + f.key;
      }
    }
    return path;
  }

  const std::string* source_;
  std::vector<Frame> frames_;
};

json ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path, 0, "cannot open the file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw TraceError(path, 0, "cannot read the file");
  std::string text = buffer.str();
  try {
    return json::parse(text, DuplicateKeyCheck(path));
  } catch (const json::parse_error& e) {
    // Report the offending character's line in TraceError's own field, and its column here.
    size_t offset = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    int64_t line = 1;
    int64_t column = 1;
    for (size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string detail = e.what();
    size_t start = detail.find(": ", detail.find("parse error"));
    if (start != std::string::npos) detail = detail.substr(start + 2);
    throw TraceError(path, line,
                     "malformed JSON at column " + std::to_string(column) + ": " + detail);
  } catch (const json::out_of_range& e) {
    // A number too large for a double; nlohmann does not say where it is.
    std::string detail = e.what();
    throw TraceError(path, 0, "malformed JSON: " + detail.substr(detail.find(']') + 2));
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
    for (float v : values) series.push_back(Shortest(v));
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
      line += (line.size() == 1 ? "" : ", ") + OrderedJson(key).dump() + ": " + member.dump();
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
      out += (first ? "" : ",\n") + inner + OrderedJson(key).dump() + ": ";
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
    for (size_t i = 0; i < value.size(); ++i) out += (i == 0 ? "" : ", ") + value[i].dump();
    out += "]";
  } else {
    out += value.dump();
  }
}

}  // namespace

Scenario ParseScenarioJson(const json& document, const std::string& source_name,
                           std::vector<std::string>* rejected_jobs) {
  Object root(Value(source_name, document, ""));
  Scenario scenario;
  if (std::optional<Value> name = root.Find("name")) scenario.name = name->String();
  if (std::optional<Value> duration = root.Find("duration")) {
    scenario.duration_s = duration->Duration(1);
  }

  std::optional<Value> nodes = root.Find("nodes");
  if (nodes) {
    std::vector<Value> elements = nodes->Elements();
    for (const Value& e : elements) scenario.nodes.push_back(ReadNode(e, /*named=*/true));
    RejectDuplicateNames(scenario.nodes, elements, "node");
  }

  std::optional<Value> services = root.Find("services");
  if (services) {
    std::vector<Value> elements = services->Elements();
    for (const Value& e : elements) scenario.workload.services.push_back(ReadService(e));
    RejectDuplicateNames(scenario.workload.services, elements, "service");
  }

  if (std::optional<Value> jobs = root.Find("jobs"))
    scenario.workload.jobs = ReadJobs(*jobs, rejected_jobs);

  if (std::optional<Value> node_events = root.Find("node_events")) {
    std::vector<Value> elements = node_events->Elements();
    std::vector<NodeEvent> events;
    std::vector<int64_t> times;
    for (const Value& e : elements) {
      events.push_back(ReadNodeEvent(e));
      times.push_back(events.back().time);
    }
    std::vector<size_t> order = TimeOrder(times);
    if (nodes) CheckNodeReferences(events, elements, order, scenario.nodes);
    scenario.workload.node_events = Permuted(std::move(events), order);
  }

  if (std::optional<Value> scale_events = root.Find("scale_events")) {
    std::vector<Value> elements = scale_events->Elements();
    std::vector<ScaleEvent> events;
    std::vector<int64_t> times;
    std::set<std::string_view> service_names;
    for (const Service& s : scenario.workload.services) service_names.insert(s.name);
    for (const Value& e : elements) {
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
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw TraceError(path, 0, "cannot open the file for writing");
  out << FormatScenarioJson(scenario);
  out.close();
  if (!out) throw TraceError(path, 0, "cannot write the file");
}

std::vector<BatchJob> ReadJobsFile(const std::string& path, std::vector<std::string>* rejected) {
  json document = ReadJsonFile(path);
  Value root(path, document, "");
  if (document.is_array()) return ReadJobs(root, rejected);
  if (!document.is_object()) root.Fail("expected a jobs array or an object with a jobs array");
  Object o(root);
  std::vector<BatchJob> jobs = ReadJobs(o.Require("jobs"), rejected);
  o.RejectUnknownKeys();
  return jobs;
}

BatchJob ParseJobJson(const json& job, const std::string& source_name) {
  return ReadJob(Value(source_name, job, ""));
}

std::string ValidateJob(const BatchJob& job) {
  if (job.name.empty()) return "name is empty";
  if (job.type != JobType::kServerless && job.type != JobType::kOffline) {
    return "type is unknown; expected serverless or offline";
  }
  if (job.submit_time < 0) {
    return "submit is " + FormatDuration(job.submit_time) +
           "; times count from the start of the scenario and must not be negative";
  }
  if (job.tasks < 1) {
    return "tasks is " + std::to_string(job.tasks) + "; a job needs at least one task";
  }
  if (job.task_requests.IsZero()) return "requests is empty; a task must request some resource";
  if (job.task_requests.AnyNegative()) {
    return "requests has a negative amount: " + ToString(job.task_requests);
  }
  if (job.duration_estimate_s <= 0) {
    return "duration_estimate is " + FormatDuration(job.duration_estimate_s) +
           "; it must be positive";
  }
  if (job.duration_s <= 0) {
    return "duration is " + FormatDuration(job.duration_s) + "; it must be positive";
  }
  if (!std::isfinite(job.utilization) || job.utilization < 0) {
    return "utilization is " + std::to_string(job.utilization) +
           "; it must be a share of the CPU request, 0 or more";
  }
  if (job.delay_tolerance_s < 0) {
    return "delay_tolerance is " + FormatDuration(job.delay_tolerance_s) +
           "; it must not be negative";
  }
  return "";
}

std::string FormatDuration(int64_t seconds) {
  if (seconds == 0) return "0s";
  std::string out = seconds < 0 ? "-" : "";
  // Negated as unsigned so that the most negative value does not overflow.
  uint64_t rest = seconds < 0 ? 0 - static_cast<uint64_t>(seconds) : seconds;
  for (const DurationUnit& unit : kDurationUnits) {
    uint64_t count = rest / unit.seconds;
    if (count == 0) continue;
    out += std::to_string(count) + unit.suffix;
    rest -= count * unit.seconds;
  }
  return out;
}

int64_t ParseDuration(std::string_view text, const std::string& source_name) {
  return ParseDurationAt(text, source_name, "");
}

}  // namespace archimedes
