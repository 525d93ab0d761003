// The `archimedes simulate` command as a user runs it: real process, real files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "support/command.h"
#include "support/report_json.h"

namespace archimedes {
namespace {

using testing::CommandResult;
using testing::TempPath;

CommandResult Archimedes(const std::string& args) { return testing::RunArchimedes(args); }

std::string TempFile(const std::string& name, const std::string& content) {
  std::string path = TempPath(name);
  std::ofstream(path) << content;
  return path;
}

// Runs `archimedes <args> <flag> FILE` and reads the JSON it wrote to FILE (a temporary file).
struct JsonRun {
  CommandResult result;
  nlohmann::json doc;
};

JsonRun ArchimedesWritingJson(const std::string& args, const std::string& flag) {
  const std::string path = TempPath("written.json");
  JsonRun run{.result = Archimedes(args + " " + flag + " " + path)};
  if (run.result.status == 0) run.doc = nlohmann::json::parse(std::ifstream(path));
  std::filesystem::remove(path);
  return run;
}

TEST(SimulateCliTest, ComparesPoliciesSideBySideAndWritesJson) {
  const auto [r, doc] =
      ArchimedesWritingJson("simulate --nodes 20 --days 1 --warmup 3600", "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* policy :
       {"k8s-default", "k8s-binpack", "reclaim", "archimedes", "services-only"}) {
    EXPECT_NE(r.output.find(policy), std::string::npos) << r.output;
  }
  const nlohmann::json& p = doc["policies"]["k8s-default"];
  for (const char* key : {"allocation_rate", "utilization", "fragmentation_rate", "hot_node_time",
                          "sla", "batch", "disruption", "latency_us"}) {
    EXPECT_TRUE(p.contains(key)) << key;
  }
  EXPECT_GT(p["utilization"]["cpu"].get<double>(), 0.0);
  EXPECT_TRUE(p["batch"].contains("started_within_tolerance"));
  EXPECT_TRUE(p["disruption"].contains("oom_kills"));
  EXPECT_EQ(doc["scenario"]["nodes"].get<int>(), 20);
}

// services-only: the same services placed as k8s-default places them, no batch; every run's
// utilisation is also given as a ratio to it.
TEST(SimulateCliTest, ServicesOnlyIsTheFleetBeforeCoLocation) {
  const auto [r, doc] = ArchimedesWritingJson(
      "simulate --nodes 20 --days 1 --warmup 3600 --quiet --policy k8s-default,services-only",
      "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json& with = doc["policies"]["k8s-default"];
  const nlohmann::json& before = doc["policies"]["services-only"];
  EXPECT_EQ(before["batch"]["tasks"]["submitted"].get<int64_t>(), 0);
  EXPECT_EQ(before["batch"]["offered_core_hours_per_day"].get<double>(), 0.0);
  EXPECT_EQ(before["sla"]["jobs_counted"].get<int>(), 0);
  EXPECT_GT(with["batch"]["tasks"]["submitted"].get<int64_t>(), 0);
  EXPECT_EQ(before["sla"]["services"], with["sla"]["services"]);
  EXPECT_EQ(before["unplaced_replica_share"], with["unplaced_replica_share"]);
  const double cpu_with = with["utilization"]["cpu"].get<double>();
  const double cpu_before = before["utilization"]["cpu"].get<double>();
  EXPECT_GT(cpu_with, cpu_before) << "batch runs in the room services leave";
  EXPECT_DOUBLE_EQ(with["utilization_vs_services_only"]["cpu"].get<double>(),
                   cpu_with / cpu_before);
  EXPECT_DOUBLE_EQ(before["utilization_vs_services_only"]["cpu"].get<double>(), 1.0);
  // Utilisation of what is usable: capacity less the default 10 % burst buffer.
  EXPECT_DOUBLE_EQ(with["utilization_of_usable"]["cpu"].get<double>(), cpu_with / 0.9);
  EXPECT_NE(r.output.find("  vs services-only"), std::string::npos) << r.output;
  const size_t sla_jobs = r.output.find("SLA jobs");
  const std::string row = r.output.substr(sla_jobs, r.output.find('\n', sla_jobs) - sla_jobs);
  EXPECT_EQ(row.back(), '-') << "no job was measured: " << row;
}

// A policy's own burst buffer sets what is usable for it.
TEST(SimulateCliTest, UtilisationOfUsableFollowsTheBurstBuffer) {
  const auto [r, doc] = ArchimedesWritingJson(
      "simulate --nodes 10 --days 1 --warmup 3600 --quiet --policy k8s-default,reclaim "
      "--buffer 0.2",
      "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const auto& [policy, buffer] : {std::pair{"k8s-default", 0.1}, {"reclaim", 0.2}}) {
    const nlohmann::json& p = doc["policies"][policy];
    EXPECT_DOUBLE_EQ(p["utilization_of_usable"]["cpu"].get<double>(),
                     p["utilization"]["cpu"].get<double>() / (1 - buffer))
        << policy;
  }
  EXPECT_NE(r.output.find("  of usable"), std::string::npos) << r.output;
}

// Policies run side by side on threads; every figure, the explanation and the SLA report are those
// of one policy after the other.
TEST(SimulateCliTest, PoliciesSideBySideOnThreadsGiveTheSameReport) {
  const std::string args =
      "simulate --nodes 20 --days 1 --warmup 3600 --quiet --policy "
      "k8s-default,reclaim,archimedes --explain daytime-0003";
  const std::string sla_one = TempPath("sla-one.json"), sla_three = TempPath("sla-three.json");
  auto [one, one_doc] =
      ArchimedesWritingJson(args + " --threads 1 --sla-report " + sla_one, "--json");
  auto [three, three_doc] =
      ArchimedesWritingJson(args + " --threads 3 --sla-report " + sla_three, "--json");
  ASSERT_EQ(one.status, 0) << one.output;
  ASSERT_EQ(three.status, 0) << three.output;
  testing::StripTimings(one_doc);
  testing::StripTimings(three_doc);
  EXPECT_EQ(one_doc, three_doc) << nlohmann::json::diff(one_doc, three_doc).dump(1);
  const std::string first = one.output.substr(0, one.output.find("allocation cpu"));
  EXPECT_NE(first.find("why reclaim placed"), std::string::npos) << one.output;
  EXPECT_EQ(first, three.output.substr(0, three.output.find("allocation cpu")));
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(sla_one)),
            nlohmann::json::parse(std::ifstream(sla_three)));
  std::filesystem::remove(sla_one);
  std::filesystem::remove(sla_three);
}

// The archimedes variants run beside it from the command line, and the planner's full re-plans
// are timed apart from its other calls.
TEST(SimulateCliTest, RunsAnArchimedesVariantBesideIt) {
  const auto [r, doc] = ArchimedesWritingJson(
      "simulate --nodes 10 --days 1 --warmup 3600 --policy archimedes,archimedes-no-borrow",
      "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("archimedes  archimedes-no-borrow"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("full re-plan p99"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("vs services-only"), std::string::npos) << "no services-only run";
  EXPECT_FALSE(doc["policies"]["archimedes"].contains("utilization_vs_services_only"));
  for (const char* policy : {"archimedes", "archimedes-no-borrow"}) {
    const nlohmann::json& timing = doc["policies"][policy]["replan_latency_us"];
    EXPECT_GE(timing["calls"].get<int64_t>(), 12 * 23) << policy << ": a re-plan every bin";
    EXPECT_LE(timing["calls"].get<int64_t>(),
              doc["policies"][policy]["planner_latency_us"]["calls"].get<int64_t>());
  }
}

TEST(SimulateCliTest, WritesPerContractSlaReportThroughASurge) {
  const auto [r, doc] = ArchimedesWritingJson(
      "simulate --nodes 15 --days 2 --surge --policy k8s-binpack,reclaim", "--sla-report");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* policy : {"k8s-binpack", "reclaim"}) {
    const nlohmann::json& p = doc["policies"][policy];
    int services = p["services"]["honoured"].get<int>() + p["services"]["broken"].get<int>();
    EXPECT_GT(services, 0);
    int broken = 0;
    for (const nlohmann::json& c : p["contracts"]) {
      if (c["honoured"].get<bool>()) continue;
      ++broken;
      ASSERT_FALSE(c["breaches"].empty()) << c.dump();  // every broken contract says why and when
      EXPECT_FALSE(c["breaches"][0]["reason"].get<std::string>().empty());
    }
    EXPECT_EQ(broken, p["services"]["broken"].get<int>() + p["jobs"]["broken"].get<int>());
  }
}

TEST(SimulateCliTest, ShrinkFindsTheFewestNodesPerPolicy) {
  const auto [r, doc] = ArchimedesWritingJson(
      "simulate --nodes 12 --days 1 --warmup 21600 --set batch_load=0 "
      "--policy k8s-default,archimedes --shrink",
      "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("predicted peaks cpu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nodes needed"), std::string::npos) << r.output;
  for (const char* policy : {"k8s-default", "archimedes"}) {
    SCOPED_TRACE(policy);
    const nlohmann::json& peaks = doc["policies"][policy]["peak_sum"];
    EXPECT_GT(peaks["predicted"]["cpu"].get<double>(), 0.0);
    EXPECT_GT(peaks["observed"]["memory"].get<double>(), 0.0);
    const nlohmann::json& shrink = doc["shrink"][policy];
    EXPECT_EQ(shrink["full_nodes"].get<int>(), 12);
    ASSERT_FALSE(shrink["nodes_needed"].is_null()) << "the full fleet hosts the services";
    const int needed = shrink["nodes_needed"].get<int>();
    EXPECT_LE(needed, 12);
    // The answer is a hosting size, and the next smaller size the search tried does not host.
    int largest_failing = 0;
    bool needed_hosts = false;
    for (const nlohmann::json& step : shrink["steps"]) {
      const int nodes = step["nodes"].get<int>();
      if (nodes == needed) needed_hosts = step["hosts"].get<bool>();
      if (!step["hosts"].get<bool>()) largest_failing = std::max(largest_failing, nodes);
    }
    EXPECT_TRUE(needed_hosts);
    EXPECT_EQ(largest_failing, needed - 1);
    EXPECT_EQ(shrink["at_needed"]["hot_node_time"].get<double>(), 0.0);
  }
}

// --regime both: the fitting stream, then the overloaded one, each table naming its regime and
// each report written beside the other with its name in it.
TEST(SimulateCliTest, BothRegimesOneAfterTheOther) {
  const std::string json = TempPath("regimes.json");
  const CommandResult r = Archimedes(
      "simulate --nodes 20 --days 2 --quiet --policy reclaim,archimedes --regime both --json " +
      json);
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t fits = r.output.find("regime: fits (batch_load 0.");
  const size_t overloaded = r.output.find("regime: overloaded (batch_load 1.000)");
  ASSERT_NE(fits, std::string::npos) << r.output;
  ASSERT_NE(overloaded, std::string::npos) << r.output;
  EXPECT_LT(fits, overloaded);
  EXPECT_NE(r.output.find("lateness, prio-weighted"), std::string::npos) << r.output;
  std::map<std::string, nlohmann::json> docs;
  for (const char* regime : {"fits", "overloaded"}) {
    const std::string path = TempPath(std::string("regimes-") + regime + ".json");
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    docs[regime] = nlohmann::json::parse(std::ifstream(path));
    std::filesystem::remove(path);
    EXPECT_EQ(docs[regime]["scenario"]["regime"]["name"], regime);
  }
  EXPECT_FALSE(std::filesystem::exists(json));
  // The fitting stream offers less than the overloaded one, on the same fleet and services.
  const auto offered = [&](const std::string& regime) {
    return docs[regime]["policies"]["reclaim"]["batch"]["offered_core_hours_per_day"].get<double>();
  };
  EXPECT_LT(offered("fits"), offered("overloaded"));
  EXPECT_EQ(docs["fits"]["scenario"]["service_replicas"],
            docs["overloaded"]["scenario"]["service_replicas"]);

  const CommandResult on_trace = Archimedes("simulate --scenario real --regime fits");
  EXPECT_NE(on_trace.status, 0);
  EXPECT_NE(on_trace.output.find("--regime applies to the generated scenario"), std::string::npos)
      << on_trace.output;
  const CommandResult with_load =
      Archimedes("simulate --nodes 5 --days 2 --regime fits --set batch_load=0.5");
  EXPECT_NE(with_load.status, 0);
  EXPECT_NE(with_load.output.find("--regime sets batch_load"), std::string::npos)
      << with_load.output;
  const CommandResult unknown = Archimedes("simulate --nodes 5 --days 2 --regime full");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.output.find("--regime"), std::string::npos) << unknown.output;
}

// evaluate: every run's command above its table, the summary, and each run that cannot be made
// (no traces here) named with the reason; the JSON holds the same runs.
TEST(SimulateCliTest, EvaluateWritesTheScorecardAndSaysWhatItSkipped) {
  const std::string md = TempPath("scorecard.md");
  const std::string json = TempPath("scorecard.json");
  const CommandResult r = Archimedes(
      "evaluate --nodes 10 --seeds 1 --traces-dir /nonexistent --out " + md + " --json " + json);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(md);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* expected :
       {"# Archimedes scorecard", "## Summary",
        "| generated, fits, seed 1 | started in tolerance |",
        "archimedes simulate --nodes 10 --days 2 --seed 1 --regime overloaded",
        "- Alibaba 2017 batch trace: /nonexistent/alibaba-v2017/batch_task.csv is missing",
        "- GPU 2023 pod list default, as timed: /nonexistent/alibaba-gpu-v2023/",
        "- GPU 2023 pod list multigpu40, packed: /nonexistent/alibaba-gpu-v2023/"}) {
    EXPECT_NE(page.find(expected), std::string::npos) << expected << "\n" << page;
  }
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(json));
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][1]["name"], "generated, overloaded, seed 1");
  EXPECT_TRUE(doc["runs"][1]["policies"].contains("services-only"));
  std::filesystem::remove(md);
  std::filesystem::remove(json);
}

