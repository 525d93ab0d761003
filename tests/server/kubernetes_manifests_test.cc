// examples/kubernetes/ as a platform team applies it: every manifest parses, has a kind and
// apiVersion Kubernetes serves, and fits the others; the extender's URLs are routes `serve`
// answers; the serve settings (of both modes) load; the RBAC role is bound to serve's account.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "kube/documents.h"
#include "server/config.h"
#include "support/fixture_files.h"
#include "test_server.h"

namespace archimedes {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kDir = fs::path(ARCHIMEDES_SOURCE_DIR) / "examples" / "kubernetes";

using testing::ReadText;

// Every object of every manifest, by "Kind/name".
std::map<std::string, json> Objects() {
  std::map<std::string, json> objects;
  for (const fs::directory_entry& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() != ".yaml") continue;
    for (json& doc : ExpandLists(ParseDocuments(e.path().string(), ReadText(e.path())))) {
      const std::string key =
          doc["kind"].get<std::string>() + "/" + doc["metadata"]["name"].get<std::string>();
      EXPECT_FALSE(objects.contains(key)) << key << " is defined twice";
      objects[key] = doc;
    }
  }
  return objects;
}

TEST(KubernetesManifestsTest, EveryObjectHasAKindKubernetesServes) {
  const std::map<std::string, std::set<std::string>> kinds = {
      {"v1",
       {"Namespace", "ServiceAccount", "ConfigMap", "Service", "PersistentVolumeClaim", "Pod"}},
      {"apps/v1", {"Deployment"}},
      {"rbac.authorization.k8s.io/v1",
       {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}}};
  const std::set<std::string> cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding"};
  const std::map<std::string, json> objects = Objects();
  ASSERT_GE(objects.size(), 10u);
  for (const auto& [key, o] : objects) {
    SCOPED_TRACE(key);
    const std::string api = o["apiVersion"], kind = o["kind"];
    ASSERT_TRUE(kinds.contains(api)) << api;
    EXPECT_TRUE(kinds.at(api).contains(kind)) << api << " serves no " << kind;
    EXPECT_EQ(o["metadata"].contains("namespace"), !cluster_scoped.contains(kind));
    if (kind == "Deployment") {
      EXPECT_EQ(o["spec"]["selector"]["matchLabels"], o["spec"]["template"]["metadata"]["labels"]);
      const std::string account = o["spec"]["template"]["spec"]["serviceAccountName"];
      EXPECT_TRUE(objects.contains("ServiceAccount/" + account)) << account;
      for (const json& v : o["spec"]["template"]["spec"]["volumes"]) {
        if (v.contains("configMap")) {
          EXPECT_TRUE(objects.contains("ConfigMap/" + v["configMap"]["name"].get<std::string>()));
        }
        if (v.contains("persistentVolumeClaim")) {
          EXPECT_TRUE(objects.contains("PersistentVolumeClaim/" +
                                       v["persistentVolumeClaim"]["claimName"].get<std::string>()));
        }
      }
    }
  }
}

TEST(KubernetesManifestsTest, ServeLoadsItsSettingsAndItsServiceReachesIt) {
  const std::map<std::string, json> objects = Objects();
  const json& config_map = objects.at("ConfigMap/archimedes-serve");
  const fs::path settings = fs::temp_directory_path() / "archimedes-manifest-serve.yaml";
  std::ofstream(settings) << config_map["data"]["serve.yaml"].get<std::string>();
  ServerConfig config;
  ReadConfigFile(settings.string(), config);
  fs::remove(settings);

  const json& serve = objects.at("Deployment/archimedes")["spec"]["template"]["spec"];
  const json& container = serve["containers"][0];
  EXPECT_EQ(container["args"][0], "serve");
  const json& port = container["ports"][0];
  EXPECT_EQ(port["containerPort"], config.port);
  const json& service = objects.at("Service/archimedes");
  EXPECT_EQ(service["spec"]["selector"],
            objects.at("Deployment/archimedes")["spec"]["template"]["metadata"]["labels"]);
  EXPECT_EQ(service["spec"]["ports"][0]["targetPort"], port["name"]);
  bool data_mounted = false;
  for (const json& m : container["volumeMounts"]) data_mounted |= m["mountPath"] == config.data;
  EXPECT_TRUE(data_mounted) << "the data folder " << config.data << " is on no volume";
}

