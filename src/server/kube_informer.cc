#include "server/kube_informer.h"

#include <iostream>

#include "kube/kube_error.h"

namespace archimedes {
namespace {

constexpr std::chrono::seconds kMaxBackoff{30};
// The server ends a watch after timeoutSeconds; a little longer without a byte means the
// connection is gone.
constexpr int kWatchSeconds = 300;
constexpr std::chrono::seconds kWatchIdle{kWatchSeconds + 30};

}  // namespace

KubeInformer::KubeInformer(KubeApiClient& client, std::string resource, Handlers handlers)
    : client_(client), resource_(std::move(resource)), handlers_(std::move(handlers)) {}

KubeInformer::~KubeInformer() { Stop(); }

void KubeInformer::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void KubeInformer::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void KubeInformer::Loop() {
  std::string version;
  while (true) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    if (version.empty()) {
      version = List();
      if (version.empty() && !Backoff()) return;
      continue;
    }
    if (!WatchFrom(version) && !Backoff()) return;
  }
}

std::string KubeInformer::List() {
  const KubeAnswer answer = client_.Get(resource_);
  handlers_.observe("list", answer.status);
  if (Stopping()) return "";
  if (!answer.ok()) {
    Fail("list " + resource_ + ": " + answer.Describe());
    return "";
  }
  KubeList list;
  try {
    list = DecodeList(answer.body, resource_);
  } catch (const KubeError& e) {
    Fail("list " + resource_ + ": " + e.what());
    return "";
  }
  if (list.resource_version.empty()) {
    Fail("list " + resource_ + ": the list has no metadata.resourceVersion to watch from");
    return "";
  }
  // The handlers check what they read; whatever else a strange object makes them throw costs
  // that object, not the process.
  try {
    handlers_.replace(list.items);
  } catch (const std::exception& e) {
    Fail("list " + resource_ + ": " + e.what());
  }
  if (failing_)
    std::cerr << "archimedes serve: kube: " << resource_ << " listed again" << std::endl;
  failing_ = false;
  backoff_ = std::chrono::seconds(1);
  return list.resource_version;
}

bool KubeInformer::Stopping() {
  std::lock_guard lock(mu_);
  return stopping_ || client_.cancelled();
}

bool KubeInformer::WatchFrom(std::string& version) {
  bool relist = false;
  std::string problem;
  const std::string path = resource_ + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" +
                           std::to_string(kWatchSeconds) + "&resourceVersion=" + version;
  const KubeAnswer answer = client_.Watch(path, kWatchIdle, [&](const nlohmann::json& line) {
    KubeWatchEvent event;
    try {
      event = DecodeWatchEvent(line, resource_ + " watch event");
    } catch (const KubeError& e) {
      problem = e.what();
      return false;
    }
    if (event.type == KubeWatchEvent::Type::kError) {
      relist = event.status.code == 410;
      problem = "ERROR " + std::to_string(event.status.code) + " " + event.status.reason + ": " +
                event.status.message;
      return false;
    }
    if (!event.resource_version.empty()) version = event.resource_version;
    if (event.type == KubeWatchEvent::Type::kBookmark) return true;
    try {
      handlers_.apply(event.type, event.object);
    } catch (const std::exception& e) {
      std::cerr << "archimedes serve: kube: watch " << resource_
                << ": an event is skipped: " << e.what() << std::endl;
    }
    return true;
  });
  handlers_.observe("watch", answer.status);
  if (Stopping()) return false;
  if (answer.status == 410) relist = true;
  if (relist) {
    std::cerr << "archimedes serve: kube: watch " << resource_ << " from resourceVersion "
              << version << " expired (" << (problem.empty() ? answer.Describe() : problem)
              << "); listing again" << std::endl;
    version.clear();
    return true;
  }
  if (!problem.empty() || answer.status != 200) {
    Fail("watch " + resource_ + ": " + (problem.empty() ? answer.Describe() : problem));
    // Only a broken connection may resume where it was; anything else lists again.
    if (answer.status != 0 || !problem.empty()) version.clear();
    return false;
  }
  failing_ = false;
  backoff_ = std::chrono::seconds(1);
  return true;
}

void KubeInformer::Fail(const std::string& what) {
  if (!failing_) std::cerr << "archimedes serve: kube: " << what << "; retrying" << std::endl;
  failing_ = true;
}

bool KubeInformer::Backoff() {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, backoff_, [this] { return stopping_; });
  backoff_ = std::min(backoff_ * 2, kMaxBackoff);
  return !stopping_;
}

}  // namespace archimedes
