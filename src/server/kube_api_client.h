// A client of the Kubernetes API server, for serve's own scheduler (server/kube_scheduler.h):
// JSON GET and POST, and watch streams read line by line, over HTTPS with a bearer token and the
// CA that signs the server's certificate, as client-go's rest.Config does. `in-cluster` takes
// what Kubernetes gives a pod: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT and the
// service account's token and CA under /var/run/secrets/kubernetes.io/serviceaccount/. The token
// file is read again for every request, so a rotated (bound, expiring) token is picked up.
// Thread-safe.
#ifndef ARCHIMEDES_SERVER_KUBE_API_CLIENT_H_
#define ARCHIMEDES_SERVER_KUBE_API_CLIENT_H_

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace httplib {
class Client;
}

namespace archimedes {

struct KubeApiLocation {
  std::string url;         // scheme://host:port
  std::string token_file;  // empty: no Authorization
  std::string ca_file;     // empty: the system's CAs
};
// `url` as the kube-api setting gives it ("in-cluster" resolved from the environment), with the
// token and CA files given or, when empty and the service account's exist, those. Throws
// ConfigError naming what is missing.
KubeApiLocation ResolveKubeApi(const std::string& url, const std::string& token_file,
                               const std::string& ca_file);

// An answer: the HTTP status and the JSON body (null when it was none), or status 0 and `error`
// when there was no answer (connection, TLS, timeout) or the body was not JSON. (clang-tidy reads
// nlohmann::json's invariant checks in the implicit moves as throwing; they are not.)
struct KubeAnswer {  // NOLINT(bugprone-exception-escape)
  int status = 0;
  nlohmann::json body;
  std::string error;
  bool ok() const { return status >= 200 && status < 300; }
  // "HTTP 429 TooManyRequests: ..." or the error: for logs.
  std::string Describe() const;
};

class KubeApiClient {
 public:
  KubeApiClient(KubeApiLocation location, std::chrono::seconds timeout);
  ~KubeApiClient();
  KubeApiClient(const KubeApiClient&) = delete;
  KubeApiClient& operator=(const KubeApiClient&) = delete;

  const std::string& url() const { return location_.url; }
  KubeAnswer Get(const std::string& path);
  KubeAnswer Post(const std::string& path, const nlohmann::json& body);
  // GETs a watch stream and hands each JSON line to `on_line` until it returns false, the server
  // ends the stream, nothing comes for `idle`, or Cancel. The answer's body is null; a status
  // other than 200 carries the server's Status.
  KubeAnswer Watch(const std::string& path, std::chrono::seconds idle,
                   const std::function<bool(const nlohmann::json&)>& on_line);
  // Ends every watch in progress and refuses every later call (status 0): for shutting down.
  void Cancel();
  bool cancelled();

 private:
  std::unique_ptr<httplib::Client> Connect(std::chrono::seconds read_timeout) const;

  KubeApiLocation location_;
  std::chrono::seconds timeout_;
  std::mutex mu_;
  bool cancelled_ = false;                // guarded by mu_
  std::set<httplib::Client*> in_flight_;  // guarded by mu_
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_KUBE_API_CLIENT_H_