TEST(KubernetesManifestsTest, TheExtenderCallsRoutesServeAnswers) {
  const std::map<std::string, json> objects = Objects();
  const json& scheduler_config = objects.at("ConfigMap/archimedes-scheduler-config");
  const std::vector<json> docs =
      ParseDocuments("kube-scheduler-config.yaml",
                     scheduler_config["data"]["kube-scheduler-config.yaml"].get<std::string>());
  ASSERT_EQ(docs.size(), 1u);
  const json& ksc = docs[0];
  EXPECT_EQ(ksc["apiVersion"], "kubescheduler.config.k8s.io/v1");
  EXPECT_EQ(ksc["kind"], "KubeSchedulerConfiguration");
  std::set<std::string> profiles;
  for (const json& p : ksc["profiles"]) profiles.insert(p["schedulerName"]);
  EXPECT_TRUE(profiles.contains("archimedes"));
  EXPECT_EQ(objects.at("Pod/hello-archimedes")["spec"]["schedulerName"], "archimedes");

  ASSERT_EQ(ksc["extenders"].size(), 1u);
  const json& extender = ksc["extenders"][0];
  // http://<service>.<namespace>.svc:<port><path>
  const std::string url = extender["urlPrefix"];
  const json& service = objects.at("Service/archimedes");
  const std::string host = "http://" + service["metadata"]["name"].get<std::string>() + "." +
                           service["metadata"]["namespace"].get<std::string>() +
                           ".svc:" + std::to_string(service["spec"]["ports"][0]["port"].get<int>());
  ASSERT_TRUE(url.starts_with(host)) << url;
  const std::string prefix = url.substr(host.size());
  EXPECT_GT(extender["weight"].get<int>(), 0);
  EXPECT_TRUE(extender["nodeCacheCapable"].get<bool>());

  testing::TestServer server;
  int verbs = 0;
  for (const char* verb : {"filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb"}) {
    if (!extender.contains(verb)) continue;
    const std::string path = prefix + "/" + extender[verb].get<std::string>();
    const httplib::Result r = server.client().Post(path, "{}", "application/json");
    ASSERT_TRUE(r) << path;
    // A route refuses the empty message (400); a path that is none is a 404.
    EXPECT_EQ(r->status, 400) << path;
    ++verbs;
  }
  EXPECT_EQ(verbs, 3);
}

// own-scheduler/configmap.yaml replaces the serve settings for `serve --kube-api`: the same
// object, the same settings plus kube-api in-cluster, for the pods the example pod stands for.
TEST(KubernetesManifestsTest, TheOwnSchedulerSettingsReplaceTheExtendersAndLoad) {
  const std::map<std::string, json> objects = Objects();
  const fs::path file = kDir / "own-scheduler" / "configmap.yaml";
  const std::vector<json> docs = ParseDocuments(file.string(), ReadText(file));
  ASSERT_EQ(docs.size(), 1u);
  const json& own = docs[0];
  const json& extender = objects.at("ConfigMap/archimedes-serve");
  EXPECT_EQ(own["kind"], extender["kind"]);
  EXPECT_EQ(own["metadata"], extender["metadata"]);
  ServerConfig base, config;
  ReadConfigText("configmap.yaml", extender["data"]["serve.yaml"].get<std::string>(), base);
  ReadConfigText(file.string(), own["data"]["serve.yaml"].get<std::string>(), config);
  EXPECT_EQ(config.kube_api, "in-cluster");
  EXPECT_EQ(config.kube_scheduler_name,
            objects.at("Pod/hello-archimedes")["spec"]["schedulerName"]);
  EXPECT_EQ(config.port, base.port);
  EXPECT_EQ(config.data, base.data);
  EXPECT_EQ(config.policy, base.policy);
}

// The role's rules against every call `serve --kube-api` really makes are checked where it makes
// them (kube_scheduler_test.cc); here, that the role is bound to the account serve runs as.
TEST(KubernetesManifestsTest, ServesRoleIsBoundToItsAccount) {
  const std::map<std::string, json> objects = Objects();
  const json& binding = objects.at("ClusterRoleBinding/archimedes");
  EXPECT_EQ(binding["roleRef"]["name"], "archimedes");
  const std::string account =
      objects.at("Deployment/archimedes")["spec"]["template"]["spec"]["serviceAccountName"];
  bool bound = false;
  for (const json& s : binding["subjects"]) {
    bound |= s["kind"] == "ServiceAccount" && s["name"] == account &&
             s["namespace"] == objects.at("Deployment/archimedes")["metadata"]["namespace"];
  }
  EXPECT_TRUE(bound);
}

}  // namespace
}  // namespace archimedes
