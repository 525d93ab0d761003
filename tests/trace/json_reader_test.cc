#include "trace/json_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

namespace archimedes {
namespace {

using ::testing::HasSubstr;

const std::string kSource = "doc.json";

// The JsonError `f` throws, as "path | problem | what()", or "no error".
std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const JsonError& e) {
    EXPECT_EQ(e.file(), kSource);
    return e.path() + " | " + e.problem() + " | " + e.what();
  }
  return "no error";
}

TEST(JsonReaderTest, ErrorsNameFilePathAndProblem) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"jobs": [{"tasks": {"cpu": "x"}}]})");
  const JsonValue root(kSource, doc);
  const JsonValue cpu = root.Member("jobs", doc["jobs"])
                            .Elements()[0]
                            .Member("tasks", doc["jobs"][0]["tasks"])
                            .Member("cpu", doc["jobs"][0]["tasks"]["cpu"]);
  EXPECT_EQ(cpu.path(), "jobs[0].tasks.cpu");
  EXPECT_EQ(ErrorOf([&] { cpu.Integer(); }),
            "jobs[0].tasks.cpu | expected a whole number, got string \"x\" | doc.json: "
            "jobs[0].tasks.cpu: expected a whole number, got string \"x\"");
  EXPECT_EQ(ErrorOf([&] { root.Fail("bad"); }), " | bad | doc.json: bad");
}

TEST(JsonReaderTest, TypesAreChecked) {
  const nlohmann::json doc = nlohmann::json::parse(
      R"({"s": "text", "n": 5, "f": 2.5, "w": 3.0, "b": true, "a": [1, "2"], "big": 1e30,
          "long": "0123456789012345678901234567890123456789-and-more"})");
  JsonObject o(JsonValue(kSource, doc));
  EXPECT_EQ(o.Require("s").String(), "text");
  EXPECT_EQ(o.Require("n").Int(), 5);
  EXPECT_EQ(o.Require("w").Integer(), 3);
  EXPECT_EQ(o.Require("f").Number(), 2.5);
  EXPECT_TRUE(o.Require("b").Bool());
  EXPECT_THAT(ErrorOf([&] { o.Require("s").Number(); }), HasSubstr("expected a number"));
  EXPECT_THAT(ErrorOf([&] { o.Require("f").Integer(); }), HasSubstr("expected a whole number"));
  EXPECT_THAT(ErrorOf([&] { o.Require("n").String(); }),
              HasSubstr("expected a string, got number 5"));
  EXPECT_THAT(ErrorOf([&] { o.Require("n").Bool(); }), HasSubstr("expected true or false"));
  EXPECT_THAT(ErrorOf([&] { o.Require("n").Int(6); }), HasSubstr("n | 5 is below the minimum 6"));
  EXPECT_THAT(ErrorOf([&] { o.Require("f").Number(0, 2); }),
              HasSubstr("2.5 is above the maximum 2"));
  EXPECT_THAT(ErrorOf([&] { o.Require("big").Integer(); }), HasSubstr("expected a whole number"));
  EXPECT_THAT(ErrorOf([&] { o.Require("a").Numbers(); }),
              HasSubstr("a[1] | expected a number, got string \"2\""));
  EXPECT_THAT(ErrorOf([&] { o.Require("long").Int(); }),
              HasSubstr("got string \"012345678901234567890123456789012345..."));
  EXPECT_EQ(o.Require("n").ScalarText(), "5");
  EXPECT_EQ(o.Require("s").ScalarText(), "text");
  EXPECT_THAT(ErrorOf([&] { o.Require("b").ScalarText(); }), HasSubstr("a string or a number"));
  o.RejectUnknownKeys();
}

