// The KvStore contract (store/kv_store.h), run against both implementations: a real etcd started
// by the test (skipped when /usr/bin/etcd is absent) and MemoryStore.
#include "store/kv_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "store/etcd_store.h"
#include "store/etcd_test_server.h"
#include "store/memory_store.h"

namespace archimedes {
namespace {

// What a contract test needs of an implementation beyond the interface: more clients of the
// same store (as separate members would be) and the passing of time.
template <typename Store>
class Backend;

template <>
class Backend<MemoryStore> {
 public:
  KvStore& store() { return store_; }
  // One process, one store: every client shares it.
  KvStore& Connect() { return store_; }
  // Lets the store's clock run until the leases due by then have expired.
  void Elapse(int64_t seconds) { store_.AdvanceTo(store_.now() + seconds); }
  // `key`'s lease of `ttl` seconds expires exactly when its TTL has passed.
  void AwaitExpiry(const std::string& /*key*/, int64_t ttl) { Elapse(ttl); }

 private:
  MemoryStore store_;
};

template <>
class Backend<EtcdStore> {
 public:
  Backend() : store_(etcd_.endpoint()) {}
  KvStore& store() { return store_; }
  KvStore& Connect() {
    clients_.push_back(std::make_unique<EtcdStore>(etcd_.endpoint()));
    return *clients_.back();
  }
  void Elapse(int64_t seconds) { std::this_thread::sleep_for(std::chrono::seconds(seconds)); }
  // etcd rounds short TTLs up to its minimum (about 2 s) and checks expiry every half second or
  // so: wait until the key is gone, or long past the TTL.
  // etcd revokes expired leases from its leader's loop, and may extend them by an election
  // timeout when that leader (re)takes office: on a loaded machine expiry can come late.
  void AwaitExpiry(const std::string& key, int64_t ttl) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(ttl + 20);
    while (store_.Get(key) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

 private:
  testing::EtcdTestServer etcd_;
  EtcdStore store_;
  std::vector<std::unique_ptr<EtcdStore>> clients_;
};

template <typename Store>
class KvStoreContract : public ::testing::Test {
 protected:
  void SetUp() override {
    if constexpr (std::is_same_v<Store, EtcdStore>) ARCHIMEDES_REQUIRE_ETCD();
    backend_ = std::make_unique<Backend<Store>>();
  }

  KvStore& store() { return backend_->store(); }

