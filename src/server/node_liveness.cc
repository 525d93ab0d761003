#include "server/node_liveness.h"

#include <algorithm>

namespace archimedes {

void NodeLiveness::Contact(const std::string& node, Clock::time_point now,
                           std::chrono::seconds wait) {
  if (grace_.count() == 0) return;
  Clock::time_point& last = last_[node];
  last = std::max(last, now + wait);
}

std::vector<std::string> NodeLiveness::Silent(Clock::time_point now) const {
  std::vector<std::string> silent;
  for (const auto& [node, last] : last_) {
    if (now - last > grace_) silent.push_back(node);
  }
  return silent;
}

std::vector<std::string> NodeLiveness::Heard(Clock::time_point now) const {
  std::vector<std::string> heard;
  for (const auto& [node, last] : last_) {
    if (now - last <= grace_) heard.push_back(node);
  }
  return heard;
}

std::vector<std::pair<std::string, NodeLiveness::Clock::time_point>> NodeLiveness::LastContacts(
    Clock::time_point now) const {
  std::vector<std::pair<std::string, Clock::time_point>> contacts;
  contacts.reserve(last_.size());
  for (const auto& [node, last] : last_) contacts.emplace_back(node, std::min(last, now));
  return contacts;
}

}  // namespace archimedes
