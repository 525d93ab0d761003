// Compacting etcd's history under the log (EtcdJournal::CompactHistory) against a real etcd: etcd
// no longer serves the superseded versions, every event stays, and a control plane restored from
// the compacted log is the one that wrote it, actions and their numbers included.
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/policy.h"
#include "server/control_plane.h"
#include "server/etcd_journal.h"
#include "server/leadership.h"
#include "store/etcd_cluster.h"
#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;

std::unique_ptr<EtcdJournal> Open(const testing::EtcdTestServer& etcd) {
  return std::make_unique<EtcdJournal>(
      std::make_unique<EtcdCluster>(std::vector<std::string>{etcd.endpoint()}), "/t/",
      JournalSettings{{"policy", "k8s-default"}, {"clock", "virtual"}});
}

// Applies `event` as the leader does: journalled, and durable before it counts.
void Apply(ControlPlane& plane, Journal& journal, Event event) {
  int64_t seq = 0;
  plane.Apply(std::move(event), &seq);
  if (seq > 0) journal.Sync(seq);
}

void Load(ControlPlane& plane, Journal& journal, int jobs) {
  for (int k = 0; k < jobs; ++k) {
    Apply(plane, journal,
          {.kind = EventKind::kSubmitJob,
           .body = json{{"spec",
                         {{"kind", "offline"},
                          {"tasks", 2},
                          {"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}},
                          {"durationEstimate", "10m"}}}}
                       .dump()});
    Apply(plane, journal, {.kind = EventKind::kClock, .body = R"({"advance":"1s"})"});
  }
}

TEST(EtcdCompactionTest, CompactedHistoryKeepsEveryEventAndTheStateRebuildsTheSame) {
  ARCHIMEDES_REQUIRE_ETCD();
  testing::EtcdTestServer etcd;
  auto journal = Open(etcd);
  ControlPlane plane(MakePolicy("k8s-default"), {});
  Leadership first(journal->store(), "/t/", "http://a", 5);
  ASSERT_TRUE(first.TryLead());
  journal->Lead(first.term(), 0);
  plane.Lead(*journal);
  for (const char* node : {"n1", "n2"}) {
    Apply(plane, *journal,
          {.kind = EventKind::kPutNode,
           .target = node,
           .body = R"({"spec":{"capacity":{"cpu":"4","memory":"16Gi"}}})"});
  }
  Apply(plane, *journal,
        {.kind = EventKind::kPutService,
         .target = "web",
         .body = R"({"spec":{"replicas":2,"requests":{"cpu":"1","memory":"1Gi"}}})"});
  Load(plane, *journal, 10);
  // A second leadership: the first one's leader key goes with its lease, a superseded version.
  first.Resign();
  Leadership second(journal->store(), "/t/", "http://b", 5);
  ASSERT_TRUE(second.TryLead());
  journal->Lead(second.term(), plane.applied_seq());

  EXPECT_EQ(journal->CompactHistory(), 0) << "the first call only notes the revision";
  const int64_t noted = journal->store().Revision();
  Apply(plane, *journal,
        {.kind = EventKind::kNodeStatus,
         .target = "n1",
         .body = R"({"status":{"condition":"NotReady"}})"});
  Load(plane, *journal, 10);
  EXPECT_EQ(journal->CompactHistory(), noted);

  // etcd serves no version from before the compaction. (Its error answers end with an HTTP
  // trailer that cpp-httplib reports as a read error: the body is collected as it comes.)
  httplib::Client client(etcd.endpoint());
  httplib::Request request;
  request.method = "POST";
  request.path = "/v3/kv/range";
  request.body = R"({"key":"L3Qvc2V0dGluZ3M=","revision":"1"})";  // "/t/settings", revision 1
  request.headers.emplace("Content-Type", "application/json");
  std::string answer;
  request.content_receiver = [&answer](const char* data, size_t size, uint64_t, uint64_t) {
    answer.append(data, size);
    return true;
  };
  httplib::Response response;
  httplib::Error error = httplib::Error::Success;
  client.send(request, response, error);
  EXPECT_NE(answer.find("required revision has been compacted"), std::string::npos) << answer;

  // A restart rebuilds the same state from the compacted log.
  auto reopened = Open(etcd);
  ControlPlane restarted(MakePolicy("k8s-default"), {});
  EXPECT_EQ(restarted.Restore(*reopened), plane.applied_seq());
  EXPECT_EQ(restarted.now(), plane.now());
  EXPECT_EQ(restarted.ListNodes(), plane.ListNodes());
  EXPECT_EQ(restarted.ListServices(), plane.ListServices());
  EXPECT_EQ(restarted.ListJobs(""), plane.ListJobs(""));
  const json actions = plane.FleetActions(0, 10000);
  EXPECT_GT(actions["items"].size(), 20u);
  EXPECT_EQ(restarted.FleetActions(0, 10000), actions);
}

}  // namespace
}  // namespace archimedes
