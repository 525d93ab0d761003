#include "server/objects.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "kube/kube_node.h"
#include "model/duration.h"
#include "model/host_port.h"
#include "model/quantity.h"
#include "server/api_error.h"
#include "trace/json_reader.h"
#include "trace/profile_file.h"

namespace archimedes {
namespace {

const std::string kSource = "request body";

nlohmann::json Parse(const std::string& body) {
  try {
    return ParseJsonText(kSource, body);
  } catch (const JsonError& e) {
    throw FromJsonError(e);
  } catch (const TraceError& e) {
    throw BadRequest(e.what());
  }
}

// Runs `decode`, turning the strict reader's errors into 400s naming their field.
template <typename F>
auto Decoding(F decode) {
  try {
    return decode();
  } catch (const JsonError& e) {
    throw FromJsonError(e);
  }
}

int64_t Amount(const JsonValue& v, Dim d) {
  const std::string text = v.ScalarText();
  int64_t amount = 0;
  try {
    amount = d == Dim::kCpu || d == Dim::kGpu ? ParseMilli(text) : ParseUnits(text);
  } catch (const QuantityError& e) {
    v.Fail(e.what());
  }
  if (amount < 0) v.Fail("quantity \"" + text + "\" must not be negative");
  return amount;
}

Resources DecodeResources(const JsonValue& v) {
  JsonObject o(v);
  Resources r;
  for (Dim d : kAllDims) {
    if (auto m = o.Find(std::string(DimName(d)))) r[d] = Amount(*m, d);
  }
  o.RejectUnknownKeys();
  return r;
}

bool IsNameChar(char c, bool dots) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || (dots && c == '.');
}

void CheckName(const std::string& kind, const std::string& name, size_t max, bool dots) {
  bool ok = !name.empty() && name.size() <= max && name.front() != '-' && name.back() != '-' &&
            name.front() != '.' && name.back() != '.';
  for (char c : name) ok = ok && IsNameChar(c, dots);
  if (!ok) {
    throw BadRequest(kind + " name \"" + name + "\" is not valid: use at most " +
                         std::to_string(max) + " lowercase letters, digits and '-'" +
                         (dots ? " or '.'" : "") + ", starting and ending with a letter or digit",
                     "metadata.name");
  }
}

// Reads `apiVersion`, `kind`, `metadata` and ignores `status`; returns the metadata.
ObjectMeta DecodeMeta(JsonObject& root, const std::string& kind, const std::string& path_name) {
  if (auto v = root.Find("apiVersion"); v && v->String() != "archimedes.io/v1") {
    v->Fail("expected \"archimedes.io/v1\"");
  }
  if (auto v = root.Find("kind"); v && v->String() != kind) v->Fail("expected \"" + kind + "\"");
  root.Find("status");
  ObjectMeta meta;
  if (auto m = root.Find("metadata")) {
    JsonObject o(*m);
    if (auto name = o.Find("name")) {
      if (path_name.empty()) {
        name->Fail("is given by the server");
      } else if (name->String() != path_name) {
        name->Fail("\"" + name->String() + "\" differs from the name in the path, \"" + path_name +
                   "\"");
      }
    }
    if (auto labels = o.Find("labels")) meta.labels = labels->StringMap();
    if (auto rv = o.Find("resourceVersion")) {
      const std::string text = rv->ScalarText();
      int64_t version = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
      if (ec != std::errc() || end != text.data() + text.size() || version <= 0) {
        rv->Fail("expected a resourceVersion the server gave, got \"" + text + "\"");
      }
      meta.resource_version = version;
    }
    o.RejectUnknownKeys();
  }
  return meta;
}

// Taints, tolerations and node affinity in Kubernetes' own shape (kube/kube_node.h).
template <typename F>
auto KubeField(const JsonValue& v, const std::string& path, F decode) {
  try {
    return decode(Field(&v.raw(), path));
  } catch (const KubeError& e) {
    throw BadRequest(e.what(), e.path());
  }
}

// Limits no dimension of which is below its request (zero: no limit).
Resources DecodeLimits(const JsonValue& value, const Resources& requests, const std::string& what) {
  const Resources limits = DecodeResources(value);
  for (Dim d : kAllDims) {
    if (limits[d] > 0 && limits[d] < requests[d]) {
      const std::string dim(DimName(d));
      throw Invalid(what + ": the " + dim + " limit is below its request", "spec.limits." + dim);
    }
  }
  return limits;
}

}  // namespace

