// The dashboard's routes through real HTTP on loopback: /ui and the files it loads, byte for byte
// the files of src/server/ui/ with their content types; and GET /v1/magi, which lists the
// decisions MAGI's members recorded in the etcd store and says plainly that MAGI needs etcd
// otherwise. (tests/server/ui/dashboard_test.sh opens the page in a browser.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "server/api_call.h"
#include "server/test_server.h"
#include "store/etcd_store.h"
#include "store/etcd_test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
using testing::Answer;
using testing::Call;
using testing::ExpectError;
using testing::TestServer;

std::string SourceFile(const std::string& name) {
  std::ifstream in(std::filesystem::path(ARCHIMEDES_SOURCE_DIR) / "src/server/ui" / name,
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(UiTest, PageAndItsFilesAnswerAsTheTreeHoldsThemWithTheirContentTypes) {
  TestServer server;
  for (const std::string path : {"/ui", "/ui/"}) {
    const httplib::Result page = server.client().Get(path);
    ASSERT_TRUE(page) << path;
    EXPECT_EQ(page->status, 200) << path;
    EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8") << path;
    EXPECT_EQ(page->body, SourceFile("index.html")) << path;
  }
  const std::string page = SourceFile("index.html");
  const std::map<std::string, std::string> types = {{"js", "text/javascript; charset=utf-8"},
                                                    {"css", "text/css; charset=utf-8"}};
  const std::regex asset(R"re((?:src|href)="/ui/([a-z_]+)\.(js|css)")re");
  int assets = 0;
  for (auto m = std::sregex_iterator(page.begin(), page.end(), asset); m != std::sregex_iterator();
       ++m, ++assets) {
    const std::string name = (*m)[1].str() + "." + (*m)[2].str();
    const httplib::Result file = server.client().Get("/ui/" + name);
    ASSERT_TRUE(file) << name;
    EXPECT_EQ(file->status, 200) << name;
    EXPECT_EQ(file->get_header_value("Content-Type"), types.at((*m)[2].str())) << name;
    EXPECT_EQ(file->body, SourceFile(name)) << name;
  }
  EXPECT_EQ(assets, 2) << "the page loads its script and its style";
  ExpectError(Call(server.client(), "GET", "/ui/missing.js"), 404, "NotFound", "");
  ExpectError(Call(server.client(), "GET", "/ui/dashboardxjs"), 404, "NotFound", "");
}

TEST(MagiViewTest, SqliteStoreSaysMagiNeedsEtcd) {
  TestServer server;
  const Answer a = Call(server.client(), "GET", "/v1/magi");
  ASSERT_EQ(a.status, 200) << a.body.dump();
  EXPECT_EQ(a.body["kind"], "MagiDecisionList");
  EXPECT_EQ(a.body["store"], "sqlite");
  EXPECT_TRUE(a.body["items"].empty());
  EXPECT_NE(a.body["message"].get<std::string>().find("MAGI needs the etcd store"),
            std::string::npos)
      << a.body.dump();
}

TEST(MagiViewTest, DecisionsRecordedInEtcdAreListed) {
  ARCHIMEDES_REQUIRE_ETCD();
  archimedes::testing::EtcdTestServer etcd;
  ServerConfig config = TestServer::VirtualConfig();
  config.store = "etcd://" + etcd.endpoint().substr(std::string("http://").size()) + "/team-a";
  TestServer server(config);
  const Answer none = Call(server.client(), "GET", "/v1/magi");
  ASSERT_EQ(none.status, 200) << none.body.dump();
  EXPECT_EQ(none.body["store"], "etcd");
  EXPECT_EQ(none.body["prefix"], "/team-a/magi/");
  EXPECT_TRUE(none.body["items"].empty());
  EXPECT_NE(none.body["message"].get<std::string>().find("no decision recorded"),
            std::string::npos);

  // A record in the shape the members write (magi/member.h, docs/magi.md), one that is not a
  // record, and one of another MAGI (another prefix), which is not this server's.
  const json record = {{"kind", "node-offline"},
                       {"node", "n7"},
                       {"outcome", "passed"},
                       {"opened_at", 100},
                       {"decided_at", 130},
                       {"recorded_by", 2},
                       {"yes", 3},
                       {"no", 1},
                       {"abstain", 1},
                       {"yes_pods", 3},
                       {"explanation", "3 yes from 3 PODs"},
                       {"votes", json::array()}};
  EtcdStore store(etcd.endpoint());
  store.Put("/team-a/magi/decisions/node-offline/n7", record.dump());
  store.Put("/team-a/magi/decisions/migrate/n8", "garbage");
  store.Put("/archimedes/magi/decisions/node-offline/n9", record.dump());
  const Answer some = Call(server.client(), "GET", "/v1/magi");
  ASSERT_EQ(some.status, 200) << some.body.dump();
  ASSERT_EQ(some.body["items"].size(), 2U) << some.body.dump();
  EXPECT_EQ(some.body["items"][0]["key"], "/team-a/magi/decisions/migrate/n8");
  EXPECT_NE(some.body["items"][0]["message"].get<std::string>().find("not a decision record"),
            std::string::npos);
  EXPECT_EQ(some.body["items"][1], record);
  EXPECT_EQ(some.body["message"], "");
}

}  // namespace
}  // namespace archimedes