  std::unique_ptr<Backend<Store>> backend_;
};

using Implementations = ::testing::Types<MemoryStore, EtcdStore>;
TYPED_TEST_SUITE(KvStoreContract, Implementations);

TYPED_TEST(KvStoreContract, PutGetDeleteRoundTripsArbitraryBytes) {
  KvStore& store = this->store();
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte += static_cast<char>(b);
  for (const std::string& value :
       {std::string("v"), std::string("ab"), std::string("abc"), every_byte, std::string()}) {
    store.Put("/k/" + std::to_string(value.size()), value);
    auto kv = store.Get("/k/" + std::to_string(value.size()));
    ASSERT_TRUE(kv.has_value());
    EXPECT_EQ(kv->value, value);
  }
  auto kv = store.Get("/k/1");
  EXPECT_EQ(kv->key, "/k/1");
  EXPECT_EQ(kv->version, 1);
  EXPECT_GT(kv->create_revision, 0);

  store.Put("/k/1", "w");
  kv = store.Get("/k/1");
  EXPECT_EQ(kv->version, 2);
  EXPECT_GT(kv->mod_revision, kv->create_revision);

  EXPECT_EQ(store.Delete("/k/1"), 1);
  EXPECT_FALSE(store.Get("/k/1").has_value());
  EXPECT_EQ(store.Delete("/k/1"), 0);
}

TYPED_TEST(KvStoreContract, OnlyChangesRaiseTheRevisionAndATxnRaisesItOnce) {
  KvStore& store = this->store();
  const int64_t first = store.Put("/r/a", "1");
  EXPECT_EQ(store.Get("/r/a")->mod_revision, first);
  EXPECT_EQ(store.Delete("/r/absent"), 0);
  EXPECT_EQ(store.Put("/r/b", "1"), first + 1);

  const TxnOp put_c{TxnOp::Kind::kPut, "/r/c", "1", 0};
  const TxnOp put_d{TxnOp::Kind::kPut, "/r/d", "1", 0};
  EXPECT_TRUE(store.Txn({}, {put_c, put_d}, {}).succeeded);
  EXPECT_EQ(store.Get("/r/c")->mod_revision, first + 2);
  EXPECT_EQ(store.Get("/r/d")->mod_revision, first + 2);
  // A recreated key starts over.
  store.Delete("/r/a");
  store.Put("/r/a", "2");
  EXPECT_EQ(store.Get("/r/a")->version, 1);
  EXPECT_EQ(store.Get("/r/a")->create_revision, first + 4);
}

TYPED_TEST(KvStoreContract, CompactionKeepsTheCurrentValueOfEveryKey) {
  KvStore& store = this->store();
  store.Put("/c/a", "1");
  store.Put("/c/a", "2");
  store.Put("/c/b", "1");
  store.Delete("/c/b");
  const int64_t at = store.Put("/c/c", "3");
  EXPECT_EQ(store.Revision(), at);
  store.Compact(at);
  store.Compact(at);  // compacted already: not an error
  EXPECT_EQ(store.Get("/c/a")->value, "2");
  EXPECT_EQ(store.Get("/c/a")->version, 2);
  EXPECT_FALSE(store.Get("/c/b").has_value());
  EXPECT_EQ(store.GetPrefix("/c/").size(), 2u);
  EXPECT_EQ(store.Put("/c/d", "4"), at + 1) << "revisions go on from where they were";
}

TYPED_TEST(KvStoreContract, PrefixOperationsStayInsideThePrefix) {
  KvStore& store = this->store();
  store.Put("/a/2", "2");
  store.Put("/a/1", "1");
  store.Put("/a0", "outside");
  store.Put("/b/1", "outside");
  std::vector<KeyValue> kvs = store.GetPrefix("/a/");
  ASSERT_EQ(kvs.size(), 2u);
  EXPECT_EQ(kvs[0].key, "/a/1");
  EXPECT_EQ(kvs[0].value, "1");
  EXPECT_EQ(kvs[1].key, "/a/2");
  std::vector<KeyValue> keys = store.GetPrefixKeys("/a/");
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].key, "/a/1");
  EXPECT_EQ(keys[0].value, "");
  EXPECT_EQ(keys[0].mod_revision, kvs[0].mod_revision);
  EXPECT_EQ(store.DeletePrefix("/a/"), 2);
  EXPECT_TRUE(store.GetPrefix("/a/").empty());
  EXPECT_TRUE(store.Get("/a0").has_value());
  EXPECT_TRUE(store.Get("/b/1").has_value());
}

TYPED_TEST(KvStoreContract, GetRangeReadsAPageOfAHalfOpenRange) {
  KvStore& store = this->store();
  for (const char* key : {"/e/1", "/e/2", "/e/3", "/e/4", "/e0", "/d"}) store.Put(key, key);
  std::vector<KeyValue> page = store.GetRange("/e/2", "/e0", 2);
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].key, "/e/2");
  EXPECT_EQ(page[0].value, "/e/2");
  EXPECT_EQ(page[1].key, "/e/3");
  page = store.GetRange("/e/3", "/e0", 10);
  ASSERT_EQ(page.size(), 2u) << "the end is excluded";
  EXPECT_EQ(page[1].key, "/e/4");
  EXPECT_TRUE(store.GetRange("/e/5", "/e0", 10).empty());
}

TYPED_TEST(KvStoreContract, KeysOfAnExpiredLeaseDisappear) {
  KvStore& store = this->store();
  const int64_t lease = store.GrantLease(2);
  store.Put("/lease/short", "x", lease);
  store.Put("/lease/kept", "x");
  EXPECT_EQ(store.Get("/lease/short")->lease, lease);
  this->backend_->AwaitExpiry("/lease/short", 2);
  EXPECT_FALSE(store.Get("/lease/short").has_value());
  EXPECT_TRUE(store.Get("/lease/kept").has_value());
  EXPECT_EQ(store.KeepAlive(lease), 0);
  EXPECT_NO_THROW(store.RevokeLease(lease));
}

TYPED_TEST(KvStoreContract, KeepAliveHoldsKeysAndRevokeDropsThem) {
  KvStore& store = this->store();
  const int64_t lease = store.GrantLease(3);
  store.Put("/lease/kept", "x", lease);
  for (int i = 0; i < 5; ++i) {
    this->backend_->Elapse(1);
    EXPECT_GE(store.KeepAlive(lease), 1);
  }
  EXPECT_TRUE(store.Get("/lease/kept").has_value());
  store.RevokeLease(lease);
  EXPECT_FALSE(store.Get("/lease/kept").has_value());
  EXPECT_EQ(store.KeepAlive(lease), 0);
}

