// What only MemoryStore does: keep time by its owner's clock. The KvStore contract both stores
// keep is in kv_store_test.cc.
#include "store/memory_store.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace archimedes {
namespace {

TEST(MemoryStoreTest, LeasesExpireExactlyWhenTheOwnersClockReachesTheirTtl) {
  MemoryStore store(100);
  const int64_t lease = store.GrantLease(5);
  store.Put("/member", "alive", lease);
  store.AdvanceTo(104);
  EXPECT_TRUE(store.Get("/member").has_value());
  EXPECT_EQ(store.KeepAlive(lease), 5);  // now due at 109
  store.AdvanceTo(108);
  EXPECT_TRUE(store.Get("/member").has_value());
  store.AdvanceTo(109);
  EXPECT_FALSE(store.Get("/member").has_value());
  EXPECT_EQ(store.KeepAlive(lease), 0);
  EXPECT_EQ(store.now(), 109);
}

TEST(MemoryStoreTest, NothingHappensWhileTheClockStands) {
  MemoryStore store;
  const int64_t lease = store.GrantLease(1);
  store.Put("/k", "v", lease);
  for (int i = 0; i < 100; ++i) EXPECT_GE(store.KeepAlive(lease), 1);
  EXPECT_TRUE(store.Get("/k").has_value());
}

TEST(MemoryStoreTest, TimeDoesNotGoBack) {
  MemoryStore store(10);
  store.AdvanceTo(10);
  EXPECT_THROW(store.AdvanceTo(9), std::invalid_argument);
}

TEST(MemoryStoreTest, RevisionsAndLeaseIdsStartSmallAndCountUp) {
  MemoryStore store;
  EXPECT_EQ(store.Put("/a", "1"), 2);  // the empty store is at revision 1, as etcd's
  EXPECT_EQ(store.GrantLease(10), 1);
  EXPECT_EQ(store.GrantLease(10), 2);
  const int64_t lease = store.GrantLease(10);
  store.Put("/b", "1", lease);
  store.Put("/c", "1", lease);
  store.RevokeLease(lease);  // both keys go in one revision
  EXPECT_EQ(store.Put("/d", "1"), 6);
}

TEST(MemoryStoreTest, ErrorsNameTheStoreAndTheOperation) {
  MemoryStore store;
  try {
    store.Put("/k", "v", 7);
    FAIL() << "put on an unknown lease succeeded";
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()), "memory: put: requested lease not found");
  }
}

}  // namespace
}  // namespace archimedes
