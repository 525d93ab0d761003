#include "model/chunked_vector.h"

#include <gtest/gtest.h>

#include <string>

namespace archimedes {
namespace {

TEST(ChunkedVectorTest, KeepsOrderAndAddressesAcrossChunks) {
  ChunkedVector<std::string, 2> v;  // chunks of four
  EXPECT_TRUE(v.empty());
  v.push_back("a");
  const std::string* first = &v[0];
  for (int i = 1; i < 11; ++i) v.push_back(std::string(1, static_cast<char>('a' + i)));
  ASSERT_EQ(v.size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(v[i], std::string(1, static_cast<char>('a' + i)));
  EXPECT_EQ(&v[0], first);  // three chunks later, the first element has not moved
  std::string& appended = v.emplace_back();
  EXPECT_TRUE(appended.empty());
  appended = "l";
  EXPECT_EQ(v[11], "l");
}

TEST(ChunkedVectorTest, ResizeGrowsWithDefaultsAndNeverShrinks) {
  ChunkedVector<int, 2> v;
  v.push_back(7);
  v.resize(9);
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(v[0], 7);
  for (int i = 1; i < 9; ++i) EXPECT_EQ(v[i], 0);
  v.resize(3);
  EXPECT_EQ(v.size(), 9u);
  v[8] = 5;
  const ChunkedVector<int, 2>& read = v;
  EXPECT_EQ(read[8], 5);
}

}  // namespace
}  // namespace archimedes
