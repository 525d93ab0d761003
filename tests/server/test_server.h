// An ApiServer on a free loopback port with its own data folder, serving on a thread, and a
// client for it. Restart() stops it and serves again from the same folder.
#ifndef ARCHIMEDES_TESTS_SERVER_TEST_SERVER_H_
#define ARCHIMEDES_TESTS_SERVER_TEST_SERVER_H_

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/api_server.h"

namespace archimedes::testing {

inline std::string MakeTempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "archimedes-serve-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

class TestServer {
 public:
  explicit TestServer(ServerConfig config = VirtualConfig()) : config_(std::move(config)) {
    config_.host = "127.0.0.1";
    config_.port = 0;
    if (config_.data == ServerConfig{}.data) config_.data = dir_ = MakeTempDir();
    Start();
  }
  ~TestServer() {
    Stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  static ServerConfig VirtualConfig() {
    ServerConfig config;
    config.clock = ClockMode::kVirtual;
    config.policy = "k8s-default";
    config.http_threads = 16;
    return config;
  }

  void Start() {
    server_ = std::make_unique<ApiServer>(config_);
    thread_ = std::thread([this] { server_->Run(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(std::chrono::seconds(70));
    for (int i = 0; i < 500; ++i) {
      auto r = client_->Get("/readyz");
      if (r && r->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("the test server did not become ready");
  }
  void Stop() {
    if (!server_) return;
    server_->Stop();
    thread_.join();
    client_.reset();
    server_.reset();
  }
  void Restart() {
    Stop();
    Start();
  }

  httplib::Client& client() { return *client_; }
  int port() const { return server_->port(); }
  const ServerConfig& config() const { return config_; }

 private:
  ServerConfig config_;
  std::string dir_;
  std::unique_ptr<ApiServer> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace archimedes::testing

#endif  // ARCHIMEDES_TESTS_SERVER_TEST_SERVER_H_
