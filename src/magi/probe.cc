#include "magi/probe.h"

#include <fcntl.h>
#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace archimedes::magi {
namespace {

bool SplitHostPort(const std::string& address, std::string* host, std::string* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) return false;
  *host = address.substr(0, colon);
  *port = address.substr(colon + 1);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);  // [IPv6]:PORT
  }
  return port->find_first_not_of("0123456789") == std::string::npos;
}

// Connects to `address` within `timeout`; returns "" on success or why it failed.
std::string TcpConnect(const std::string& address, std::chrono::milliseconds timeout) {
  std::string host, port;
  if (!SplitHostPort(address, &host, &port)) return "bad address " + address;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return "resolve " + host + ": " + gai_strerror(rc);
  }
  std::string error = "no address for " + host;
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = std::string("socket: ") + strerror(errno);
      continue;
    }
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = poll(&p, 1, static_cast<int>(timeout.count()));
      if (rc == 0) {
        error = "tcp connect " + address + ": timed out";
        rc = -1;
      } else if (rc > 0) {
        int so_error = 0;
        socklen_t len = sizeof(so_error);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
        rc = so_error == 0 ? 0 : -1;
        if (so_error != 0) error = "tcp connect " + address + ": " + strerror(so_error);
      } else {
        error = std::string("poll: ") + strerror(errno);
      }
    } else if (rc != 0) {
      error = "tcp connect " + address + ": " + strerror(errno);
    }
    close(fd);
    if (rc == 0) {
      freeaddrinfo(found);
      return "";
    }
  }
  freeaddrinfo(found);
  return error;
}

// GETs `url` within `timeout`; returns "" on HTTP 200 or why it failed.
std::string HttpGet(const std::string& url, std::chrono::milliseconds timeout) {
  const std::string scheme = "http://";
  const size_t path_start = url.find('/', scheme.size());
  const std::string origin = url.substr(0, path_start);
  const std::string path = path_start == std::string::npos ? "/" : url.substr(path_start);
  httplib::Client client(origin);
  const auto sec = timeout.count() / 1000;
  const auto usec = (timeout.count() % 1000) * 1000;
  client.set_connection_timeout(sec, usec);
  client.set_read_timeout(sec, usec);
  client.set_write_timeout(sec, usec);
  httplib::Result res = client.Get(path);
  if (!res) return "http get " + url + ": " + httplib::to_string(res.error());
  if (res->status != 200) return "http get " + url + ": status " + std::to_string(res->status);
  return "";
}

}  // namespace

ProbeResult ProbeNode(const NodeTarget& node, std::chrono::milliseconds timeout) {
  ProbeResult result;
  std::string tcp_error = TcpConnect(node.address, timeout);
  result.tcp_ok = tcp_error.empty();
  std::string http_error =
      node.health_url.empty() ? "no health URL" : HttpGet(node.health_url, timeout);
  result.http_ok = http_error.empty();
  if (!result.tcp_ok) result.error = tcp_error;
  if (!result.http_ok && !node.health_url.empty()) {
    result.error += (result.error.empty() ? "" : "; ") + http_error;
  }
  return result;
}

}  // namespace archimedes::magi
