#include "sim/scenario_source.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "sim/kubernetes_fit.h"
#include "trace/json_reader.h"
#include "trace/native_format.h"
#include "trace/real_scenario.h"
#include "trace/trace_error.h"
#include "trace/trace_loader.h"

namespace archimedes {
namespace {

// The operator's check of the real scenario's services (sim/kubernetes_fit.h).
PlacementCheck KubernetesCheck(uint64_t seed) {
  auto fit = std::make_shared<KubernetesFit>(seed);
  return [fit](const std::vector<Node>& fleet, const std::vector<Service>& services) {
    return fit->PlacesEveryReplica(fleet, services);
  };
}

// `overrides` is the "real" object of a scenario file, null for --scenario real.
Scenario Real(const ScenarioRequest& request, const JsonValue* overrides) {
  RealScenarioOptions options{.traces_dir = request.traces_dir,
                              .nodes = request.generator.nodes,
                              .days = request.generator.days,
                              .seed = request.generator.seed};
  if (overrides != nullptr) {
    JsonObject o(*overrides);
    if (std::optional<JsonValue> v = o.Find("traces_dir")) options.traces_dir = v->String();
    if (std::optional<JsonValue> v = o.Find("nodes")) options.nodes = v->Int();
    if (std::optional<JsonValue> v = o.Find("days")) options.days = v->Int();
    if (std::optional<JsonValue> v = o.Find("seed")) options.seed = v->Integer(0);
    if (std::optional<JsonValue> v = o.Find("service_cpu_share")) {
      options.service_cpu_share = v->Number();
    }
    o.RejectUnknownKeys();
  }
  options.places_every_replica = KubernetesCheck(options.seed);
  return BuildRealScenario(options);
}

Scenario FromTrace(const ScenarioRequest& request, const std::string& path) {
  LoadOptions options;
  options.nodes = request.generator.nodes;
  options.days = request.generator.days;
  options.seed = request.generator.seed;
  options.places_every_replica = KubernetesCheck(options.seed);
  options.gpu_packing = request.gpu_packing;
  return LoadTrace(path, options);
}

// How many tasks of `job` the nodes could hold at once, counting up to `enough` at most.
int64_t TaskSlots(const BatchJob& job, const std::vector<const Node*>& nodes, int64_t enough) {
  int64_t slots = 0;
  for (const Node* n : nodes) {
    int64_t on_node = enough;
    for (Dim d : kAllDims) {
      if (job.task_requests[d] > 0) {
        on_node = std::min(on_node, n->capacity[d] / job.task_requests[d]);
      }
    }
    slots += on_node;
    if (slots >= enough) return enough;
  }
  return slots;
}

// Why no node of the fleet can ever run `job`, or "" when one can.
std::string WhyItFitsNowhere(const BatchJob& job, const std::vector<const Node*>& nodes) {
  const int64_t need = job.gang ? job.tasks : 1;
  const int64_t slots = TaskSlots(job, nodes, need);
  if (slots >= need) return "";
  if (slots == 0) {
    Resources largest;
    for (const Node* n : nodes) largest = Max(largest, n->capacity);
    std::string over;
    for (Dim d : kAllDims) {
      if (job.task_requests[d] <= largest[d]) continue;
      Resources one;
      one[d] = job.task_requests[d];
      Resources most;
      most[d] = largest[d];
      over += (over.empty() ? "" : ", ") + ToString(one) + " (the largest node has " +
              (largest[d] > 0 ? ToString(most) : "none") + ")";
    }
    if (over.empty()) return "no node has room for one task (" + ToString(job.task_requests) + ")";
    return "one task requests " + over;
  }
  return "a gang of " + std::to_string(job.tasks) + " tasks must start together but the whole " +
         "fleet holds at most " + std::to_string(slots) + " at once";
}

// Appends every node `scenario` ever has: its fleet and the nodes its events add.
void AddFleetNodes(const Scenario& scenario, std::vector<const Node*>& nodes) {
  for (const Node& n : scenario.nodes) nodes.push_back(&n);
  for (const NodeEvent& e : scenario.workload.node_events) {
    if (e.kind == NodeEvent::Kind::kAdd) nodes.push_back(&e.spec);
  }
}

// Leaves out of `jobs` those no node can ever run, appending "source: job "name": why" to
// `rejected`, or throwing that when `rejected` is null.
void RejectJobsThatFitNowhere(std::vector<BatchJob>& jobs, const std::vector<const Node*>& nodes,
                              const std::string& source, std::vector<std::string>* rejected) {
  std::erase_if(jobs, [&](const BatchJob& job) {
    const std::string why = WhyItFitsNowhere(job, nodes);
    if (why.empty()) return false;
    const TraceError error(source, 0, "job \"" + job.name + "\": " + why);
    if (rejected == nullptr) throw error;
    rejected->emplace_back(error.what());
    return true;
  });
}

Scenario FromFile(const ScenarioRequest& request, const std::string& path,
                  std::vector<std::string>* rejected_jobs) {
  nlohmann::json doc = ReadJsonFile(path);
  const JsonValue root(path, doc);
  if (!doc.is_object()) root.Fail("a scenario file holds a JSON object, not " + root.Describe());
  Scenario base;
  bool has_base = false;
  int bases = doc.contains("generator") + doc.contains("real") + doc.contains("trace");
  if (bases > 1) root.Fail("name at most one of generator, real and trace");
  if (doc.contains("generator")) {
    const JsonValue generator = root.Member("generator", doc["generator"]);
    if (!doc["generator"].is_object()) {
      generator.Fail("expected an object of parameters, got " + generator.Describe());
    }
    GeneratorParams params = request.generator;
    for (const auto& [key, value] : doc["generator"].items()) {
      const JsonValue param = generator.Member(key, value);
      try {
        SetGeneratorParam(params, key, param.ScalarText());
      } catch (const std::invalid_argument& e) {
        param.Fail(e.what());
      }
    }
    base = GenerateScenario(params);
    has_base = true;
  } else if (doc.contains("real")) {
    const JsonValue real = root.Member("real", doc["real"]);
    base = Real(request, &real);
    has_base = true;
  } else if (doc.contains("trace")) {
    base = FromTrace(request, root.Member("trace", doc["trace"]).String());
    has_base = true;
  }
  doc.erase("generator");
  doc.erase("real");
  doc.erase("trace");
  Scenario extra = ParseScenarioJson(doc, path, rejected_jobs);
  // Only the file's own jobs are checked: a trace's are replayed as recorded.
  std::vector<const Node*> nodes;
  AddFleetNodes(base, nodes);
  AddFleetNodes(extra, nodes);
  RejectJobsThatFitNowhere(extra.workload.jobs, nodes, path, rejected_jobs);
  if (!has_base) return extra;
  if (doc.contains("duration")) base.duration_s = extra.duration_s;
  MergeScenario(base, std::move(extra));
  return base;
}

}  // namespace

void MergeScenario(Scenario& base, Scenario extra) {
  if (!extra.name.empty()) base.name = extra.name;
  for (Node& n : extra.nodes) base.nodes.push_back(std::move(n));
  Workload& w = base.workload;
  for (Service& s : extra.workload.services) w.services.push_back(std::move(s));
  for (NodeEvent& e : extra.workload.node_events) w.node_events.push_back(std::move(e));
  for (ScaleEvent& e : extra.workload.scale_events) w.scale_events.push_back(std::move(e));
  for (BatchJob& j : extra.workload.jobs) w.jobs.push_back(std::move(j));
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.submit_time < b.submit_time;
  });
}

Scenario BuildScenario(const ScenarioRequest& request, std::vector<std::string>* rejected_jobs) {
  Scenario scenario;
  if (request.gpu_packing && request.trace.empty()) {
    throw std::invalid_argument("--packing replays a trace: give --trace with a GPU 2023 pod list");
  }
  if (!request.trace.empty()) {
    scenario = FromTrace(request, request.trace);
  } else if (request.scenario == "real") {
    scenario = Real(request, nullptr);
  } else if (!request.scenario.empty()) {
    scenario = FromFile(request, request.scenario, rejected_jobs);
  } else {
    scenario = GenerateScenario(request.generator);
  }
  for (const std::string& path : request.job_files) {
    Scenario jobs;
    jobs.workload.jobs = ReadJobsFile(path, rejected_jobs);
    std::vector<const Node*> nodes;
    AddFleetNodes(scenario, nodes);
    RejectJobsThatFitNowhere(jobs.workload.jobs, nodes, path, rejected_jobs);
    MergeScenario(scenario, std::move(jobs));
  }
  return scenario;
}

}  // namespace archimedes
