// A loopback stand-in for the Kubernetes API server (no API server is packaged for Debian): it
// serves the recorded lists of tests/kube/api/ and watch streams of the lines a test pushes, and
// answers pods/binding and policy/v1 Eviction as kube-apiserver does (201; 409 for a pod bound
// already; 429 with the fixture's DisruptionBudget Status for the first eviction of each pod),
// changing its pods as the real server would and streaming the change. Every Binding and Eviction
// it receives is checked against the shared fixtures' shapes; what does not match, and a request
// without the expected bearer token (answered 401), is kept in problems(). Over TLS when given a
// certificate and key.
#ifndef ARCHIMEDES_TESTS_SERVER_KUBE_API_STUB_H_
#define ARCHIMEDES_TESTS_SERVER_KUBE_API_STUB_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fixture_files.h"

namespace archimedes::testing {

class KubeApiStub {
 public:
  KubeApiStub(std::string token, const std::string& cert = "", const std::string& key = "")
      : token_(std::move(token)) {
    if (cert.empty()) {
      server_ = std::make_unique<httplib::Server>();
    } else {
      server_ = std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str());
    }
    server_->new_task_queue = [] { return new httplib::ThreadPool(16); };
    Route("/api/v1/nodes", "nodes", "NodeList", "v1");
    Route("/api/v1/pods", "pods", "PodList", "v1");
    Route("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "leases", "LeaseList",
          "coordination.k8s.io/v1");
    server_->Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/(binding|eviction))",
                  [this](const httplib::Request& r, httplib::Response& w) { Write(r, w); });
    server_->Get("/apis/metrics.k8s.io/v1beta1/pods",
                 [this](const httplib::Request& r, httplib::Response& w) {
                   if (!Authorized(r, w)) return;
                   std::lock_guard lock(mu_);
                   ++metrics_reads_;
                   w.set_content(KubeRecording("pod-metrics.json").dump(), "application/json");
                 });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
  }
  ~KubeApiStub() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    changed_.notify_all();
    server_->stop();
    thread_.join();
  }

  std::string url(bool tls = false) const {
    return std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  }

  void Load(const std::string& resource, const nlohmann::json& list) {
    std::lock_guard lock(mu_);
    for (const nlohmann::json& item : list["items"]) objects_[resource][Key(item)] = item;
    version_ = std::max<int64_t>(
        version_, std::stoll(list["metadata"]["resourceVersion"].get<std::string>()));
  }
  // Streams `line` to the watch of `resource` (the next one, if none is open) and applies it to
  // the objects a list shows, as the server's own change would. ADDED and MODIFIED objects get the
  // next resourceVersion; a BOOKMARK too.
  void Push(const std::string& resource, nlohmann::json line) {
    std::lock_guard lock(mu_);
    PushLocked(resource, std::move(line));
  }
  // Ends the open watch of `resource` once its queued lines are out, as the server's timeout does.
  void CloseWatch(const std::string& resource) {
    std::lock_guard lock(mu_);
    queues_[resource].push_back(nullptr);
    changed_.notify_all();
  }
  // The current object of pod `namespace/name` (null when there is none).
  nlohmann::json Pod(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = objects_["pods"].find(key);
    return it == objects_["pods"].end() ? nlohmann::json() : it->second;
  }

  std::vector<nlohmann::json> bindings() {
    std::lock_guard lock(mu_);
    return bindings_;
  }
  // Each eviction received, with the status it was answered.
  std::vector<std::pair<nlohmann::json, int>> evictions() {
    std::lock_guard lock(mu_);
    return evictions_;
  }
  int lists(const std::string& resource) {
    std::lock_guard lock(mu_);
    return lists_[resource];
  }
  std::vector<std::string> watch_versions(const std::string& resource) {
    std::lock_guard lock(mu_);
    return watch_versions_[resource];
  }
  int metrics_reads() {
    std::lock_guard lock(mu_);
    return metrics_reads_;
  }
  std::vector<std::string> problems() {
    std::lock_guard lock(mu_);
    return problems_;
  }
  // Every call received: "GET /api/v1/pods", "GET /api/v1/pods?watch", "POST .../binding".
  std::set<std::string> calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }
  int64_t version() {
    std::lock_guard lock(mu_);
    return version_;
  }

 private:
  static std::string Key(const nlohmann::json& object) {
    const nlohmann::json& m = object["metadata"];
    return m.contains("namespace")
               ? m["namespace"].get<std::string>() + "/" + m["name"].get<std::string>()
               : m["name"].get<std::string>();
  }
  static nlohmann::json Status(int code, const std::string& reason, const std::string& message) {
    return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
  }

  bool Authorized(const httplib::Request& r, httplib::Response& w) {
    std::lock_guard lock(mu_);
    calls_.insert(r.method + " " + r.path + (r.get_param_value("watch") == "true" ? "?watch" : ""));
    if (r.get_header_value("Authorization") == "Bearer " + token_) return true;
    problems_.push_back(r.method + " " + r.path + " without the bearer token");
    w.status = 401;
    w.set_content(Status(401, "Unauthorized", "Unauthorized").dump(), "application/json");
    return false;
  }

  void PushLocked(const std::string& resource, nlohmann::json line) {
    const std::string type = line["type"];
    nlohmann::json& object = line["object"];
    // A line a test made malformed on purpose is streamed as it is.
    const bool named = object.is_object() && object.contains("metadata") &&
                       object["metadata"].is_object() && object["metadata"].contains("name") &&
                       object["metadata"]["name"].is_string();
    if (named && (type == "ADDED" || type == "MODIFIED")) {
      object["metadata"]["resourceVersion"] = std::to_string(++version_);
    }
    if (type == "BOOKMARK" && object.contains("metadata") && object["metadata"].is_object()) {
      object["metadata"]["resourceVersion"] = std::to_string(++version_);
    }
    if (!named) {
      queues_[resource].push_back(std::move(line));
      changed_.notify_all();
      return;
    }
    if (type == "ADDED" || type == "MODIFIED") {
      nlohmann::json stored = object;
      stored.erase("kind");
      stored.erase("apiVersion");
      objects_[resource][Key(stored)] = stored;
    } else if (type == "DELETED") {
      objects_[resource].erase(Key(object));
    }
    queues_[resource].push_back(std::move(line));
    changed_.notify_all();
  }

  void Route(const std::string& path, const std::string& resource, const std::string& kind,
             const std::string& api_version) {
    server_->Get(path, [this, resource, kind, api_version](const httplib::Request& r,
                                                           httplib::Response& w) {
      if (!Authorized(r, w)) return;
      if (r.get_param_value("watch") != "true") {
        std::lock_guard lock(mu_);
        ++lists_[resource];
        nlohmann::json items = nlohmann::json::array();
        for (const auto& [key, object] : objects_[resource]) items.push_back(object);
        w.set_content(nlohmann::json{{"kind", kind},
                                     {"apiVersion", api_version},
                                     {"metadata", {{"resourceVersion", std::to_string(version_)}}},
                                     {"items", items}}
                          .dump(),
                      "application/json");
        return;
      }
      {
        std::lock_guard lock(mu_);
        watch_versions_[resource].push_back(r.get_param_value("resourceVersion"));
      }
      w.set_chunked_content_provider(
          "application/json", [this, resource](size_t, httplib::DataSink& sink) {
            std::unique_lock lock(mu_);
            changed_.wait_for(lock, std::chrono::milliseconds(50),
                              [&] { return stopping_ || !queues_[resource].empty(); });
            if (stopping_) return false;
            std::deque<nlohmann::json>& queue = queues_[resource];
            if (queue.empty()) return sink.is_writable();
            if (queue.front().is_null()) {
              queue.pop_front();
              sink.done();
              return true;
            }
            const std::string text = queue.front().dump() + "\n";
            if (!sink.write(text.data(), text.size())) return false;
            // The server ends a watch after an ERROR.
            const bool error = queue.front()["type"] == "ERROR";
            queue.pop_front();
            if (error) sink.done();
            return true;
          });
    });
  }

  // Keys of `actual` that `expected` (a fixture of the same message) does not have, and the
  // values that must be equal.
  void CheckShape(const nlohmann::json& expected, const nlohmann::json& actual,
                  const std::string& path) {
    if (!actual.is_object()) {
      problems_.push_back(path + " is not an object");
      return;
    }
    for (auto it = actual.begin(); it != actual.end(); ++it) {
      if (!expected.contains(it.key())) {
        problems_.push_back(path + "." + it.key() + " is not in the fixture's shape");
      } else if (expected[it.key()].is_object()) {
        CheckShape(expected[it.key()], *it, path + "." + it.key());
      } else if (expected[it.key()].type() != it->type()) {
        problems_.push_back(path + "." + it.key() + " has another type than the fixture's");
      }
    }
  }

  void Write(const httplib::Request& r, httplib::Response& w) {
    if (!Authorized(r, w)) return;
    const std::string ns = r.matches[1], name = r.matches[2], verb = r.matches[3];
    const nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
    std::lock_guard lock(mu_);
    const std::string key = ns + "/" + name;
    const auto pod = objects_["pods"].find(key);
    const std::string uid =
        pod == objects_["pods"].end() ? "" : pod->second["metadata"]["uid"].get<std::string>();
    const auto expect = [&](bool ok, const std::string& what) {
      if (!ok) problems_.push_back(verb + " of " + key + ": " + what + ": " + body.dump());
    };
    if (verb == "binding") {
      CheckShape(KubeFixture("binding-v1.json"), body, "Binding");
      expect(body.value("kind", "") == "Binding" && body.value("apiVersion", "") == "v1",
             "kind and apiVersion are Binding, v1");
      expect(body["metadata"].value("name", "") == name &&
                 body["metadata"].value("namespace", "") == ns,
             "metadata names the pod of the path");
      expect(body["metadata"].value("uid", "") == uid, "metadata.uid is the pod's");
      expect(body["target"].value("kind", "") == "Node" &&
                 objects_["nodes"].count(body["target"].value("name", "")) > 0,
             "target is a Node of the cluster");
      bindings_.push_back(body);
    } else {
      CheckShape(KubeFixture("eviction-v1.json"), body, "Eviction");
      expect(body.value("kind", "") == "Eviction" && body.value("apiVersion", "") == "policy/v1",
             "kind and apiVersion are Eviction, policy/v1");
      expect(body["metadata"].value("name", "") == name &&
                 body["metadata"].value("namespace", "") == ns,
             "metadata names the pod of the path");
      expect(body["deleteOptions"]["preconditions"].value("uid", "") == uid,
             "deleteOptions.preconditions.uid is the pod's");
    }
    if (pod == objects_["pods"].end()) {
      w.status = 404;
      w.set_content(Status(404, "NotFound", "pods \"" + name + "\" not found").dump(),
                    "application/json");
      if (verb == "eviction") evictions_.emplace_back(body, 404);
      return;
    }
    if (verb == "binding") {
      if (pod->second["spec"].contains("nodeName")) {
        nlohmann::json conflict = KubeFixture("binding-response-409.json");
        w.status = 409;
        w.set_content(conflict.dump(), "application/json");
        return;
      }
      nlohmann::json bound = pod->second;
      bound["spec"]["nodeName"] = body["target"]["name"];
      bound["kind"] = "Pod";
      bound["apiVersion"] = "v1";
      PushLocked("pods", {{"type", "MODIFIED"}, {"object", bound}});
      w.status = 201;
      w.set_content(KubeFixture("binding-response-201.json").dump(), "application/json");
      return;
    }
    // The first eviction of each pod meets its disruption budget.
    if (refused_.insert(key).second) {
      evictions_.emplace_back(body, 429);
      w.status = 429;
      w.set_content(KubeFixture("eviction-response-429.json").dump(), "application/json");
      return;
    }
    evictions_.emplace_back(body, 201);
    nlohmann::json gone = pod->second;
    gone["kind"] = "Pod";
    gone["apiVersion"] = "v1";
    PushLocked("pods", {{"type", "DELETED"}, {"object", gone}});
    w.status = 201;
    w.set_content(KubeFixture("eviction-response-201.json").dump(), "application/json");
  }

  std::string token_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool stopping_ = false;
  int64_t version_ = 0;
  std::map<std::string, std::map<std::string, nlohmann::json>> objects_;  // resource → key → object
  std::map<std::string, std::deque<nlohmann::json>> queues_;  // watch lines; null ends a watch
  std::map<std::string, int> lists_;
  std::map<std::string, std::vector<std::string>> watch_versions_;
  std::vector<nlohmann::json> bindings_;
  std::vector<std::pair<nlohmann::json, int>> evictions_;
  std::set<std::string> refused_;
  std::vector<std::string> problems_;
  std::set<std::string> calls_;
  int metrics_reads_ = 0;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SERVER_KUBE_API_STUB_H_
