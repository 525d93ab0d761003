// The `archimedes magi` command as a user runs it: a real process and real files. A member's
// rounds need etcd (tests/magi, scripts/magi_fault_test.sh); these cases end before it starts.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/command.h"

namespace archimedes {
namespace {

using testing::CommandResult;
using testing::TempPath;

constexpr char kMember[] =
    "magi --id 1 --pod pod-a --store http://127.0.0.1:1 --members 1=pod-a,2=pod-b,3=pod-c";

// The nodes file is read strictly in src/trace/ before the member touches its store.
TEST(MagiCliTest, ANodesFileWithAnUnknownKeyIsRefusedNamingThePathInTheFile) {
  const std::string nodes = TempPath("nodes.json");
  std::ofstream(nodes) << R"({"nodes": [{"name": "a", "address": "h:1", "pod": "pod-a",
                                         "health": "http://h:1/"}]})";
  const CommandResult r = testing::RunArchimedes(std::string(kMember) + " --nodes " + nodes);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, "archimedes: " + nodes +
                          ": nodes[0].health: unknown key \"health\"; expected one of address, "
                          "health_url, name, pod\n");
}

TEST(MagiCliTest, AMissingNodesFileIsNamedSo) {
  const std::string nodes = TempPath("absent.json");
  const CommandResult r = testing::RunArchimedes(std::string(kMember) + " --nodes " + nodes);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output, "archimedes: " + nodes + ": no such file\n");
}

}  // namespace
}  // namespace archimedes
