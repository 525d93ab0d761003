// Every real-trace reader on its real file (figures from shared/traces/README.md) and on small
// malformed files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "support/shared_data.h"
#include "trace/alibaba_2017.h"
#include "trace/alibaba_2018.h"
#include "trace/alibaba_dlrm_2025.h"
#include "trace/alibaba_gpu_2023.h"
#include "trace/datacenter_aggregates.h"
#include "trace/google_2019.h"
#include "trace/trace_error.h"
#include "trace/trace_loader.h"

namespace archimedes {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int kCpu = static_cast<int>(Dim::kCpu);
constexpr int kMemory = static_cast<int>(Dim::kMemory);
constexpr int kDisk = static_cast<int>(Dim::kDisk);

std::string Trace(const std::string& relative) { return testing::SharedPath("traces/" + relative); }

TEST(AlibabaGpu2023Test, ReadsTheWholeFleet) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2023/openb_node_list_all_node.csv");
  std::vector<Node> nodes =
      ReadAlibabaGpu2023Nodes(Trace("alibaba-gpu-v2023/openb_node_list_all_node.csv"));
  ASSERT_EQ(nodes.size(), 1523u);
  Resources total;
  for (const Node& n : nodes) total += n.capacity;
  EXPECT_EQ(total.cpu(), 125'514'000);
  EXPECT_EQ(total.memory() / kGiB, 597'684);
  EXPECT_EQ(total[Dim::kGpu], 6'212'000);
  EXPECT_EQ(nodes[0].name, "openb-node-0000");
  EXPECT_EQ(nodes[0].capacity, Resources::Of(32'000, 256 * kGiB));
  EXPECT_EQ(nodes[0].allocatable, nodes[0].capacity);
  EXPECT_FALSE(nodes[0].labels.contains("gpu-model"));
  EXPECT_EQ(nodes[0].pod, "pod-0");
  EXPECT_EQ(nodes[0].zone, "zone-0");
  EXPECT_EQ(nodes[32].pod, "pod-1");
  EXPECT_EQ(nodes[32].zone, "zone-1");
  EXPECT_EQ(nodes[96].zone, "zone-0");
  int g2 = std::count_if(nodes.begin(), nodes.end(), [](const Node& n) {
    auto it = n.labels.find("gpu-model");
    return it != n.labels.end() && it->second == "G2" && n.capacity[Dim::kGpu] == 8000;
  });
  EXPECT_EQ(g2, 549);
  EXPECT_EQ(ReadAlibabaGpu2023Nodes(Trace("alibaba-gpu-v2023/openb_node_list_gpu_node.csv")).size(),
            1213u);
}

TEST(AlibabaGpu2023Test, SplitsTheDefaultPodListIntoServicesAndBatch) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2023/openb_pod_list_default.csv");
  std::vector<Gpu2023Pod> pods =
      ReadAlibabaGpu2023Pods(Trace("alibaba-gpu-v2023/openb_pod_list_default.csv"));
  ASSERT_EQ(pods.size(), 8152u);
  int64_t cpu = 0;
  int pending = 0;
  int zero_memory = 0;
  for (const Gpu2023Pod& p : pods) {
    cpu += p.requests.cpu();
    pending += p.phase == "Pending";
    zero_memory += p.requests.memory() == 0;
    EXPECT_EQ(p.phase == "Pending", !p.scheduled_time.has_value()) << p.name;
  }
  EXPECT_EQ(cpu, 85'436'012);
  EXPECT_EQ(pending, 897);
  EXPECT_EQ(zero_memory, 1);
  EXPECT_EQ(pods[1].requests, Resources::Of(6000, 12288LL << 20, 0, 0, 460));

  Gpu2023Workload w = Gpu2023ToWorkload(pods);
  EXPECT_EQ(w.workload.services.size(), 4647u + 100u + 7u);
  EXPECT_EQ(w.dropped_pending_batch, 441);
  EXPECT_EQ(w.workload.jobs.size(), 3398u - 441u);
  EXPECT_EQ(w.window_start, 9'964'972);
  EXPECT_EQ(w.window_length, 12'902'960 - 9'964'972);
  const Service& first = w.workload.services[0];
  EXPECT_EQ(first.name, "openb-pod-0000");
  EXPECT_EQ(first.qos, QosClass::kGuaranteed);
  EXPECT_EQ(first.start_time, 0);
  EXPECT_EQ(first.end_time, 12'537'496 - 9'964'972);
  for (size_t i = 1; i < w.workload.jobs.size(); ++i) {
    EXPECT_LE(w.workload.jobs[i - 1].submit_time, w.workload.jobs[i].submit_time);
  }
  for (const BatchJob& j : w.workload.jobs) {
    EXPECT_GE(j.duration_s, 1);
    EXPECT_GE(j.delay_tolerance_s, 300);
    EXPECT_LE(j.delay_tolerance_s, 4 * 3600);
  }
}

// gpuspec33: 1,186 LS/Burstable/Guaranteed pods name one model, 312 several ("P100|V100M16"),
// 890 BE pods some (144 of them never ran).
TEST(AlibabaGpu2023Test, KeepsEveryServicesGpuModelsAsWritten) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2023/openb_pod_list_gpuspec33.csv");
  const std::vector<Gpu2023Pod> pods =
      ReadAlibabaGpu2023Pods(Trace("alibaba-gpu-v2023/openb_pod_list_gpuspec33.csv"));
  const Gpu2023Workload w = Gpu2023ToWorkload(pods);
  std::map<std::string, const Gpu2023Pod*> by_name;
  for (const Gpu2023Pod& p : pods) by_name[p.name] = &p;
  int one = 0;
  int several = 0;
  for (const Service& s : w.workload.services) {
    const std::string& spec = by_name.at(s.name)->gpu_spec;
    if (spec.empty()) {
      EXPECT_TRUE(s.node_selector.empty() && s.node_affinity.empty()) << s.name;
    } else if (spec.find('|') == std::string::npos) {
      ++one;
      EXPECT_EQ(s.node_selector.at("gpu-model"), spec);
    } else {
      ++several;
      ASSERT_EQ(s.node_affinity.size(), 1u) << s.name;
      const NodeSelectorRequirement& r = s.node_affinity[0].match_expressions.at(0);
      EXPECT_EQ(r.key, "gpu-model");
      EXPECT_EQ(r.op, SelectorOp::kIn);
      std::string joined;
      for (const std::string& v : r.values) joined += (joined.empty() ? "" : "|") + v;
      EXPECT_EQ(joined, spec);
    }
  }
  EXPECT_EQ(one, 1153 + 31 + 2);
  EXPECT_EQ(several, 303 + 8 + 1);
  EXPECT_EQ(w.unenforced_batch_gpu_specs, 746);  // the other 144 never ran: dropped
}

TEST(AlibabaGpu2023Test, ReadsFiveColumnMultiGpuLists) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2023/openb_pod_list_multigpu20.csv");
  std::vector<Gpu2023Pod> pods =
      ReadAlibabaGpu2023Pods(Trace("alibaba-gpu-v2023/openb_pod_list_multigpu20.csv"));
  ASSERT_EQ(pods.size(), 8324u);
  Gpu2023Workload w = Gpu2023ToWorkload(pods);
  EXPECT_EQ(w.workload.services.size(), 8324u);
  EXPECT_TRUE(w.workload.jobs.empty());
  EXPECT_EQ(w.workload.services[5].end_time, kForever);
}