TYPED_TEST(KvStoreContract, APutWithoutALeaseDetachesTheKey) {
  KvStore& store = this->store();
  const int64_t lease = store.GrantLease(30);
  store.Put("/detached", "leased", lease);
  store.Put("/detached", "for good");
  EXPECT_EQ(store.Get("/detached")->lease, 0);
  store.RevokeLease(lease);
  EXPECT_EQ(store.Get("/detached")->value, "for good");
}

TYPED_TEST(KvStoreContract, PutOnAnUnknownLeaseFails) {
  KvStore& store = this->store();
  EXPECT_THROW(store.Put("/k", "v", 12345), StoreError);
  EXPECT_FALSE(store.Get("/k").has_value());
  EXPECT_THROW(store.GrantLease(0), StoreError);
}

TYPED_TEST(KvStoreContract, CreateIfAbsentWritesOnce) {
  KvStore& store = this->store();
  CreateResult first = store.CreateIfAbsent("/once", "first");
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.current.value, "first");
  CreateResult second = store.CreateIfAbsent("/once", "second");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.current.value, "first");
  EXPECT_EQ(second.current.create_revision, first.current.create_revision);
}

TYPED_TEST(KvStoreContract, ExactlyOneOfConcurrentWritersCreatesTheKey) {
  constexpr int kWriters = 8;
  std::vector<KvStore*> clients;
  clients.reserve(kWriters);
  for (int w = 0; w < kWriters; ++w) clients.push_back(&this->backend_->Connect());
  for (int round = 0; round < 5; ++round) {
    const std::string key = "/decision/" + std::to_string(round);
    std::atomic<bool> go{false};
    std::vector<CreateResult> results(kWriters);
    std::vector<std::thread> writers;
    writers.reserve(kWriters);
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        while (!go) std::this_thread::yield();
        results[w] = clients[w]->CreateIfAbsent(key, "writer-" + std::to_string(w));
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
    EXPECT_EQ(this->store().Get(key)->value, winner);
    EXPECT_EQ(this->store().Get(key)->version, 1);
  }
}

TYPED_TEST(KvStoreContract, TxnComparesAndItsOperationsSeeEachOther) {
  KvStore& store = this->store();
  store.Put("/cas", "v1");
  const int64_t rev = store.Get("/cas")->mod_revision;
  const TxnOp put{TxnOp::Kind::kPut, "/cas", "v2", 0};
  const TxnOp get{TxnOp::Kind::kGet, "/cas", "", 0};
  const Compare same{"/cas", Compare::Target::kModRevision, Compare::Result::kEqual, rev, ""};
  TxnResult ok = store.Txn({same}, {put, get}, {get});
  EXPECT_TRUE(ok.succeeded);
  ASSERT_EQ(ok.found.size(), 1u);
  EXPECT_EQ(ok.found[0].value, "v2");
  TxnResult stale = store.Txn({same}, {put}, {get});
  EXPECT_FALSE(stale.succeeded);
  ASSERT_EQ(stale.found.size(), 1u);
  EXPECT_EQ(stale.found[0].value, "v2");

  const Compare newer{"/cas", Compare::Target::kVersion, Compare::Result::kGreater, 1, ""};
  EXPECT_TRUE(store.Txn({newer}, {}, {}).succeeded);
  const Compare value{"/cas", Compare::Target::kValue, Compare::Result::kEqual, 0, "v2"};
  const TxnOp del{TxnOp::Kind::kDelete, "/cas", "", 0};
  EXPECT_TRUE(store.Txn({value}, {del}, {}).succeeded);
  EXPECT_FALSE(store.Get("/cas").has_value());

  // An absent key has revisions and version 0 but no value to compare.
  const Compare absent{"/cas", Compare::Target::kCreateRevision, Compare::Result::kEqual, 0, ""};
  EXPECT_TRUE(store.Txn({absent}, {}, {}).succeeded);
  const Compare no_value{"/cas", Compare::Target::kValue, Compare::Result::kNotEqual, 0, "x"};
  EXPECT_FALSE(store.Txn({no_value}, {}, {}).succeeded);
}

TYPED_TEST(KvStoreContract, ATxnMayWriteAKeyOnlyOnce) {
  KvStore& store = this->store();
  const TxnOp first{TxnOp::Kind::kPut, "/twice", "1", 0};
  const TxnOp second{TxnOp::Kind::kPut, "/twice", "2", 0};
  EXPECT_THROW(store.Txn({}, {first, second}, {}), StoreError);
  EXPECT_FALSE(store.Get("/twice").has_value());
}

}  // namespace
}  // namespace archimedes
