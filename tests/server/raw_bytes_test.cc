// Found by the mutation sweep of issue 19: a request body whose JSON strings are not UTF-8, or that
// is not JSON at all, gets the one JSON error shape in the project's words — not a 500 from an
// error message that could not be written out, and not the JSON library's own text.
#include <gtest/gtest.h>

#include <string>

#include "server/api_call.h"
#include "server/test_server.h"

namespace archimedes {
namespace {

using testing::Answer;
using testing::Call;
using testing::TestServer;

TEST(RawBytesTest, BodiesThatAreNotUtf8OrNotJsonGetAJsonErrorInOurWords) {
  TestServer server;
  httplib::Client& c = server.client();
  const std::string not_utf8 = "{\"metadata\":{\"name\":\"n\xc3\"}}";
  const std::string truncated = R"({"metadata":{"name":"n1"},"spec":{"capac)";
  for (const char* route : {"/v1/jobs", "/scheduler/nodes", "/scheduler/filter",
                            "/scheduler/prioritize", "/scheduler/bind"}) {
    for (const std::string& body : {not_utf8, truncated, std::string()}) {
      const Answer a = Call(c, "POST", route, body);
      EXPECT_GE(a.status, 400) << route;
      EXPECT_LT(a.status, 500) << route << ": " << a.body.dump();
      ASSERT_TRUE(a.body.is_object()) << route << ": " << a.body.dump();
      const std::string message = a.body.value("message", "");
      EXPECT_FALSE(message.empty()) << route;
      EXPECT_EQ(message.find("json.exception"), std::string::npos) << route << ": " << message;
    }
  }
  const Answer service = Call(c, "PUT", "/v1/services/x", not_utf8);
  EXPECT_EQ(service.status, 400) << service.body.dump();
}

}  // namespace
}  // namespace archimedes
