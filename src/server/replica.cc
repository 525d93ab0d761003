#include "server/replica.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

namespace archimedes {
namespace {

constexpr auto kFollowInterval = std::chrono::milliseconds(100);
constexpr int64_t kFollowPage = 1000;
// How often the leader compacts etcd's history (EtcdJournal::CompactHistory), keeping one such
// period of it: kube-apiserver's default.
constexpr auto kCompactEvery = std::chrono::minutes(5);

}  // namespace

Replica::Replica(EtcdJournal& journal, ApiContext& context, std::string address,
                 int64_t lease_ttl_s)
    : journal_(journal),
      context_(context),
      leadership_(journal.store(), journal.prefix(), std::move(address), lease_ttl_s) {}

Replica::~Replica() { Stop(); }

int64_t Replica::Start() {
  int64_t replayed = 0;
  {
    std::lock_guard lock(context_.mu);
    context_.leading = false;
    context_.leader.clear();  // until the first look at the leader key
    journal_.ForEach(context_.plane.applied_seq(), [&](int64_t seq, const Event& event) {
      context_.plane.Follow(seq, event);
      ++replayed;
    });
    context_.ready = true;
  }
  thread_ = std::thread([this] { Loop(); });
  return replayed;
}

void Replica::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  try {
    leadership_.Resign();
  } catch (const StoreError& e) {
    std::cerr << "archimedes serve: cannot hand the lead over (it passes when the lease expires): "
              << e.what() << std::endl;
  }
}

void Replica::Loop() {
  const auto renew_every = std::max(std::chrono::milliseconds(leadership_.ttl_s() * 1000 / 3),
                                    std::chrono::milliseconds(500));
  auto renewed = std::chrono::steady_clock::now();
  auto compacted = renewed;
  std::string last_failure;
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    try {
      if (!leadership_.leading()) {
        Follow();
        if (leadership_.TryLead()) {
          Promote();
          renewed = std::chrono::steady_clock::now();
        } else {
          SetLeader(leadership_.leader());
        }
      } else if (std::chrono::steady_clock::now() - renewed >= renew_every) {
        if (!leadership_.Renew()) Die("its lease expired");
        renewed = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - compacted >= kCompactEvery) {
        compacted = std::chrono::steady_clock::now();
        journal_.CompactHistory();
      }
      last_failure.clear();
    } catch (const StoreError& e) {
      if (e.what() != last_failure) std::cerr << "archimedes serve: " << e.what() << std::endl;
      last_failure = e.what();
    } catch (const JournalError& e) {
      if (e.what() != last_failure) std::cerr << "archimedes serve: " << e.what() << std::endl;
      last_failure = e.what();
    }
    if (leadership_.leading() &&
        std::chrono::steady_clock::now() - renewed > std::chrono::seconds(leadership_.ttl_s())) {
      Die("it could not renew its lease for " + std::to_string(leadership_.ttl_s()) + " s");
    }
    lock.lock();
    wake_.wait_for(lock, kFollowInterval, [this] { return stop_; });
  }
}

void Replica::Follow() {
  int64_t after = 0;
  {
    std::lock_guard lock(context_.mu);
    after = context_.plane.applied_seq();
  }
  while (true) {
    const std::vector<std::pair<int64_t, Event>> page = journal_.Read(after, kFollowPage);
    if (page.empty()) return;
    {
      std::lock_guard lock(context_.mu);
      for (const auto& [seq, event] : page) context_.plane.Follow(seq, event);
    }
    context_.actions_changed.notify_all();
    after = page.back().first;
    if (static_cast<int64_t>(page.size()) < kFollowPage) return;
  }
}

void Replica::Promote() {
  int64_t replayed = 0;
  int64_t from = 0;
  try {
    std::lock_guard lock(context_.mu);
    // The old leader can no longer append: what the log holds now is all it will ever hold.
    journal_.ForEach(context_.plane.applied_seq(), [&](int64_t seq, const Event& event) {
      context_.plane.Follow(seq, event);
      ++replayed;
    });
    journal_.Lead(leadership_.term(), context_.plane.applied_seq());
    context_.plane.Lead(journal_);
    from = context_.plane.applied_seq();
    context_.leader = leadership_.address();
    context_.leading = true;
  } catch (const JournalError&) {
    leadership_.Resign();
    throw;
  }
  context_.actions_changed.notify_all();
  std::cerr << "archimedes serve: leading (term " << leadership_.term() << ") after event " << from
            << ", " << replayed << " of them read on taking the lead" << std::endl;
}

void Replica::SetLeader(const std::string& leader) {
  std::lock_guard lock(context_.mu);
  context_.leader = leader;
}

void Replica::Die(const std::string& why) {
  std::cerr << "archimedes serve: no longer the leader: " << why
            << "; stopping (a restart follows the new leader)" << std::endl;
  std::_Exit(1);
}

}  // namespace archimedes
