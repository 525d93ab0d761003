#include "server/group_commit.h"

#include <algorithm>

namespace archimedes {

int64_t GroupCommit::Append(Event event) {
  std::lock_guard lock(queue_mu_);
  queue_.emplace_back(++appended_, std::move(event));
  return appended_;
}

void GroupCommit::Sync(int64_t seq, const std::function<void(const Batch&)>& write) {
  if (durable_ >= seq) return;
  std::lock_guard writer(write_mu_);
  if (durable_ >= seq) return;  // written by the request that held the lock before
  Batch batch;
  {
    std::lock_guard lock(queue_mu_);
    batch.swap(queue_);
  }
  if (!batch.empty()) write(batch);
}

void GroupCommit::RestartAfter(int64_t last) {
  std::scoped_lock lock(queue_mu_, write_mu_);
  queue_.clear();
  appended_ = last;
  durable_ = last;
}

void GroupCommit::Stored(int64_t seq) {
  std::lock_guard lock(queue_mu_);
  appended_ = std::max(appended_, seq);
  durable_ = std::max(durable_.load(), seq);
}

}  // namespace archimedes