void CheckNodeName(const std::string& name) { CheckName("node", name, 253, true); }
void CheckServiceName(const std::string& name) { CheckName("service", name, 63, false); }

NodeRequest DecodeNode(const std::string& name, const std::string& body) {
  CheckNodeName(name);
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    NodeRequest r;
    r.meta = DecodeMeta(root, "Node", name);
    r.node.name = name;
    r.node.labels = r.meta.labels;
    JsonObject spec(root.Require("spec"));
    r.node.capacity = DecodeResources(spec.Require("capacity"));
    if (r.node.capacity.cpu() <= 0 || r.node.capacity.memory() <= 0) {
      throw Invalid("node \"" + name + "\" needs some cpu and memory capacity", "spec.capacity");
    }
    r.node.allocatable = r.node.capacity;
    if (auto a = spec.Find("allocatable")) {
      r.node.allocatable = DecodeResources(*a);
      if (!r.node.allocatable.FitsIn(r.node.capacity)) {
        throw Invalid("node \"" + name + "\": allocatable " + ToString(r.node.allocatable) +
                          " exceeds capacity " + ToString(r.node.capacity),
                      "spec.allocatable");
      }
    }
    if (auto z = spec.Find("zone")) r.node.zone = z->String();
    if (auto p = spec.Find("pod")) r.node.pod = p->String();
    if (auto t = spec.Find("taints")) r.node.taints = KubeField(*t, "spec.taints", DecodeTaints);
    if (auto a = spec.Find("address")) {
      r.address = a->String();
      if (const std::string problem = HostPortProblem(r.address); !problem.empty()) {
        a->Fail(problem);
      }
      r.probe = "healthz";
    }
    if (auto p = spec.Find("probe")) {
      r.probe = p->String();
      if (r.address.empty()) p->Fail("a probe needs spec.address, where to probe");
      if (r.probe != "healthz" && r.probe != "tcp") p->Fail("expected healthz or tcp");
    }
    spec.RejectUnknownKeys();
    root.RejectUnknownKeys();
    return r;
  });
}

const char* NodeStateName(NodeState state) {
  switch (state) {
    case NodeState::kReady:
      return "Ready";
    case NodeState::kSuspect:
      return "Suspect";
    case NodeState::kNotReady:
      return "NotReady";
  }
  return "NotReady";
}

NodeStatusRequest DecodeNodeStatus(const std::string& name, const std::string& body) {
  CheckNodeName(name);
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    NodeStatusRequest r;
    r.meta = DecodeMeta(root, "Node", name);
    root.Find("spec");
    JsonObject status(root.Require("status"));
    const JsonValue condition = status.Require("condition");
    const std::string text = condition.String();
    if (text == "Removed") {
      throw Invalid("node \"" + name + "\": a node is removed by DELETE /v1/nodes/" + name +
                        " (its containers are drained), not by its status",
                    "status.condition");
    }
    if (text == "Ready") {
      r.state = NodeState::kReady;
    } else if (text == "Suspect") {
      r.state = NodeState::kSuspect;
    } else if (text == "NotReady") {
      r.state = NodeState::kNotReady;
    } else {
      condition.Fail("expected Ready, Suspect or NotReady");
    }
    if (std::optional<JsonValue> reason = status.Find("reason")) r.reason = reason->String();
    // What GET shows besides the condition: a status read, changed and sent back is accepted.
    for (const char* shown : {"requested", "taskRequested", "usage", "containers"}) {
      status.Find(shown);
    }
    status.RejectUnknownKeys();
    root.RejectUnknownKeys();
    return r;
  });
}

