// One HTTP call to a test server, its answer parsed, and the checks of the API's error shape.
#ifndef ARCHIMEDES_TESTS_SERVER_API_CALL_H_
#define ARCHIMEDES_TESTS_SERVER_API_CALL_H_

#include <gtest/gtest.h>
#include <httplib.h>

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace archimedes::testing {

struct Answer {
  int status = 0;
  nlohmann::json body;  // the parsed JSON, or the text as a JSON string
};

inline Answer Call(httplib::Client& c, const std::string& method, const std::string& path,
                   const std::string& body = "", const httplib::Headers& headers = {}) {
  httplib::Result r = method == "GET"      ? c.Get(path, headers)
                      : method == "DELETE" ? c.Delete(path, headers)
                      : method == "PUT"    ? c.Put(path, headers, body, "application/json")
                                           : c.Post(path, headers, body, "application/json");
  if (!r) throw std::runtime_error(method + " " + path + ": no answer");
  Answer a{r->status, nlohmann::json()};
  const std::string type = r->get_header_value("Content-Type");
  a.body = type == "application/json" ? nlohmann::json::parse(r->body) : nlohmann::json(r->body);
  return a;
}

// The error shape, its code, reason and field.
inline void ExpectError(const Answer& a, int code, const std::string& reason,
                        const std::string& field) {
  EXPECT_EQ(a.status, code) << a.body.dump();
  ASSERT_TRUE(a.body.is_object()) << a.body.dump();
  EXPECT_EQ(a.body.value("code", 0), code) << a.body.dump();
  EXPECT_EQ(a.body.value("reason", ""), reason) << a.body.dump();
  EXPECT_EQ(a.body.value("field", "?"), field) << a.body.dump();
  EXPECT_FALSE(a.body.value("message", "").empty()) << a.body.dump();
}

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SERVER_API_CALL_H_