TEST(SimulateCliTest, BadInputGetsAClearError) {
  CommandResult unknown_policy = Archimedes("simulate --nodes 5 --days 1 --policy k8s-fancy");
  EXPECT_NE(unknown_policy.status, 0);
  EXPECT_NE(unknown_policy.output.find("unknown policy \"k8s-fancy\""), std::string::npos)
      << unknown_policy.output;

  std::string bad = TempFile("bad.json", "{\"nodes\": [ {\"name\": \"a\",, } ]}");
  CommandResult malformed = Archimedes("simulate --scenario " + bad);
  EXPECT_NE(malformed.status, 0);
  EXPECT_NE(malformed.output.find(bad), std::string::npos) << malformed.output;

  CommandResult unknown_param = Archimedes("simulate --nodes 5 --days 1 --set no_such_knob=3");
  EXPECT_NE(unknown_param.status, 0);
  EXPECT_NE(unknown_param.output.find("no_such_knob"), std::string::npos) << unknown_param.output;

  CommandResult explain = Archimedes("simulate --nodes 5 --days 1 --explain nobody");
  EXPECT_NE(explain.status, 0);
  EXPECT_NE(explain.output.find("\"nobody\""), std::string::npos) << explain.output;

  CommandResult packing = Archimedes("simulate --nodes 5 --days 1 --packing");
  EXPECT_NE(packing.status, 0);
  EXPECT_NE(packing.output.find("--packing replays a trace"), std::string::npos) << packing.output;

  CommandResult trace = Archimedes("simulate --trace /nonexistent/trace.csv");
  EXPECT_NE(trace.status, 0);
  EXPECT_NE(trace.output.find("/nonexistent/trace.csv"), std::string::npos) << trace.output;
}

