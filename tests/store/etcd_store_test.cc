// What only EtcdStore does: talk to a real etcd over the network. The KvStore contract both stores
// keep is in kv_store_test.cc.
#include "store/etcd_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using std::chrono::milliseconds;

TEST(EtcdStoreTest, DataSurvivesAnEtcdRestart) {
  ARCHIMEDES_REQUIRE_ETCD();
  testing::EtcdTestServer etcd;
  EtcdStore store(etcd.endpoint());
  store.CreateIfAbsent("/durable", "decided");
  etcd.Stop();
  EXPECT_THROW(store.Get("/durable"), StoreError);
  etcd.Start();
  auto kv = store.Get("/durable");
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ(kv->value, "decided");
}

TEST(EtcdStoreErrorsTest, BadEndpointIsNamed) {
  try {
    EtcdStore store("127.0.0.1:2379");
    FAIL() << "accepted an endpoint without a scheme";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("\"127.0.0.1:2379\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(EtcdStore("https://127.0.0.1:2379"), StoreError);
}

TEST(EtcdStoreErrorsTest, UnreachableEtcdThrowsNamingEndpointAndOperation) {
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  EtcdStore store(endpoint, milliseconds(300));
  EXPECT_EQ(store.name(), endpoint);
  try {
    store.Put("/k", "v");
    FAIL() << "put to a closed port succeeded";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(endpoint + ": put: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace archimedes
