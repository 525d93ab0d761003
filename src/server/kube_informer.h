// Lists and watches one kind of Kubernetes object, as client-go's reflector does: a list, handed
// over whole (`replace`), then a watch from the list's resourceVersion whose events are handed
// over one by one (`apply`); a watch that ends (the server's timeout, a broken connection) resumes
// from the last resourceVersion seen, bookmarks included; 410 Gone or Expired (that version is
// no longer in the server's window) lists again. Failures wait 1 s, doubling to 30 s, and are
// logged once per run of them. Handlers run on the informer's thread, one at a time.
#ifndef ARCHIMEDES_SERVER_KUBE_INFORMER_H_
#define ARCHIMEDES_SERVER_KUBE_INFORMER_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/api_messages.h"
#include "server/kube_api_client.h"

namespace archimedes {

class KubeInformer {
 public:
  struct Handlers {
    std::function<void(const std::vector<nlohmann::json>&)> replace;
    std::function<void(KubeWatchEvent::Type, const nlohmann::json&)> apply;
    // Each call to the API and its outcome ("list", "watch"; the HTTP status, 0 for none).
    std::function<void(const std::string& call, int status)> observe;
  };
  // `resource` is the collection's path ("/api/v1/pods"); `client` must outlive the informer.
  KubeInformer(KubeApiClient& client, std::string resource, Handlers handlers);
  ~KubeInformer();  // Stop()
  KubeInformer(const KubeInformer&) = delete;
  KubeInformer& operator=(const KubeInformer&) = delete;

  void Start();
  // Joins the thread; the client must be cancelled first (KubeApiClient::Cancel) to end a watch
  // in progress.
  void Stop();

 private:
  void Loop();
  // Lists; returns the resourceVersion to watch from, or empty after a failure.
  std::string List();
  // Watches from `version`, moving it to the last one seen, or clearing it when the next step is
  // a list; false after a failure (the caller backs off first).
  bool WatchFrom(std::string& version);
  void Fail(const std::string& what);
  bool Stopping();
  // Waits `backoff_` (doubling it) or until Stop; false when stopping.
  bool Backoff();

  KubeApiClient& client_;
  std::string resource_;
  Handlers handlers_;
  std::chrono::seconds backoff_{1};
  bool failing_ = false;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_KUBE_INFORMER_H_