TEST(SimulateCliTest, RunsANativeScenarioFileWithExtraJobs) {
  std::string scenario = TempFile("s.json", R"({
    "name": "two nodes", "duration": "3h",
    "nodes": [{"name": "a", "capacity": {"cpu": "8", "memory": "32Gi"}},
              {"name": "b", "capacity": {"cpu": "8", "memory": "32Gi"}}],
    "services": [{"name": "web", "replicas": 2, "requests": {"cpu": "2", "memory": "4Gi"},
                  "usage": {"step": "5m", "cpu_fraction_of_request": [0.3, 0.5],
                            "memory_fraction_of_request": [0.5, 0.5]}}]})");
  std::string jobs = TempFile("j.json", R"({"jobs": [{"name": "etl", "submit": "10m", "tasks": 4,
    "requests": {"cpu": "1", "memory": "1Gi"}, "duration_estimate": "20m",
    "delay_tolerance": "1h"},
    {"name": "huge", "requests": {"cpu": "64"}, "duration_estimate": "20m"}]})");
  const auto [r, doc] = ArchimedesWritingJson(
      "simulate --warmup 0 --scenario " + scenario + " --jobs " + jobs, "--json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("2 nodes, 1 services (2 replicas"), std::string::npos) << r.output;
  // The impossible job is rejected with its reason; the rest of the run goes on without it.
  EXPECT_NE(r.output.find("1 jobs (4 tasks)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 jobs rejected, not run:\n    " + jobs +
                          ": job \"huge\": one task requests cpu=64 (the largest node has cpu=8)"),
            std::string::npos)
      << r.output;
  ASSERT_EQ(doc["scenario"]["rejected_jobs"].size(), 1u);
  EXPECT_NE(doc["scenario"]["rejected_jobs"][0].get<std::string>().find("job \"huge\""),
            std::string::npos);
}

// A scenario no longer than the warm-up would measure nothing; an empty measurement is refused,
// not printed as figures (issue 15: a 900-s file printed wait 0 s and SLA jobs 100 %).
TEST(SimulateCliTest, RefusesAScenarioNoLongerThanItsWarmUp) {
  const std::string scenario = TempFile("short.json", R"({"duration": "15m",
    "nodes": [{"name": "a", "capacity": {"cpu": "8", "memory": "16Gi"}}],
    "jobs": [{"name": "j", "submit": "10s", "tasks": 2, "requests": {"cpu": "1", "memory": "1Gi"},
              "duration_estimate": "60s", "delay_tolerance": "30s"}]})");
  const CommandResult refused = Archimedes("simulate --days 3 --scenario " + scenario);
  EXPECT_NE(refused.status, 0) << refused.output;
  EXPECT_NE(refused.output.find("the scenario lasts 15m, no longer than the warm-up of 1d"),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("--days does not apply"), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.find("allocation cpu"), std::string::npos) << refused.output;
  const CommandResult measured = Archimedes("simulate --warmup 0 --scenario " + scenario);
  EXPECT_EQ(measured.status, 0) << measured.output;
}

}  // namespace
}  // namespace archimedes