ServiceRequest DecodeService(const std::string& name, const std::string& body) {
  CheckServiceName(name);
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    ServiceRequest r;
    r.meta = DecodeMeta(root, "Service", name);
    Service& s = r.service;
    s.name = name;
    JsonObject spec(root.Require("spec"));
    s.replicas = spec.Require("replicas").Int(0, 100000);
    if (auto a = spec.Find("app")) s.app = a->Name();
    s.requests = DecodeResources(spec.Require("requests"));
    if (auto l = spec.Find("limits")) {
      s.limits = DecodeLimits(*l, s.requests, "service \"" + name + "\"");
    }
    if (auto c = spec.Find("command")) r.command = c->String();
    if (auto p = spec.Find("priority")) s.priority = p->Int();
    if (auto q = spec.Find("qos")) {
      const std::optional<QosClass> qos = ParseQos(q->String());
      if (!qos) q->Fail("expected Guaranteed, Burstable or BestEffort");
      s.qos = *qos;
    }
    s.sla = DefaultServiceSla(s.qos, s.replicas);
    if (auto sla = spec.Find("sla")) {
      JsonObject o(*sla);
      if (auto a = o.Find("availability")) s.sla.availability = a->Number(0, 1);
      // A service scaled to zero keeps the contract it has when it runs.
      if (auto m = o.Find("minAvailable")) {
        s.sla.min_available =
            m->Int(0, s.replicas > 0 ? s.replicas : std::numeric_limits<int>::max());
      }
      o.RejectUnknownKeys();
    }
    if (auto m = spec.Find("maxPerNode")) s.max_per_node = m->Int(0);
    if (auto sel = spec.Find("nodeSelector")) s.node_selector = sel->StringMap();
    if (auto st = spec.Find("startup")) s.startup_s = st->Duration(0);
    if (auto t = spec.Find("tolerations")) {
      s.tolerations = KubeField(*t, "spec.tolerations", DecodeTolerations);
    }
    if (auto a = spec.Find("nodeAffinity")) {
      s.node_affinity = KubeField(*a, "spec.nodeAffinity", DecodeNodeSelector);
    }
    spec.RejectUnknownKeys();
    root.RejectUnknownKeys();
    return r;
  });
}

JobRequest DecodeJob(const std::string& name, const std::string& body) {
  const nlohmann::json doc = Parse(body);
  JobRequest r = Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    JobRequest r;
    r.meta = DecodeMeta(root, "Job", "");
    BatchJob& j = r.job;
    j.name = name;
    JsonObject spec(root.Require("spec"));
    const JsonValue kind = spec.Require("kind");
    const std::optional<JobType> type = ParseJobType(kind.String());
    if (!type) kind.Fail("expected serverless or offline");
    j.type = *type;
    if (auto f = spec.Find("function")) j.function = f->String();
    j.tasks = spec.Require("tasks").Int(1, 100000);
    j.task_requests = DecodeResources(spec.Require("requests"));
    if (auto l = spec.Find("limits")) r.limits = DecodeLimits(*l, j.task_requests, "job");
    j.duration_estimate_s = spec.Require("durationEstimate").Duration(1);
    j.duration_s = j.duration_estimate_s;
    if (auto t = spec.Find("delayTolerance")) j.delay_tolerance_s = t->Duration(0);
    if (auto g = spec.Find("gang")) j.gang = g->Bool();
    if (auto p = spec.Find("priority")) j.priority = p->Int();
    if (auto g = spec.Find("giveUpAfter")) r.give_up_after_s = g->Duration(0);
    spec.RejectUnknownKeys();
    root.RejectUnknownKeys();
    return r;
  });
  if (const std::string why = ValidateJobShape(r.job); !why.empty())
    throw Invalid("job: " + why, "spec");
  return r;
}

ContainerStatusRequest DecodeContainerStatus(const std::string& body) {
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    ContainerStatusRequest r;
    const JsonValue phase = root.Require("phase");
    const std::string text = phase.String();
    if (text == "Running") {
      r.phase = ContainerPhase::kRunning;
    } else if (text == "Succeeded") {
      r.phase = ContainerPhase::kSucceeded;
    } else if (text == "Failed") {
      r.phase = ContainerPhase::kFailed;
    } else if (text == "OOMKilled") {
      r.phase = ContainerPhase::kOomKilled;
    } else {
      phase.Fail("expected Running, Succeeded, Failed or OOMKilled");
    }
    if (auto e = root.Find("exitCode")) r.exit_code = e->Int();
    root.RejectUnknownKeys();
    return r;
  });
}