TEST(JsonReaderTest, DurationsAreSecondsOrDurationStrings) {
  const nlohmann::json doc = nlohmann::json::parse(
      R"({"plain": 90, "text": "1h30m", "bad": "5x", "short": "0s", "neither": true})");
  JsonObject o(JsonValue(kSource, doc));
  EXPECT_EQ(o.Require("plain").Duration(), 90);
  EXPECT_EQ(o.Require("text").Duration(), 5400);
  EXPECT_THAT(ErrorOf([&] { o.Require("bad").Duration(); }),
              HasSubstr("doc.json: bad: duration \"5x\": unknown unit 'x' (use s, m, h or d)"));
  EXPECT_THAT(ErrorOf([&] { o.Require("short").Duration(1); }),
              HasSubstr("short: 0s is below the minimum 1s"));
  EXPECT_THAT(ErrorOf([&] { o.Require("neither").Duration(); }),
              HasSubstr("expected seconds or a duration such as \"5m\", got boolean true"));
}

TEST(JsonReaderTest, ObjectsRejectUnknownKeysAndNameNearMisses) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"replicsa": 3, "zzz": 1})");
  JsonObject o(JsonValue(kSource, doc));
  EXPECT_FALSE(o.Find("replicas"));
  EXPECT_THAT(ErrorOf([&] { o.RejectUnknownKeys(); }),
              HasSubstr("replicsa | unknown key \"replicsa\"; did you mean \"replicas\"?"));
  EXPECT_EQ(ErrorOf([&] { o.Require("replica"); }),
            " | missing required key \"replica\" (found \"replicsa\") | doc.json: missing required "
            "key \"replica\" (found \"replicsa\")");

  const nlohmann::json far = nlohmann::json::parse(R"({"name": "a", "zzz": 1})");
  JsonObject f(JsonValue(kSource, far));
  f.Find("name");
  f.Find("kind");
  EXPECT_THAT(ErrorOf([&] { f.RejectUnknownKeys(); }),
              HasSubstr("zzz | unknown key \"zzz\"; expected one of kind, name"));

  const nlohmann::json array = nlohmann::json::parse("[1]");
  EXPECT_THAT(ErrorOf([&] { JsonObject bad(JsonValue(kSource, array)); }),
              HasSubstr("expected an object, got an array of 1 element"));
}

TEST(JsonReaderTest, StringMapsHoldOnlyStrings) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"labels": {"a": "1", "b": 2}})");
  const JsonValue labels = JsonValue(kSource, doc).Member("labels", doc["labels"]);
  EXPECT_THAT(ErrorOf([&] { labels.StringMap(); }), HasSubstr("labels.b | expected a string"));
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/json_reader_test_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(JsonReaderTest, FilesRejectDuplicateKeysWithTheirPath) {
  const std::string path = WriteFile("dup.json", R"({"a": [{"b": 1}, {"c": 1, "c": 2}]})");
  try {
    ReadJsonFile(path);
    FAIL() << "no error";
  } catch (const JsonError& e) {
    EXPECT_EQ(e.path(), "a[1].c");
    EXPECT_EQ(e.problem(), "key \"c\" appears twice");
  }
}

TEST(JsonReaderTest, MalformedFilesGiveLineAndColumn) {
  const std::string path = WriteFile("malformed.json", "{\n  \"a\": [,]\n}\n");
  try {
    ReadJsonFile(path);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 2);
    EXPECT_THAT(e.what(), HasSubstr("malformed JSON at column 9"));
  }
  EXPECT_THROW(ReadJsonFile(::testing::TempDir() + "/json_reader_test_missing.json"), TraceError);
}

// Issue 19: a value nested 100,000 deep crashed the error path, which printed the whole value.
TEST(JsonReaderTest, ValueNested100000DeepIsAnErrorNotACrash) {
  const std::string path = WriteFile(
      "deep.json", "{\"jobs\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  try {
    ReadJsonFile(path);
    FAIL() << "no error";
  } catch (const JsonError& e) {
    EXPECT_EQ(e.problem(), "nested deeper than 64 levels");
    EXPECT_THAT(e.path(), ::testing::StartsWith("jobs[0][0]"));
  }
}

// Describing a structured value never prints it (it may be huge, and printing recurses).
TEST(JsonReaderTest, StructuredValuesAreDescribedBySize) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"a": [1, 2, 3], "o": {"k": 1}})");
  JsonObject o(JsonValue(kSource, doc));
  EXPECT_EQ(o.Require("a").Describe(), "an array of 3 elements");
  EXPECT_EQ(o.Require("o").Describe(), "an object of 1 key");
}

}  // namespace
}  // namespace archimedes
