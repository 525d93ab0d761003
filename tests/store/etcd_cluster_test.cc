// EtcdCluster against a real etcd: a member that cannot be reached is passed over, and when none
// answers the error names each.
#include "store/etcd_cluster.h"

#include <gtest/gtest.h>

#include <string>

#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

TEST(EtcdClusterTest, AnUnreachableMemberIsPassedOver) {
  ARCHIMEDES_REQUIRE_ETCD();
  testing::EtcdTestServer etcd;
  const std::string down = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  EtcdCluster cluster({down, etcd.endpoint()}, std::chrono::milliseconds(500));
  EXPECT_EQ(cluster.name(), down + "," + etcd.endpoint());
  cluster.Put("/k", "v");
  EXPECT_EQ(cluster.Get("/k")->value, "v");
  EXPECT_TRUE(cluster.CreateIfAbsent("/once", "1").created);
  EXPECT_FALSE(cluster.CreateIfAbsent("/once", "2").created);
  EXPECT_EQ(cluster.GetRange("/", "/z", 10).size(), 2u);
}

TEST(EtcdClusterTest, WhenNoMemberAnswersTheErrorNamesEach) {
  const std::string a = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  const std::string b = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  EtcdCluster cluster({a, b}, std::chrono::milliseconds(300));
  try {
    cluster.Get("/k");
    ADD_FAILURE() << "no member answers";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("every member of etcd " + a + "," + b + " failed"), std::string::npos)
        << what;
    EXPECT_NE(what.find("etcd " + a + ": get"), std::string::npos) << what;
    EXPECT_NE(what.find("etcd " + b + ": get"), std::string::npos) << what;
  }
  EXPECT_THROW(EtcdCluster({}), StoreError);
}

}  // namespace
}  // namespace archimedes