TEST(AlibabaDlrm2025Test, ReadsInstancesAndGroupsThem) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv");
  std::vector<DlrmInstance> instances =
      ReadAlibabaDlrm2025(Trace("alibaba-gpu-v2025/disaggregated_DLRM_trace.csv"));
  ASSERT_EQ(instances.size(), 23'871u);
  int cn = 0;
  int no_creation = 0;
  int no_deletion = 0;
  for (const DlrmInstance& in : instances) {
    cn += in.role == "CN";
    no_creation += !in.creation_time;
    no_deletion += !in.deletion_time;
  }
  EXPECT_EQ(cn, 16'485);
  EXPECT_EQ(no_creation, 7'280);
  EXPECT_EQ(no_deletion, 8'878);
  EXPECT_EQ(instances[0].requests, Resources::Of(12'000, 120 * kGiB, 0, 0, 1000));
  EXPECT_EQ(instances[0].max_per_node, 8);
  EXPECT_EQ(instances[0].disk_request_bytes, 640 * kGiB);

  std::vector<DlrmGroup> groups = GroupDlrmInstances(instances);
  EXPECT_EQ(groups.size(), 312u);
  int total = 0;
  for (const DlrmGroup& g : groups) {
    total += g.instances;
    EXPECT_GE(g.peak_replicas, g.service.replicas);
    EXPECT_LE(g.peak_replicas, g.instances);
    for (const ScaleEvent& e : g.scale_events) {
      EXPECT_GT(e.time, g.service.start_time);
      EXPECT_LE(e.replicas, g.peak_replicas);
    }
  }
  EXPECT_EQ(total, 23'871);
  EXPECT_EQ(groups[0].service.name, "app_0-HN");
  EXPECT_EQ(groups[0].service.limits, groups[0].service.requests);
}

TEST(Alibaba2018Test, ReadsMachinesWithFailureDomains) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_meta.csv");
  std::vector<Node> nodes = ReadAlibaba2018Machines(Trace("alibaba-v2018/machine_meta.csv"));
  ASSERT_EQ(nodes.size(), 4034u);
  std::set<std::string> pods;
  std::set<std::string> zones;
  int not_ready = 0;
  for (const Node& n : nodes) {
    EXPECT_EQ(n.capacity, Resources::Of(96'000, 512 * kGiB));
    pods.insert(n.pod);
    zones.insert(n.zone);
    not_ready += n.condition == NodeCondition::kNotReady;
  }
  EXPECT_EQ(pods.size(), 292u);
  EXPECT_EQ(zones.size(), 20u);  // the table names 21, one only on superseded status rows
  EXPECT_EQ(not_ready, 1);
  EXPECT_EQ(nodes[0].name, "m_1");
  EXPECT_EQ(nodes[0].pod, "fd1-219");
  EXPECT_EQ(nodes[0].zone, "fd2-17");
}

TEST(Alibaba2018Test, ReadsOneUsageSeriesPerMachine) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_usage.csv");
  std::vector<UsageSeries> series = ReadAlibaba2018Usage(Trace("alibaba-v2018/machine_usage.csv"));
  ASSERT_EQ(series.size(), 16u);
  size_t rows = 0;
  for (const UsageSeries& s : series) {
    rows += s.times.size();
    EXPECT_TRUE(s.normalized);
    EXPECT_EQ(s.limit[kCpu], 1.0);
    ASSERT_EQ(s.values[kDisk].size(), s.times.size()) << s.id;
    for (float d : s.values[kDisk]) ASSERT_TRUE(d >= 0 && d <= 1) << s.id;
    for (float c : s.values[kCpu]) ASSERT_TRUE(c >= 0.03f && c <= 0.94f) << s.id;
    EXPECT_TRUE(std::is_sorted(s.times.begin(), s.times.end()));
  }
  EXPECT_EQ(rows, 71'497u);
  EXPECT_EQ(series[0].id, "m_1932");
  EXPECT_EQ(series[0].times.front(), 386'640);
  EXPECT_FLOAT_EQ(series[0].values[kCpu].front(), 0.41f);
  EXPECT_FLOAT_EQ(series[0].values[kMemory].front(), 0.92f);
  auto last = std::find_if(series.begin(), series.end(),
                           [](const UsageSeries& s) { return s.id == "m_1947"; });
  ASSERT_NE(last, series.end());
  EXPECT_EQ(last->times.back(), 188'370);
}

TEST(Alibaba2017Test, ReadsFleetAndSoftErrors) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2017/server_event.csv");
  Alibaba2017Fleet fleet = ReadAlibaba2017ServerEvents(Trace("alibaba-v2017/server_event.csv"));
  ASSERT_EQ(fleet.nodes.size(), 1313u);
  EXPECT_EQ(fleet.soft_errors, 39);
  EXPECT_EQ(fleet.events.size(), 7u);  // machines with at least one soft error
  int large = 0;
  for (const Node& n : fleet.nodes) {
    EXPECT_EQ(n.capacity.cpu(), 64'000);
    EXPECT_GE(n.capacity.memory(), static_cast<int64_t>(0.57 * 256 * kGiB));
    EXPECT_LE(n.capacity.memory(), 256 * kGiB);
    large += n.capacity.memory() > 200 * kGiB;
  }
  EXPECT_EQ(large, 12);  // normalised memory ~1.0 on 12 machines, ~0.69 on the rest but one
  EXPECT_TRUE(
      std::is_sorted(fleet.events.begin(), fleet.events.end(),
                     [](const NodeEvent& a, const NodeEvent& b) { return a.time < b.time; }));
  EXPECT_EQ(fleet.events[0].kind, NodeEvent::Kind::kFail);
}

TEST(Alibaba2017Test, ReadsBatchTasksThatRan) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2017/batch_task.csv");
  Alibaba2017Batch batch = ReadAlibaba2017BatchTasks(Trace("alibaba-v2017/batch_task.csv"));
  EXPECT_EQ(batch.rows, 64'382);
  EXPECT_EQ(batch.skipped_waiting, 6'326);
  EXPECT_EQ(batch.skipped_no_plan, 121);
  EXPECT_EQ(batch.skipped_no_end, 198);
  ASSERT_EQ(batch.tasks.size(), 57'737u);
  int64_t instances = 0;
  std::set<int64_t> jobs;
  for (const Alibaba2017Task& t : batch.tasks) {
    instances += t.job.tasks;
    jobs.insert(t.job_id);
  }
  EXPECT_EQ(instances, 8'949'051);
  EXPECT_EQ(jobs.size(), 9'736u);
  auto first = std::find_if(batch.tasks.begin(), batch.tasks.end(),
                            [](const Alibaba2017Task& t) { return t.job.name == "j3-t4"; });
  ASSERT_NE(first, batch.tasks.end());
  EXPECT_EQ(first->job.submit_time, 6459);
  EXPECT_EQ(first->job.duration_s, 65);
  EXPECT_EQ(first->job.tasks, 15'740);
  EXPECT_EQ(first->job.task_requests.cpu(), 500);
  EXPECT_EQ(first->job.delay_tolerance_s, 650);
  EXPECT_EQ(first->job.type, JobType::kOffline);
}

TEST(Alibaba2017Test, DelayToleranceIsClamped) {
  EXPECT_EQ(BatchDelayTolerance(1), 300);
  EXPECT_EQ(BatchDelayTolerance(100), 1000);
  EXPECT_EQ(BatchDelayTolerance(10'000), 4 * 3600);
}

TEST(Google2019Test, ReadsOneReplica) {
  ARCHIMEDES_REQUIRE_SHARED("traces/google-v2019-instance-usage/113");
  UsageSeries s = ReadGoogle2019Replica(
      Trace("google-v2019-instance-usage/113/81-300000000-2678700000000.csv"));
  EXPECT_EQ(s.id, "113812204462-81");
  EXPECT_EQ(s.app, "113812204462");
  EXPECT_TRUE(s.normalized);
  ASSERT_EQ(s.times.size(), 5942u);
  EXPECT_EQ(s.times.front(), 300);
  EXPECT_NEAR(s.limit[kCpu], 0.03644, 1e-5);
  EXPECT_NEAR(s.values[kCpu].front(), 0.0226746, 1e-6);
  EXPECT_NEAR(s.values[kMemory].front(), 0.0071716, 1e-6);
  // The window's maxima, which the average hides: never below it, and above it somewhere.
  ASSERT_EQ(s.window_max[kCpu].size(), s.times.size());
  ASSERT_EQ(s.window_max[kMemory].size(), s.times.size());
  EXPECT_TRUE(s.window_max[static_cast<int>(Dim::kDisk)].empty());
  bool above = false;
  for (size_t i = 0; i < s.times.size(); ++i) {
    ASSERT_GE(s.window_max[kCpu][i], s.values[kCpu][i]);
    ASSERT_GE(s.window_max[kMemory][i], s.values[kMemory][i]);
    above = above || s.window_max[kCpu][i] > 1.5f * s.values[kCpu][i];
  }
  EXPECT_TRUE(above);
  EXPECT_EQ(s.largest_node[kCpu], 1.0);
}

TEST(Google2019Test, ReadsJobFolders) {
  ARCHIMEDES_REQUIRE_SHARED("traces/google-v2019-instance-usage/382");
  std::vector<UsageSeries> job113 = ReadGoogle2019Job(Trace("google-v2019-instance-usage/113"));
  std::vector<UsageSeries> job382 = ReadGoogle2019Job(Trace("google-v2019-instance-usage/382"));
  ASSERT_EQ(job113.size(), 7u);
  ASSERT_EQ(job382.size(), 8u);
  EXPECT_EQ(job113[0].id, "113812204462-115");
  EXPECT_EQ(job113[0].times.size(), 5111u);
  auto replica82 = std::find_if(job113.begin(), job113.end(),
                                [](const UsageSeries& s) { return s.id == "113812204462-82"; });
  ASSERT_NE(replica82, job113.end());
  EXPECT_EQ(replica82->times.size(), 5427u - 1u);  // one repeated window start dropped
  for (const UsageSeries& s : job382) {
    EXPECT_EQ(s.app, "382417448240");
    EXPECT_NEAR(s.limit[kCpu], 0.00162, 1e-5);
    EXPECT_GE(s.times.size(), 889u);
    EXPECT_LE(s.times.size(), 890u);
  }
}

TEST(TraceLoaderTest, LoadsAPodListWithItsFleet) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2023/openb_pod_list_cpu050.csv");
  Scenario s = LoadTrace(Trace("alibaba-gpu-v2023/openb_pod_list_cpu050.csv"), {.days = 40});
  EXPECT_EQ(s.nodes.size(), 1523u);
  EXPECT_EQ(s.workload.services.size() + s.workload.jobs.size(), 7439u - 439u);  // - pending BE
  EXPECT_GT(s.duration_s, 30 * kSecondsPerDay);
  EXPECT_LT(s.duration_s, 35 * kSecondsPerDay);  // the trace's own window
  // The list records requests only: every service gets a real usage shape.
  for (const Service& service : s.workload.services) ASSERT_GT(service.usage.samples(), 0);
  EXPECT_EQ(LoadTrace(Trace("alibaba-gpu-v2023/openb_pod_list_cpu050.csv"), {.days = 2}).duration_s,
            2 * kSecondsPerDay);
}

// The packing replay: pods in a seeded order until they request 1.3× the fleet's GPUs, copies
// renamed, arrivals over the first 20 h, one priority, no usage, every GPU model kept.
TEST(AlibabaGpu2023Test, PackingReplayInflatesTheListToThirteenTenthsOfTheGpus) {
  auto pod = [](const char* name, int64_t gpu, const char* qos, const char* spec) {
    Gpu2023Pod p{.name = name, .gpu_spec = spec, .qos = qos};
    p.requests = Resources::Of(1000, kGiB);
    p.requests[Dim::kGpu] = gpu;
    return p;
  };
  const std::vector<Gpu2023Pod> pods = {pod("ls", 1000, "LS", ""), pod("be", 500, "BE", "V100"),
                                        pod("cpu", 0, "Burstable", "")};
  const Workload w = Gpu2023PackingWorkload(pods, /*fleet_gpu=*/4000, /*seed=*/7);
  int64_t gpu = 0, gpu_before_last = 0;
  std::set<std::string> names;
  int64_t last_start = -1;
  for (const Service& s : w.services) {
    gpu_before_last = gpu;
    gpu += s.requests[Dim::kGpu];
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_EQ(s.priority, w.services.front().priority);
    EXPECT_GE(s.start_time, last_start);
    EXPECT_LT(s.start_time, kPackingArrivals);
    last_start = s.start_time;
    ASSERT_EQ(s.usage.samples(), 1);
    for (const auto& values : s.usage.values) EXPECT_EQ(values[0], 0.0f);
    if (s.name.starts_with("be")) EXPECT_EQ(s.node_selector.at("gpu-model"), "V100");
  }
  // Arrivals stop at the pod that reaches 5,200 milli-GPUs; whole passes before it.
  EXPECT_GE(gpu, 5200);
  EXPECT_LT(gpu_before_last, 5200);
  EXPECT_TRUE(names.count("ls-1")) << "the list is drawn again, copies renamed";
  // The order is the seed's: the same seed gives the same arrivals, another seed another order.
  std::vector<std::string> again, other;
  for (const Service& s : Gpu2023PackingWorkload(pods, 4000, 7).services) again.push_back(s.name);
  for (const Service& s : Gpu2023PackingWorkload(pods, 4000, 8).services) other.push_back(s.name);
  std::vector<std::string> first;
  for (const Service& s : w.services) first.push_back(s.name);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
}

TEST(TraceLoaderTest, PacksAPodListAndRefusesToPackAnythingElse) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2023/openb_pod_list_default.csv");
  const Scenario s =
      LoadTrace(Trace("alibaba-gpu-v2023/openb_pod_list_default.csv"), {.gpu_packing = true});
  EXPECT_EQ(s.name, "alibaba-gpu-2023/openb_pod_list_default/packing");
  EXPECT_EQ(s.duration_s, kSecondsPerDay + 3600);
  EXPECT_TRUE(s.workload.jobs.empty());
  int64_t fleet_gpu = 0, arrived_gpu = 0;
  for (const Node& n : s.nodes) fleet_gpu += n.allocatable[Dim::kGpu];
  for (const Service& svc : s.workload.services) arrived_gpu += svc.requests[Dim::kGpu];
  EXPECT_GE(static_cast<double>(arrived_gpu), 1.3 * static_cast<double>(fleet_gpu));
  EXPECT_GT(s.workload.services.size(), 8152u);  // more than one pass over the list
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2017/batch_task.csv");
  try {
    LoadTrace(Trace("alibaba-v2017"), {.gpu_packing = true});
    FAIL() << "only a GPU 2023 pod list is packed";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("packing replay applies to an Alibaba GPU 2023 pod list"),
              std::string::npos)
        << e.what();
  }
}

TEST(TraceLoaderTest, LoadsThe2017FolderAndTheDlrmTrace) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2017/batch_task.csv");
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-gpu-v2025/disaggregated_DLRM_trace.csv");
  Scenario batch = LoadTrace(Trace("alibaba-v2017"));
  EXPECT_EQ(batch.nodes.size(), 1313u);
  EXPECT_EQ(batch.workload.jobs.size(), 57'737u);
  EXPECT_EQ(batch.workload.node_events.size(), 7u);
  EXPECT_EQ(LoadTrace(Trace("alibaba-v2017/batch_task.csv")).workload.jobs.size(), 57'737u);

  Scenario dlrm = LoadTrace(Trace("alibaba-gpu-v2025/disaggregated_DLRM_trace.csv"), {.days = 40});
  EXPECT_EQ(dlrm.nodes.size(), 1523u);
  EXPECT_EQ(dlrm.workload.services.size(), 312u);
  EXPECT_FALSE(dlrm.workload.scale_events.empty());
  EXPECT_GT(dlrm.duration_s, 30 * kSecondsPerDay);
}

TEST(DatacenterAggregatesTest, ReadsThreeProvidersCurves) {
  ARCHIMEDES_REQUIRE_SHARED("traces/datacenter-aggregates/azure_v2");
  UsageSeries alibaba = ReadAlibaba2018Aggregate(Trace("datacenter-aggregates/alibaba2018"));
  EXPECT_EQ(alibaba.times.size(), 288u + 226u + 4u * 288u);  // day 1's 289th bucket dropped
  EXPECT_EQ(alibaba.times[288], kSecondsPerDay);
  EXPECT_NEAR(alibaba.values[kCpu][0], 0.16127, 1e-5);
  for (float c : alibaba.values[kCpu]) ASSERT_TRUE(c >= 0.16f && c <= 0.77f);
  UsageSeries google = ReadGoogle2019Aggregate(Trace("datacenter-aggregates/google2019"));
  EXPECT_EQ(google.times.size(), 3u * 2016u);
  EXPECT_EQ(google.times[2016], 7 * kSecondsPerDay);
  for (float c : google.values[kCpu]) ASSERT_TRUE(c >= 0.32f && c <= 0.583f);
  UsageSeries azure = ReadAzure2019Aggregate(Trace("datacenter-aggregates/azure_v2"));
  EXPECT_EQ(azure.times.size(), 3u * 2016u);
  EXPECT_EQ(azure.times.back(), 1'814'100);
  EXPECT_NEAR(azure.limit[kCpu], 7.57e6, 0.01e6);
}

TEST(TraceLoaderTest, LoadsTheRealScenarioAndThe2018Fleet) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_meta.csv");
  LoadOptions options;
  options.nodes = 150;
  options.days = 1;
  Scenario real = LoadTrace(testing::SharedPath("traces"), options);
  EXPECT_EQ(real.nodes.size(), 150u);
  EXPECT_FALSE(real.workload.services.empty());
  EXPECT_FALSE(real.workload.jobs.empty());
  Scenario fleet = LoadTrace(Trace("alibaba-v2018"));
  EXPECT_EQ(fleet.nodes.size(), 4034u);
  EXPECT_TRUE(fleet.workload.services.empty());
}

TEST(TraceLoaderTest, RejectsUnrecognisedPaths) {
  ARCHIMEDES_REQUIRE_SHARED("traces/alibaba-v2018/machine_usage.csv");
  try {
    LoadTrace(Trace("alibaba-v2018/machine_usage.csv"));
    FAIL() << "a usage series is not a scenario";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("not a recognised trace"), std::string::npos);
  }
  EXPECT_THROW(LoadTrace("/nonexistent/trace.csv"), TraceError);
}

// Malformed input: every reader names the file and the line.
class MalformedTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("archimedes-real-traces-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // Runs `read` and checks that it throws a TraceError at `path`:`line` mentioning `reason`.
  template <typename Read>
  void ExpectRejected(Read read, const std::string& path, int line, const std::string& reason) {
    try {
      read();
      ADD_FAILURE() << "accepted malformed " << path;
    } catch (const TraceError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find(path + ":" + std::to_string(line)), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }

  std::filesystem::path dir_;
};

TEST_F(MalformedTraceTest, NodeListWithAMissingField) {
  std::string path = Write("nodes.csv",
                           "sn,cpu_milli,memory_mib,gpu,model\n"
                           "n0,32000,262144,0,\n"
                           "n1,32000,262144\n");
  ExpectRejected([&] { ReadAlibabaGpu2023Nodes(path); }, path, 3, "expected 5 fields");
}

TEST_F(MalformedTraceTest, PodListWithANonNumber) {
  std::string path =
      Write("pods.csv",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
            "deletion_time,scheduled_time\n"
            "p0,1000,1024,0,0,,LS,Running,0,10,0\n"
            "p1,lots,1024,0,0,,BE,Running,0,10,0\n");
  ExpectRejected([&] { ReadAlibabaGpu2023Pods(path); }, path, 3, "cpu_milli");
}

TEST_F(MalformedTraceTest, PodListWithAnEmptyGpuModel) {
  std::string path =
      Write("pods.csv",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
            "deletion_time,scheduled_time\n"
            "p0,1000,1024,1,1000,P100|V100M16,LS,Running,0,10,0\n"
            "p1,1000,1024,1,1000,P100|,LS,Running,0,10,0\n");
  ExpectRejected([&] { ReadAlibabaGpu2023Pods(path); }, path, 3, "names an empty GPU model");
}

TEST_F(MalformedTraceTest, BatchTaskTruncatedOnItsLastLine) {
  std::string path =
      Write("batch_task.csv",
            "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, "
            "number_of_cpus_requested_per_instance_in_the_task,normalized_memory_requested_per_"
            "instance_in_the_task\n"
            "6459,6524,3,4,15740,Terminated,50,0.007956928\n"
            "6457,6533,3,5,1,Termin");
  ExpectRejected([&] { ReadAlibaba2017BatchTasks(path); }, path, 3, "the file is cut short");
}

TEST_F(MalformedTraceTest, ServerEventWithAnUnknownType) {
  std::string path = Write("server_event.csv",
                           "0,1,add,,64,0.69,1\n"
                           "10,1,explode,,0,0,0\n");
  ExpectRejected([&] { ReadAlibaba2017ServerEvents(path); }, path, 2, "event_type");
}

TEST_F(MalformedTraceTest, DlrmRowWithANonNumber) {
  std::string path =
      Write("dlrm.csv",
            "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
            "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
            "creation_time,scheduled_time,deletion_time\n"
            "i0,CN,a,8,8,0,0,1,1,40.0,40.0,80.0,80.0,-1,,,\n"
            "i1,CN,a,8,8,0,0,1,1,forty,40.0,80.0,80.0,-1,,,\n");
  ExpectRejected([&] { ReadAlibabaDlrm2025(path); }, path, 3, "memory_request");
}

TEST_F(MalformedTraceTest, MachineUsageGoingBackInTime) {
  std::string path = Write("machine_usage.csv",
                           "m_1,100,41,92,,,43.04,33.08,5\n"
                           "m_1,90,41,92,,,43.04,33.08,5\n");
  ExpectRejected([&] { ReadAlibaba2018Usage(path); }, path, 2, "not after");
}

TEST_F(MalformedTraceTest, MachineMetaTruncated) {
  std::string path = Write("machine_meta.csv", "m_1,0,219,17,96,100,USING\nm_2,0,21");
  ExpectRejected([&] { ReadAlibaba2018Machines(path); }, path, 2, "the file is cut short");
}

TEST_F(MalformedTraceTest, GoogleReplicaWithAShortRow) {
  std::string header =
      "time,unique_id,collection_id,instance_index,priority,scheduling_class,machine_id,"
      "alloc_collection_id,alloc_instance_index,collection_type,avg_cpu_usage,avg_memory_usage,"
      "max_cpu_usage,max_memory_usage,random_sample_cpu_usage,assigned_memory,sample_rate,"
      "p0_cpu_usage,p10_cpu_usage,p20_cpu_usage,p30_cpu_usage,p40_cpu_usage,p50_cpu_usage,"
      "p60_cpu_usage,p70_cpu_usage,p80_cpu_usage,p90_cpu_usage,p91_cpu_usage,p92_cpu_usage,"
      "p93_cpu_usage,p94_cpu_usage,p95_cpu_usage,p96_cpu_usage,p97_cpu_usage,p98_cpu_usage,"
      "p99_cpu_usage,memory_limit,cpu_limit,abstract_usage,abstract_limit\n";
  std::string row = "300000000,1-2,1,2,200,3,7,0,-1,0,0.02,0.007";
  for (int i = 12; i < 40; ++i) row += ",0.01";
  std::string path = Write("1-300000000-600000000.csv",
                           header + row + "\n" + "600000000,1-2,1,2,200,3,7,0,-1,0\n");
  ExpectRejected([&] { ReadGoogle2019Replica(path); }, path, 3, "expected 40 fields");
  std::string good = Write("2-300000000-300000000.csv", header + row + "\n");
  EXPECT_EQ(ReadGoogle2019Replica(good).times.size(), 1u);
}

}  // namespace
}  // namespace archimedes