std::vector<UsageReport> DecodeUsage(const std::string& body) {
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    std::vector<UsageReport> reports;
    for (const JsonValue& v : root.Require("samples").Elements()) {
      JsonObject o(v);
      UsageReport report;
      report.container = o.Require("container").Name();
      const Resources usage = DecodeResources(o.Require("usage"));
      for (int d = 0; d < kNumDims; ++d) report.usage[d] = static_cast<float>(usage.amount[d]);
      if (auto w = o.Find("workDone")) report.work_done_s = static_cast<double>(w->Duration(0));
      o.RejectUnknownKeys();
      reports.push_back(std::move(report));
    }
    root.RejectUnknownKeys();
    return reports;
  });
}

PriorsRequest DecodePriors(const std::string& body) {
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    PriorsRequest r;
    if (auto profiles = root.Find("profiles")) r.profiles = ReadProfilesJson(*profiles);
    if (auto shapes = root.Find("taskShapes")) {
      for (const JsonValue& v : shapes->Elements()) {
        JsonObject o(v);
        const JsonValue requests = o.Require("requests");
        const Resources shape = DecodeResources(requests);
        if (shape.IsZero()) requests.Fail("a task shape requests something");
        for (const auto& [seen, weight] : r.task_shapes) {
          if (seen == shape) requests.Fail("this shape is given twice");
        }
        const JsonValue weight = o.Require("weight");
        const double w = weight.Number(0, 1);
        if (w <= 0) weight.Fail("a weight is above 0");
        o.RejectUnknownKeys();
        r.task_shapes.emplace_back(shape, w);
      }
      double sum = 0;
      for (const auto& [shape, w] : r.task_shapes) sum += w;
      constexpr double kSumTolerance = 1e-6;
      if (!r.task_shapes.empty() && std::abs(sum - 1) > kSumTolerance) {
        shapes->Fail("the weights are shares of the mix and sum to 1, not " + std::to_string(sum));
      }
    }
    root.RejectUnknownKeys();
    return r;
  });
}

nlohmann::json EncodeTaskShapes(const std::vector<std::pair<Resources, double>>& task_shapes) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& [requests, weight] : task_shapes) {
    shapes.push_back({{"requests", EncodeResources(requests)}, {"weight", weight}});
  }
  return shapes;
}

nlohmann::json EncodePriors(const ProfileSet& profiles,
                            const std::vector<std::pair<Resources, double>>& task_shapes) {
  return {{"profiles", ProfilesJson(profiles)}, {"taskShapes", EncodeTaskShapes(task_shapes)}};
}

int64_t DecodeClock(const std::string& body, int64_t now) {
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    std::optional<JsonValue> time = root.Find("time");
    std::optional<JsonValue> advance = root.Find("advance");
    root.RejectUnknownKeys();
    if (time.has_value() == advance.has_value()) {
      throw BadRequest(
          "give either time (seconds since the clock's start, or a duration) or "
          "advance (a duration)");
    }
    if (advance) return now + advance->Duration(0);
    const int64_t to = time->Duration(0);
    if (to < now) {
      time->Fail("the clock is at " + std::to_string(now) + " s and never goes back");
    }
    return to;
  });
}

