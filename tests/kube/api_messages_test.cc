// The API server's messages (kube/api_messages.h) against the shared fixtures' Binding, Eviction
// and Status, and the wire data of tests/kube/api/.
#include <gtest/gtest.h>

#include <string>

#include "kube/api_messages.h"
#include "kube/kube_error.h"
#include "support/fixture_files.h"

namespace archimedes {
namespace {

using testing::KubeFixture;
using testing::KubeRecording;

TEST(KubeApiMessagesTest, BindingIsTheFixtureExactly) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/binding-v1.json");
  EXPECT_EQ(EncodeBinding("ml-team", "resnet-train-7x2kq", "5f1c2a9e-3b7d-4c1e-9a2f-8d6e4b0c7a11",
                          "gpu-node-a"),
            KubeFixture("binding-v1.json"));
}

TEST(KubeApiMessagesTest, EvictionIsTheFixtureExactly) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/eviction-v1.json");
  EXPECT_EQ(
      EncodeEviction("research", "batch-sweep-3f9kd", "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e51", 30),
      KubeFixture("eviction-v1.json"));
  // Without a grace period of its own the pod's applies: the key is left out.
  EXPECT_FALSE(EncodeEviction("a", "b", "c", -1)["deleteOptions"].contains("gracePeriodSeconds"));
}

TEST(KubeApiMessagesTest, StatusesOfTheAnswersAreRead) {
  ARCHIMEDES_REQUIRE_SHARED("k8s-fixtures/eviction-response-429.json");
  const KubeStatus refused = DecodeStatus(KubeFixture("eviction-response-429.json"), "Status");
  EXPECT_EQ(refused.code, 429);
  EXPECT_EQ(refused.reason, "TooManyRequests");
  // The cause (a DisruptionBudget) names the budget: the log says which one refused.
  EXPECT_NE(refused.message.find("batch-sweep-pdb"), std::string::npos) << refused.message;
  const KubeStatus conflict = DecodeStatus(KubeFixture("binding-response-409.json"), "Status");
  EXPECT_EQ(conflict.code, 409);
  EXPECT_EQ(conflict.reason, "Conflict");
  EXPECT_EQ(DecodeStatus(KubeFixture("binding-response-201.json"), "Status").code, 201);
}

TEST(KubeApiMessagesTest, ListsKeepTheirResourceVersionAndItems) {
  const KubeList pods = DecodeList(KubeRecording("pod-list.json"), "PodList");
  EXPECT_EQ(pods.resource_version, "5010");
  EXPECT_EQ(pods.items.size(), 6u);
  const KubeList nodes = DecodeList(KubeRecording("node-list.json"), "NodeList");
  EXPECT_EQ(nodes.resource_version, "5000");
  EXPECT_EQ(nodes.items.size(), 2u);
  EXPECT_THROW(DecodeList(nlohmann::json::array(), "PodList"), KubeError);
  EXPECT_THROW(DecodeList({{"items", {1, 2}}}, "PodList"), KubeError);
}

TEST(KubeApiMessagesTest, WatchLinesOfEveryType) {
  const auto line = [](const std::string& file) {
    return DecodeWatchEvent(KubeRecording(file), "watch");
  };
  const KubeWatchEvent added = line("watch-pod-added.jsonl");
  EXPECT_EQ(added.type, KubeWatchEvent::Type::kAdded);
  EXPECT_EQ(added.resource_version, "5011");
  EXPECT_EQ(added.object["metadata"]["name"], "checkout-0");
  const KubeWatchEvent bookmark = line("watch-bookmark.jsonl");
  EXPECT_EQ(bookmark.type, KubeWatchEvent::Type::kBookmark);
  EXPECT_EQ(bookmark.resource_version, "5012");
  const KubeWatchEvent expired = line("watch-expired.jsonl");
  EXPECT_EQ(expired.type, KubeWatchEvent::Type::kError);
  EXPECT_EQ(expired.status.code, 410);
  EXPECT_EQ(expired.status.reason, "Expired");
  EXPECT_EQ(line("watch-node-deleted.jsonl").type, KubeWatchEvent::Type::kDeleted);
  EXPECT_EQ(line("watch-pod-oomkilled.jsonl").type, KubeWatchEvent::Type::kModified);

  try {
    DecodeWatchEvent({{"type", "CHANGED"}, {"object", nlohmann::json::object()}}, "watch");
    FAIL() << "an unknown type was accepted";
  } catch (const KubeError& e) {
    EXPECT_EQ(e.path(), "watch.type");
    EXPECT_NE(std::string(e.what()).find("CHANGED"), std::string::npos);
  }
  EXPECT_THROW(DecodeWatchEvent({{"type", "ADDED"}}, "watch"), KubeError);
}

TEST(KubeApiMessagesTest, LeasesGiveTheirNodeAndRenewTime) {
  const KubeList leases = DecodeList(KubeRecording("lease-list.json"), "LeaseList");
  ASSERT_EQ(leases.items.size(), 2u);
  const KubeLease lease = DecodeLease(leases.items[0], "Lease");
  EXPECT_EQ(lease.node, "kube-node-1");
  EXPECT_EQ(lease.renew_s, ParseKubeTime("2026-12-01T10:05:07Z", "t"));
  EXPECT_EQ(ParseKubeTime("1970-01-01T00:01:40Z", "t"), 100);
  EXPECT_EQ(ParseKubeTime("1970-01-01T00:01:40.999999Z", "t"), 100);
  for (const char* bad : {"2026-12-01 10:05:07Z", "2026-12-01T10:05:07+01:00", "yesterday",
                          "2026-13-01T10:05:07Z", ""}) {
    EXPECT_THROW(ParseKubeTime(bad, "t"), KubeError) << bad;
  }
  nlohmann::json never = leases.items[1];
  never["spec"].erase("renewTime");
  EXPECT_EQ(DecodeLease(never, "Lease").renew_s, -1);
  never["metadata"].erase("name");
  EXPECT_THROW(DecodeLease(never, "Lease"), KubeError);
}

TEST(KubeApiMessagesTest, PodMetricsSumTheContainers) {
  const std::vector<PodUsage> usage =
      DecodePodMetricsList(KubeRecording("pod-metrics.json"), "PodMetricsList");
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage[0].namespace_name, "shop");
  EXPECT_EQ(usage[0].name, "web-7c9d8b6f5-x2kq9");
  // 412873641n is 412.87 millicores, rounded up as Kubernetes rounds; 1536412Ki in bytes.
  EXPECT_EQ(usage[0].usage[Dim::kCpu], 413);
  EXPECT_EQ(usage[0].usage[Dim::kMemory], int64_t{1536412} * 1024);
  nlohmann::json bad = KubeRecording("pod-metrics.json");
  bad["items"][1]["containers"][0]["usage"]["cpu"] = "lots";
  try {
    DecodePodMetricsList(bad, "PodMetricsList");
    FAIL() << "a malformed quantity was accepted";
  } catch (const KubeError& e) {
    EXPECT_NE(e.path().find("items[1].containers[0].usage.cpu"), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace archimedes
