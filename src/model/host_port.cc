#include "model/host_port.h"

#include <charconv>

namespace archimedes {

std::string HostPortProblem(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    return "\"" + address + "\" is not HOST:PORT";
  }
  int port = 0;
  const char* begin = address.data() + colon + 1;
  const char* end = address.data() + address.size();
  const auto [at, error] = std::from_chars(begin, end, port);
  if (error == std::errc::invalid_argument || at != end || *begin == '-' || *begin == '+') {
    return "\"" + address + "\" is not HOST:PORT";
  }
  // Checked here with its range: a server given an int listens on it cut to 16 bits.
  if (error != std::errc() || port < 1 || port > 65535) {
    return "\"" + address + "\": port " + std::string(begin, end) + " is outside [1, 65535]";
  }
  return "";
}

}  // namespace archimedes