DriveRequest DecodeDrive(const std::string& body, int64_t now) {
  const nlohmann::json doc = Parse(body);
  return Decoding([&] {
    JsonObject root(JsonValue(kSource, doc));
    DriveRequest request;
    auto time = [&](const JsonValue& v) {
      const int64_t t = v.Integer(0);
      if (t < now) v.Fail("the clock is at " + std::to_string(now) + " s and never goes back");
      return t;
    };
    auto samples = [&] {
      for (const JsonValue& v : root.Require("samples").Elements()) {
        JsonObject o(v);
        DriveSample sample{.container = o.Require("container").Name()};
        JsonValue usage = o.Require("usage");
        const std::vector<double> amounts = usage.Numbers();
        if (amounts.size() != kNumDims) {
          usage.Fail("has " + std::to_string(amounts.size()) + " numbers, not one per dimension (" +
                     std::to_string(kNumDims) + ")");
        }
        for (int d = 0; d < kNumDims; ++d) sample.usage[d] = static_cast<float>(amounts[d]);
        if (auto w = o.Find("workDone")) sample.work_done_s = w->Number(0);
        if (auto w = o.Find("workTotal")) sample.work_total_s = w->Integer(0);
        o.RejectUnknownKeys();
        request.samples.push_back(std::move(sample));
      }
    };
    if (auto t = root.Find("advanceTo")) {
      request.op = DriveRequest::Op::kAdvanceTo;
      request.time = time(*t);
    } else if (auto through = root.Find("runThrough")) {
      request.op = DriveRequest::Op::kRunThrough;
      request.time = time(*through);
      if (auto stop = root.Find("stopAtAction")) request.stop_at_action = stop->Bool();
    } else if (auto round = root.Find("usageRound")) {
      const std::string phase = round->String();
      if (phase == "begin") {
        request.op = DriveRequest::Op::kRoundBegin;
        samples();
      } else if (phase == "node") {
        request.op = DriveRequest::Op::kRoundNode;
        request.node = root.Require("node").Name();
        samples();
      } else if (phase == "end") {
        request.op = DriveRequest::Op::kRoundEnd;
      } else {
        round->Fail("is \"" + phase + "\", not one of begin, node, end");
      }
    } else {
      throw BadRequest("give one of advanceTo, runThrough or usageRound");
    }
    root.RejectUnknownKeys();
    return request;
  });
}

nlohmann::json EncodeResources(const Resources& r) {
  nlohmann::json out = nlohmann::json::object();
  for (Dim d : kAllDims) {
    if (r[d] == 0) continue;
    out[std::string(DimName(d))] =
        d == Dim::kCpu || d == Dim::kGpu ? FormatMilli(r[d]) : FormatBytes(r[d]);
  }
  return out;
}

nlohmann::json EncodeNodeSpec(const Node& node) {
  nlohmann::json spec = {{"capacity", EncodeResources(node.capacity)},
                         {"allocatable", EncodeResources(node.allocatable)}};
  if (!node.zone.empty()) spec["zone"] = node.zone;
  if (!node.pod.empty()) spec["pod"] = node.pod;
  if (!node.taints.empty()) spec["taints"] = EncodeTaints(node.taints);
  return spec;
}

nlohmann::json EncodeServiceSpec(const Service& s, const std::string& command) {
  nlohmann::json spec = {
      {"replicas", s.replicas},
      {"app", AppName(s)},
      {"requests", EncodeResources(s.requests)},
      {"limits", EncodeResources(s.limits)},
      {"priority", s.priority},
      {"qos", QosName(s.qos)},
      {"sla", {{"availability", s.sla.availability}, {"minAvailable", s.sla.min_available}}},
      {"maxPerNode", s.max_per_node},
      {"nodeSelector", s.node_selector},
      {"startup", FormatDuration(s.startup_s)}};
  if (!s.tolerations.empty()) spec["tolerations"] = EncodeTolerations(s.tolerations);
  if (!s.node_affinity.empty()) spec["nodeAffinity"] = EncodeNodeSelector(s.node_affinity);
  if (!command.empty()) spec["command"] = command;
  return spec;
}

Resources TaskLimits(const Resources& requests, const Resources& limits) {
  Resources out = limits;
  for (Dim d : kAllDims) {
    if (out[d] <= 0) out[d] = requests[d];
  }
  return out;
}

nlohmann::json EncodeJobSpec(const BatchJob& j, std::optional<int64_t> give_up_after_s,
                             const Resources& limits) {
  nlohmann::json spec = {{"kind", JobTypeName(j.type)},
                         {"function", j.function},
                         {"tasks", j.tasks},
                         {"requests", EncodeResources(j.task_requests)},
                         {"durationEstimate", FormatDuration(j.duration_estimate_s)},
                         {"delayTolerance", FormatDuration(j.delay_tolerance_s)},
                         {"gang", j.gang},
                         {"priority", j.priority}};
  if (give_up_after_s) spec["giveUpAfter"] = FormatDuration(*give_up_after_s);
  if (limits != Resources{}) spec["limits"] = EncodeResources(limits);
  return spec;
}

}  // namespace archimedes
