#include "server/kube_api_client.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/api_messages.h"
#include "server/config.h"

namespace archimedes {
namespace {

constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount/";

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string OrServiceAccount(const std::string& given, const char* file) {
  if (!given.empty()) return given;
  const std::string path = std::string(kServiceAccountDir) + file;
  return std::filesystem::exists(path) ? path : "";
}

// The token as the file holds it, less surrounding whitespace; empty when it cannot be read.
std::string ReadToken(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  const size_t first = token.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return token.substr(first, token.find_last_not_of(" \t\r\n") - first + 1);
}

KubeAnswer Answer(const httplib::Result& result) {
  KubeAnswer answer;
  if (!result) {
    answer.error = httplib::to_string(result.error());
    return answer;
  }
  answer.status = result->status;
  if (!result->body.empty()) {
    answer.body = nlohmann::json::parse(result->body, nullptr, false);
    if (answer.body.is_discarded()) {
      answer.error = "HTTP " + std::to_string(result->status) +
                     " with a body that is not JSON: " + result->body.substr(0, 200);
      answer.body = nullptr;
    }
  }
  return answer;
}

}  // namespace

KubeApiLocation ResolveKubeApi(const std::string& url, const std::string& token_file,
                               const std::string& ca_file) {
  KubeApiLocation location{.url = url, .token_file = token_file, .ca_file = ca_file};
  if (url == "in-cluster") {
    const std::string host = Env("KUBERNETES_SERVICE_HOST");
    const std::string port = Env("KUBERNETES_SERVICE_PORT");
    if (host.empty() || port.empty()) {
      throw ConfigError(
          "kube-api in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
          "(not running in a pod); give the API server's URL instead");
    }
    const bool v6 = host.find(':') != std::string::npos;
    location.url = "https://" + (v6 ? "[" + host + "]" : host) + ":" + port;
    location.token_file = OrServiceAccount(token_file, "token");
    location.ca_file = OrServiceAccount(ca_file, "ca.crt");
    if (location.token_file.empty()) {
      throw ConfigError(std::string("kube-api in-cluster: no service account token at ") +
                        kServiceAccountDir + "token (automountServiceAccountToken off?)");
    }
  }
  while (location.url.size() > 8 && location.url.back() == '/') location.url.pop_back();
  for (const std::string* file : {&location.token_file, &location.ca_file}) {
    if (!file->empty() && !std::filesystem::is_regular_file(*file)) {
      throw ConfigError("kube-api: " + std::string(file == &location.ca_file ? "CA" : "token") +
                        " file " + *file + " does not exist");
    }
  }
  if (!location.token_file.empty() && ReadToken(location.token_file).empty()) {
    throw ConfigError("kube-api: token file " + location.token_file + " is empty");
  }
  return location;
}

std::string KubeAnswer::Describe() const {
  if (status == 0) return error;
  std::string text = "HTTP " + std::to_string(status);
  if (body.is_object() && body.value("kind", "") == "Status") {
    const KubeStatus s = DecodeStatus(body, "Status");
    if (!s.reason.empty()) text += " " + s.reason;
    if (!s.message.empty()) text += ": " + s.message;
  }
  return text;
}

KubeApiClient::KubeApiClient(KubeApiLocation location, std::chrono::seconds timeout)
    : location_(std::move(location)), timeout_(timeout) {}

KubeApiClient::~KubeApiClient() { Cancel(); }

std::unique_ptr<httplib::Client> KubeApiClient::Connect(std::chrono::seconds read_timeout) const {
  auto client = std::make_unique<httplib::Client>(location_.url);
  client->set_connection_timeout(timeout_);
  client->set_read_timeout(read_timeout);
  client->set_write_timeout(timeout_);
  client->set_keep_alive(false);
  if (!location_.ca_file.empty()) client->set_ca_cert_path(location_.ca_file);
  client->enable_server_certificate_verification(true);
  if (!location_.token_file.empty()) {
    client->set_bearer_token_auth(ReadToken(location_.token_file));
  }
  return client;
}

KubeAnswer KubeApiClient::Get(const std::string& path) {
  auto client = Connect(timeout_);
  if (!client->is_valid()) return {.error = "kube-api " + location_.url + " is not a valid URL"};
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return {.error = "cancelled"};
  }
  return Answer(client->Get(path, {{"Accept", "application/json"}}));
}

KubeAnswer KubeApiClient::Post(const std::string& path, const nlohmann::json& body) {
  auto client = Connect(timeout_);
  if (!client->is_valid()) return {.error = "kube-api " + location_.url + " is not a valid URL"};
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return {.error = "cancelled"};
  }
  return Answer(
      client->Post(path, {{"Accept", "application/json"}}, body.dump(), "application/json"));
}

KubeAnswer KubeApiClient::Watch(const std::string& path, std::chrono::seconds idle,
                                const std::function<bool(const nlohmann::json&)>& on_line) {
  auto client = Connect(idle);
  if (!client->is_valid()) return {.error = "kube-api " + location_.url + " is not a valid URL"};
  // A cancel that comes before the connection exists finds no socket to stop: the socket is shut
  // as it is made.
  client->set_socket_options([this](socket_t socket) {
    std::lock_guard lock(mu_);
    if (cancelled_) shutdown(socket, SHUT_RDWR);
  });
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return {.error = "cancelled"};
    in_flight_.insert(client.get());
  }
  KubeAnswer answer;
  std::string pending;  // a line not yet complete, or a refusal's body
  httplib::Request request;
  request.method = "GET";
  request.path = path;
  request.headers.emplace("Accept", "application/json");
  request.response_handler = [&answer](const httplib::Response& response) {
    answer.status = response.status;
    return true;
  };
  request.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    pending.append(data, length);
    if (answer.status != 200) return pending.size() < (size_t{1} << 20);
    for (size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      const nlohmann::json line = nlohmann::json::parse(std::string_view(pending).substr(0, end),
                                                        nullptr, /*allow_exceptions=*/false);
      pending.erase(0, end + 1);
      if (line.is_discarded()) continue;
      if (!on_line(line)) return false;
    }
    return true;
  };
  httplib::Response response;
  httplib::Error error = httplib::Error::Success;
  client->send(request, response, error);
  {
    std::lock_guard lock(mu_);
    in_flight_.erase(client.get());
  }
  if (answer.status == 0) {
    answer.error = httplib::to_string(error);
  } else if (answer.status != 200) {
    answer.body = nlohmann::json::parse(pending, nullptr, false);
    if (answer.body.is_discarded()) answer.body = nullptr;
  }
  return answer;
}

bool KubeApiClient::cancelled() {
  std::lock_guard lock(mu_);
  return cancelled_;
}

void KubeApiClient::Cancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  for (httplib::Client* client : in_flight_) client->stop();
}

}  // namespace archimedes
