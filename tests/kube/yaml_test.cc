// YAML read on libyaml: the tree and its lines, sigs.k8s.io/yaml's scalars, and the bounds that
// make any text, from the network too, safe to read.
#include "kube/yaml.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "kube/documents.h"
#include "kube/kube_error.h"
#include "kube/kube_node.h"

namespace archimedes {
namespace {

std::string ErrorOf(const std::string& source, const std::string& text) {
  try {
    ParseDocuments(source, text);
  } catch (const KubeError& e) {
    return e.what();
  }
  return "no error";
}

long PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(YamlTest, KeepsTheLineOfEveryKeyAndValue) {
  const YamlDocuments docs =
      ParseYaml("s.yaml", "# settings\nlisten: 127.0.0.1:0\n\nclock: 'virtual'\nlist:\n- a\n");
  ASSERT_EQ(docs.size(), 1u);
  const YamlNode& root = docs[0];
  ASSERT_EQ(root.kind, YamlNode::Kind::kMapping);
  ASSERT_EQ(root.entries.size(), 3u);
  EXPECT_EQ(root.entries[0].key, "listen");
  EXPECT_EQ(root.entries[0].line, 2);
  EXPECT_EQ(root.entries[0].value->text, "127.0.0.1:0");
  EXPECT_TRUE(root.entries[0].value->plain);
  EXPECT_EQ(root.entries[1].line, 4);
  EXPECT_FALSE(root.entries[1].value->plain);
  EXPECT_EQ(root.entries[2].line, 5);
  ASSERT_EQ(root.entries[2].value->kind, YamlNode::Kind::kSequence);
  EXPECT_EQ(root.entries[2].value->items.at(0)->line, 6);
  EXPECT_TRUE(ParseYaml("empty.yaml", "# nothing\n\n").empty());
}

TEST(YamlTest, ScalarsBecomeJsonAsSigsK8sIoYamlMakesThem) {
  const nlohmann::json doc =
      ParseDocuments(
          "s.yaml",
          "i: 42\nplus: +5\nneg: -7\nbig: 99999999999999999999\nf: 0.25\ng: .5\nh: 5.\ne: 1e3\n"
          "huge: 1e999\nhex: 0x10\nunderscore: 1_000\nt: true\nF: False\nn: null\ntilde: ~\n"
          "empty:\nquoted: \"12\"\nsingle: 'true'\ntagged: !!int 3\nblock: |\n  12\nword: 12a\n"
          "signs: +-5\n")
          .at(0);
  EXPECT_EQ(doc["i"], 42);
  EXPECT_TRUE(doc["i"].is_number_integer());
  EXPECT_EQ(doc["plus"], 5);
  EXPECT_EQ(doc["neg"], -7);
  EXPECT_TRUE(doc["big"].is_number_float());
  EXPECT_DOUBLE_EQ(doc["big"].get<double>(), 1e20);
  EXPECT_DOUBLE_EQ(doc["f"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(doc["g"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(doc["h"].get<double>(), 5.0);
  EXPECT_TRUE(doc["h"].is_number_float());
  EXPECT_DOUBLE_EQ(doc["e"].get<double>(), 1000.0);
  EXPECT_EQ(doc["huge"], "1e999");
  EXPECT_EQ(doc["hex"], "0x10");
  EXPECT_EQ(doc["underscore"], "1_000");
  EXPECT_EQ(doc["t"], true);
  EXPECT_EQ(doc["F"], false);
  EXPECT_TRUE(doc["n"].is_null());
  EXPECT_TRUE(doc["tilde"].is_null());
  EXPECT_TRUE(doc["empty"].is_null());
  EXPECT_EQ(doc["quoted"], "12");
  EXPECT_EQ(doc["single"], "true");
  EXPECT_EQ(doc["tagged"], "3");
  EXPECT_EQ(doc["block"], "12\n");
  EXPECT_EQ(doc["word"], "12a");
  EXPECT_EQ(doc["signs"], "+-5");
}

TEST(YamlTest, ReadsSeveralDocumentsAndTheirLists) {
  const std::string text = R"(# kubectl get nodes -o yaml, and one more
apiVersion: v1
kind: NodeList
items:
- metadata: {name: a, labels: {topology.kubernetes.io/zone: z1}}
  status: {allocatable: {cpu: "8", memory: 32Gi}}
- metadata: {name: b}
  status:
    allocatable: {cpu: 4, memory: 16Gi}
---
---
apiVersion: v1
kind: Node
metadata: {name: c}
status: {allocatable: {cpu: 2500m, memory: 1Gi}}
...
)";
  const std::vector<nlohmann::json> docs = ParseDocuments("nodes.yaml", text);
  ASSERT_EQ(docs.size(), 2u);  // the empty document is skipped
  const std::vector<nlohmann::json> nodes = ExpandLists(docs);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(DecodeKubeNode(nodes[0]).name, "a");
  EXPECT_EQ(DecodeKubeNode(nodes[0]).zone, "z1");
  EXPECT_EQ(DecodeKubeNode(nodes[1]).allocatable.cpu(), 4000);
  EXPECT_EQ(DecodeKubeNode(nodes[2]).allocatable.cpu(), 2500);
  EXPECT_EQ(DecodeKubeNode(nodes[2]).allocatable.memory(), 1 << 30);
}

TEST(YamlTest, AliasesWithinTheBudgetAreExpanded) {
  const std::vector<nlohmann::json> docs = ParseDocuments("a.yaml", R"(
defaults: &requests {cpu: 250m, memory: 64Mi}
name: &name web
containers:
- {name: *name, resources: {requests: *requests}}
- {name: sidecar, resources: {requests: *requests, limits: *requests}}
*name : the key is the alias's text
)");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0]["containers"][0]["name"], "web");
  EXPECT_EQ(docs[0]["containers"][1]["resources"]["limits"]["memory"], "64Mi");
  EXPECT_EQ(docs[0]["web"], "the key is the alias's text");
  // An anchor names a node of its own document only.
  EXPECT_EQ(ErrorOf("a.yaml", "a: &x 1\n---\nb: *x\n"),
            "a.yaml: line 3: alias *x names no anchor before it");
  // Nor can a collection hold itself.
  EXPECT_NE(ErrorOf("a.yaml", "a: &x [1, *x]\n").find("alias *x names no anchor"),
            std::string::npos);
}

// Aliases of aliases ("billion laughs") counted in values, and one long scalar aliased many
// times counted in bytes: each text is a few kilobytes and would expand to gigabytes.
TEST(YamlTest, AliasesThatExpandPastTheTextAreRefused) {
  std::string laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 9; ++level) {
    laughs += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) laughs += (i ? ", *l" : "*l") + std::to_string(level - 1);
    laughs += "]\n";
  }
  const std::string laughs_error = ErrorOf("laughs.yaml", laughs);
  EXPECT_EQ(laughs_error.rfind("laughs.yaml: line 3: aliases expand past the text's own", 0), 0u)
      << laughs_error;

  std::string long_scalar = "a: &a " + std::string(4000, 'x') + "\nb: [";
  for (int i = 0; i < 4000; ++i) long_scalar += i ? ", *a" : "*a";
  long_scalar += "]\n";
  EXPECT_NE(ErrorOf("long.yaml", long_scalar).find("long.yaml: line 2: aliases expand"),
            std::string::npos);
}

TEST(YamlTest, NestingDeeperThanTheLimitIsRefused) {
  EXPECT_EQ(ErrorOf("deep.yaml", "a: " + std::string(100, '[') + std::string(100, ']')),
            "deep.yaml: line 1: nested deeper than 64 levels");
  std::string block;
  for (int level = 0; level < 70; ++level) block += std::string(level, ' ') + "k:\n";
  EXPECT_EQ(ErrorOf("deep.yaml", block), "deep.yaml: line 65: nested deeper than 64 levels");
  // As deep as the limit is fine.
  EXPECT_EQ(ParseYaml("ok.yaml", "a: " + std::string(63, '[') + std::string(63, ']')).size(), 1u);
}

TEST(YamlTest, BadTextIsRefusedWithTheSourceAndLine) {
  EXPECT_EQ(ErrorOf("latin1.yaml", "metadata:\n  name: caf\xe9\n"),
            "latin1.yaml: line 2: invalid text at byte 21: incomplete UTF-8 octet sequence");
  EXPECT_EQ(ErrorOf("ff.yaml", "a: b\nc: \"\xff\"\n"),
            "ff.yaml: line 2: invalid text at byte 9: invalid leading UTF-8 octet 0xFF");
  EXPECT_NE(ErrorOf("ctl.yaml", "a: b\x01\n").find("ctl.yaml: line 1: invalid text"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("x.yaml", "a: b\nc: [d\n"),
            "x.yaml: line 3: not valid YAML: did not find expected ',' or ']' (while parsing a "
            "flow sequence at line 2)");
  EXPECT_EQ(ErrorOf("x.yaml", "? [a]\n: b\n"), "x.yaml: line 1: a mapping key must be a scalar");
  EXPECT_EQ(ErrorOf("x.yaml", "a: &s {b: c}\n*s : d\n"),
            "x.yaml: line 2: a mapping key must be a scalar");
}

// yaml-cpp 0.7 took over 2 GB inside YAML::LoadAll on this 714-byte text (found by fuzzing).
TEST(YamlTest, TheTextThatExhaustedYamlCppIsReadQuicklyInLittleMemory) {
  std::ifstream in(std::string(ARCHIMEDES_SOURCE_DIR) +
                   "/fuzz/regressions/yaml_fuzz/yaml_cpp_memory");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_EQ(text.str().size(), 714u);
  const long before = PeakRssKib();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(ErrorOf("yaml_cpp_memory", text.str()).find("yaml_cpp_memory: line "),
            std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_LT(PeakRssKib() - before, 200 * 1024);
}

}  // namespace
}  // namespace archimedes
