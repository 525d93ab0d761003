#include "trace/magi_nodes_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "trace/json_reader.h"
#include "trace/trace_error.h"

namespace archimedes {
namespace {

// A file of this test's own, holding `text`.
std::string NodesFile(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/magi_nodes_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".json";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// What reading `path` throws, or "no error".
std::string ErrorReading(const std::string& path) {
  try {
    ReadMagiNodesFile(path);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MagiNodesFileTest, ReadsEveryFieldAndLeavesOptionalOnesEmpty) {
  const std::string path = NodesFile(R"({"nodes": [
      {"name": "node-1", "pod": "pod-a", "address": "10.0.0.11:8080",
       "health_url": "http://10.0.0.11:8080/healthz"},
      {"name": "node-2", "address": "node-2.local:9"}]})");
  const std::vector<WatchedNode> nodes = ReadMagiNodesFile(path);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "node-1");
  EXPECT_EQ(nodes[0].pod, "pod-a");
  EXPECT_EQ(nodes[0].address, "10.0.0.11:8080");
  EXPECT_EQ(nodes[0].health_url, "http://10.0.0.11:8080/healthz");
  EXPECT_EQ(nodes[1].name, "node-2");
  EXPECT_EQ(nodes[1].pod, "");
  EXPECT_EQ(nodes[1].address, "node-2.local:9");
  EXPECT_EQ(nodes[1].health_url, "");
}

TEST(MagiNodesFileTest, AnUnknownKeyIsRefusedWithTheKnownOneSuggested) {
  const std::string path =
      NodesFile(R"({"nodes": [{"name": "a", "address": "h:1", "heatlh_url": "http://h:1/"}]})");
  EXPECT_EQ(ErrorReading(path),
            path +
                ": nodes[0].heatlh_url: unknown key \"heatlh_url\"; did you mean "
                "\"health_url\"?");
  const std::string top = NodesFile(R"({"nodes": [{"name": "a", "address": "h:1"}], "x": 1})");
  EXPECT_EQ(ErrorReading(top), top + ": x: unknown key \"x\"; expected one of nodes");
}

TEST(MagiNodesFileTest, AValueOfTheWrongTypeNamesWhatWasExpected) {
  const std::string path = NodesFile(R"({"nodes": [{"name": "a", "address": 8080}]})");
  EXPECT_EQ(ErrorReading(path), path + ": nodes[0].address: expected a string, got number 8080");
  const std::string list = NodesFile(R"({"nodes": {"name": "a"}})");
  EXPECT_EQ(ErrorReading(list), list + ": nodes: expected an array, got an object of 1 key");
}

TEST(MagiNodesFileTest, ANameListedTwiceIsRefusedNamingTheFirst) {
  const std::string path = NodesFile(R"({"nodes": [{"name": "a", "address": "h:1"},
      {"name": "b", "address": "h:2"}, {"name": "a", "address": "h:3"}]})");
  EXPECT_EQ(ErrorReading(path),
            path + ": nodes[2]: node \"a\" is listed twice (first as nodes[0])");
}

TEST(MagiNodesFileTest, AMissingFileIsNamedSo) {
  const std::string path = ::testing::TempDir() + "/magi_nodes_no_such_file.json";
  std::filesystem::remove(path);
  EXPECT_EQ(ErrorReading(path), path + ": no such file");
}

TEST(MagiNodesFileTest, BadAddressesAndURLsAreRefused) {
  const std::string no_port = NodesFile(R"({"nodes": [{"name": "a", "address": "10.0.0.1"}]})");
  EXPECT_EQ(ErrorReading(no_port), no_port + ": nodes[0].address: \"10.0.0.1\" is not HOST:PORT");
  const std::string big_port = NodesFile(R"({"nodes": [{"name": "a", "address": "h:99999"}]})");
  EXPECT_EQ(ErrorReading(big_port),
            big_port + ": nodes[0].address: \"h:99999\": port 99999 is outside [1, 65535]");
  const std::string https =
      NodesFile(R"({"nodes": [{"name": "a", "address": "h:1", "health_url": "https://h:1/"}]})");
  EXPECT_EQ(ErrorReading(https),
            https + ": nodes[0].health_url: \"https://h:1/\" is not an http:// URL");
}

TEST(MagiNodesFileTest, MissingAndEmptyThingsAreRefused) {
  const std::string no_name = NodesFile(R"({"nodes": [{"nmae": "a", "address": "h:1"}]})");
  EXPECT_EQ(ErrorReading(no_name),
            no_name + ": nodes[0]: missing required key \"name\" (found \"nmae\")");
  const std::string empty_name = NodesFile(R"({"nodes": [{"name": "", "address": "h:1"}]})");
  EXPECT_EQ(ErrorReading(empty_name), empty_name + ": nodes[0].name: a name must not be empty");
  const std::string none = NodesFile(R"({"nodes": []})");
  EXPECT_EQ(ErrorReading(none), none + ": nodes: lists no nodes");
  const std::string not_json = NodesFile("{\"nodes\": [");
  EXPECT_EQ(ErrorReading(not_json).rfind(not_json + ":1: malformed JSON at column", 0), 0u)
      << ErrorReading(not_json);
}

}  // namespace
}  // namespace archimedes
