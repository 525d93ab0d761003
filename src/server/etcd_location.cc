#include "server/etcd_location.h"

#include <algorithm>
#include <cctype>

namespace archimedes {

EtcdLocation ParseEtcdLocation(const std::string& store) {
  const std::string scheme = "etcd://";
  if (!IsEtcdStore(store)) throw std::invalid_argument("expected etcd://HOST:PORT,...");
  EtcdLocation location;
  std::string members = store.substr(scheme.size());
  if (const size_t slash = members.find('/'); slash != std::string::npos) {
    std::string prefix = members.substr(slash);
    members.resize(slash);
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    if (prefix.size() > 1) location.prefix = prefix + "/";
  }
  size_t start = 0;
  while (start <= members.size()) {
    size_t comma = members.find(',', start);
    if (comma == std::string::npos) comma = members.size();
    const std::string member = members.substr(start, comma - start);
    const size_t colon = member.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == member.size() ||
        !std::all_of(member.begin() + static_cast<std::ptrdiff_t>(colon) + 1, member.end(),
                     [](unsigned char c) { return std::isdigit(c); })) {
      throw std::invalid_argument("member \"" + member +
                                  "\" is not HOST:PORT (expected etcd://HOST:PORT,HOST:PORT,...)");
    }
    location.endpoints.push_back("http://" + member);
    start = comma + 1;
  }
  return location;
}

}  // namespace archimedes
