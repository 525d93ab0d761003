#include "store/etcd_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class EtcdStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ARCHIMEDES_REQUIRE_ETCD();
    etcd_ = std::make_unique<testing::EtcdTestServer>();
    store_ = std::make_unique<EtcdStore>(etcd_->endpoint());
  }

  std::unique_ptr<testing::EtcdTestServer> etcd_;
  std::unique_ptr<EtcdStore> store_;
};

TEST_F(EtcdStoreTest, PutGetDeleteRoundTripsArbitraryBytes) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte += char(b);
  for (const std::string& value :
       {std::string("v"), std::string("ab"), std::string("abc"), every_byte, std::string()}) {
    store_->Put("/k/" + std::to_string(value.size()), value);
    auto kv = store_->Get("/k/" + std::to_string(value.size()));
    ASSERT_TRUE(kv.has_value());
    EXPECT_EQ(kv->value, value);
  }
  auto kv = store_->Get("/k/1");
  EXPECT_EQ(kv->key, "/k/1");
  EXPECT_EQ(kv->version, 1);
  EXPECT_GT(kv->create_revision, 0);

  store_->Put("/k/1", "w");
  kv = store_->Get("/k/1");
  EXPECT_EQ(kv->version, 2);
  EXPECT_GT(kv->mod_revision, kv->create_revision);

  EXPECT_EQ(store_->Delete("/k/1"), 1);
  EXPECT_FALSE(store_->Get("/k/1").has_value());
  EXPECT_EQ(store_->Delete("/k/1"), 0);
}

TEST_F(EtcdStoreTest, PrefixOperationsStayInsideThePrefix) {
  store_->Put("/a/2", "2");
  store_->Put("/a/1", "1");
  store_->Put("/a0", "outside");
  store_->Put("/b/1", "outside");
  std::vector<KeyValue> kvs = store_->GetPrefix("/a/");
  ASSERT_EQ(kvs.size(), 2u);
  EXPECT_EQ(kvs[0].key, "/a/1");
  EXPECT_EQ(kvs[1].key, "/a/2");
  EXPECT_EQ(store_->DeletePrefix("/a/"), 2);
  EXPECT_TRUE(store_->GetPrefix("/a/").empty());
  EXPECT_TRUE(store_->Get("/a0").has_value());
  EXPECT_TRUE(store_->Get("/b/1").has_value());
}

TEST_F(EtcdStoreTest, KeysOfAnExpiredLeaseDisappear) {
  int64_t lease = store_->GrantLease(1);
  store_->Put("/lease/short", "x", lease);
  EXPECT_EQ(store_->Get("/lease/short")->lease, lease);
  // etcd rounds short TTLs up to its minimum (about 2 s); wait well past it.
  for (int i = 0; i < 60 && store_->Get("/lease/short"); ++i) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_FALSE(store_->Get("/lease/short").has_value());
  EXPECT_EQ(store_->KeepAlive(lease), 0);
  EXPECT_NO_THROW(store_->RevokeLease(lease));
}

TEST_F(EtcdStoreTest, KeepAliveHoldsKeysAndRevokeDropsThem) {
  int64_t lease = store_->GrantLease(2);
  store_->Put("/lease/kept", "x", lease);
  const auto until = std::chrono::steady_clock::now() + seconds(5);
  while (std::chrono::steady_clock::now() < until) {
    EXPECT_GE(store_->KeepAlive(lease), 1);
    std::this_thread::sleep_for(milliseconds(500));
  }
  EXPECT_TRUE(store_->Get("/lease/kept").has_value());
  store_->RevokeLease(lease);
  EXPECT_FALSE(store_->Get("/lease/kept").has_value());
}

TEST_F(EtcdStoreTest, PutOnAnUnknownLeaseFails) {
  EXPECT_THROW(store_->Put("/k", "v", 12345), StoreError);
  EXPECT_THROW(store_->GrantLease(0), StoreError);
}

TEST_F(EtcdStoreTest, CreateIfAbsentWritesOnce) {
  CreateResult first = store_->CreateIfAbsent("/once", "first");
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.current.value, "first");
  CreateResult second = store_->CreateIfAbsent("/once", "second");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.current.value, "first");
  EXPECT_EQ(second.current.create_revision, first.current.create_revision);
}

TEST_F(EtcdStoreTest, ExactlyOneOfConcurrentWritersCreatesTheKey) {
  constexpr int kWriters = 8;
  for (int round = 0; round < 5; ++round) {
    const std::string key = "/decision/" + std::to_string(round);
    std::atomic<bool> go{false};
    std::vector<CreateResult> results(kWriters);
    std::vector<std::thread> writers;
    writers.reserve(kWriters);
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        EtcdStore own(etcd_->endpoint());  // a separate connection, like a separate member
        while (!go) std::this_thread::yield();
        results[w] = own.CreateIfAbsent(key, "writer-" + std::to_string(w));
      });
    }
    go = true;
    for (std::thread& t : writers) t.join();
    int created = 0;
    std::string winner;
    for (const CreateResult& r : results) {
      if (r.created) {
        ++created;
        winner = r.current.value;
      }
    }
    ASSERT_EQ(created, 1) << "round " << round;
    for (const CreateResult& r : results) EXPECT_EQ(r.current.value, winner);
    EXPECT_EQ(store_->Get(key)->value, winner);
    EXPECT_EQ(store_->Get(key)->version, 1);
  }
}

TEST_F(EtcdStoreTest, TxnComparesModRevision) {
  store_->Put("/cas", "v1");
  int64_t rev = store_->Get("/cas")->mod_revision;
  TxnOp put{TxnOp::Kind::kPut, "/cas", "v2", 0};
  TxnOp get{TxnOp::Kind::kGet, "/cas", "", 0};
  Compare same{"/cas", Compare::Target::kModRevision, Compare::Result::kEqual, rev, ""};
  TxnResult ok = store_->Txn({same}, {put}, {get});
  EXPECT_TRUE(ok.succeeded);
  TxnResult stale = store_->Txn({same}, {put}, {get});
  EXPECT_FALSE(stale.succeeded);
  ASSERT_EQ(stale.found.size(), 1u);
  EXPECT_EQ(stale.found[0].value, "v2");

  Compare value{"/cas", Compare::Target::kValue, Compare::Result::kEqual, 0, "v2"};
  TxnOp del{TxnOp::Kind::kDelete, "/cas", "", 0};
  EXPECT_TRUE(store_->Txn({value}, {del}, {}).succeeded);
  EXPECT_FALSE(store_->Get("/cas").has_value());
}

TEST_F(EtcdStoreTest, DataSurvivesAnEtcdRestart) {
  store_->CreateIfAbsent("/durable", "decided");
  etcd_->Stop();
  EXPECT_THROW(store_->Get("/durable"), StoreError);
  etcd_->Start();
  auto kv = store_->Get("/durable");
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
  try {
    store.Put("/k", "v");
    FAIL() << "put to a closed port succeeded";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(endpoint + ": put: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace archimedes
